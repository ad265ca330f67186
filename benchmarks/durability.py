"""Durability: kill ``cbeal serve`` with SIGKILL at random moments while a client streams
samples and labels, restart it, and check that nothing acknowledged was lost.

The client replays a fixed plan (sample batches with fixed ids, then the labels of every
task the service asks for, answered from the stream's truth). A killer thread sends
SIGKILL a random time (0.1 to 3 s) after the server is serving again; the client notices
the dead server, restarts it and repeats the request that was in flight (requests are
idempotent: sample ids, label request ids). At the end it checks, directly in the database:

* every acknowledged sample is stored, with the decision the client was told;
* every acknowledged label is stored with its value;
* no sample is stored twice and no acquisition has two tasks;
* the stream rebuilt from its event log alone (no checkpoint) replays every stored
  decision exactly — the recovered model decides as one that never crashed.

Run: ``python benchmarks/durability.py --kills 100`` (SQLite) or
``--db postgresql+psycopg://root@127.0.0.1/test``. The test suite runs a few kills.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import delete, func, select

from cbeal import make_stream
from cbeal.service.store.db import connect
from cbeal.service.store.tables import checkpoints, samples, tasks

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from service_helpers import FEATURES, Server  # noqa: E402

OUT = HERE / "results" / "durability.md"
START = 120.0  # seconds a (re)start may take: on a loaded 2-core machine, 11-30 s


class Harness:
    def __init__(self, db: str, workdir: Path, *, seed: int, retrain: str) -> None:
        self.server = Server(
            db,
            extra=(
                "--open",
                "--undo-seconds",
                "0",
                "--retrain",
                retrain,
                "--checkpoint-every",
                "50",
                "--lease-seconds",
                "5",
            ),
            log=workdir / "serve.log",
        )
        self.db = db
        self.rng = random.Random(seed)
        self.kills = 0
        self.restarts = 0
        self.ready_at = time.monotonic()
        self._lock = threading.Lock()

    def call(self, method: str, path: str, **kw: Any) -> Any:
        """One request, repeated through kills and restarts until it is acknowledged."""
        while True:
            with self._lock:
                proc = self.server.proc
                if proc is None or proc.poll() is not None:
                    self.server.start(timeout=START)
                    self.restarts += 1
                    self.ready_at = time.monotonic()
            try:
                r = httpx.request(method, self.server.url + path, timeout=30.0, **kw)
            except httpx.HTTPError:
                time.sleep(0.05)
                continue
            if r.status_code in (409, 503) and "Retry-After" in r.headers:
                time.sleep(0.2)
                continue
            if r.status_code >= 400:
                raise RuntimeError(f"{method} {path}: {r.status_code} {r.text}")
            return None if r.status_code == 204 else r.json()

    def killer(self, kills: int, stop: threading.Event, low: float, high: float) -> None:
        """SIGKILL the server a random time after it started serving again."""
        while self.kills < kills and not stop.is_set():
            wait = self.rng.uniform(low, high)
            while not stop.is_set():
                # checked under the lock: the client may have restarted the server while
                # we waited, and the delay counts from the newest start
                with self._lock:
                    proc = self.server.proc
                    alive = proc is not None and proc.poll() is None
                    if alive and time.monotonic() >= self.ready_at + wait:
                        self.server.kill()
                        self.kills += 1
                        break
                time.sleep(0.01)


def run(
    kills: int,
    db: str,
    workdir: Path,
    *,
    seed: int = 0,
    retrain: str = "background",
    batch: int = 20,
    low: float = 0.1,
    high: float = 3.0,
) -> dict[str, Any]:
    """Stream until `kills` SIGKILLs have happened; returns the checks' counts."""
    s = make_stream(n=100_000, pc=0.2, p=len(FEATURES), sp=0.0, random_state=seed)
    truth = ["fail" if v else "ok" for v in s.y_stream.tolist()]
    h = Harness(db, workdir, seed=seed, retrain=retrain)
    h.server.start(timeout=START)
    h.ready_at = time.monotonic()
    h.call(
        "POST",
        "/api/v1/streams",
        json={
            "name": "line",
            "features": FEATURES,
            "classes": ["ok", "fail"],
            "budget": "10%",
            "learner": "logreg",
            "seed": seed,
            "initial": {"x": s.X0.tolist(), "y": ["fail" if v else "ok" for v in s.y0.tolist()]},
        },
    )
    acked_samples: dict[str, str | None] = {}
    acked_labels: dict[int, str] = {}
    stop = threading.Event()
    killer = threading.Thread(target=h.killer, args=(kills, stop, low, high), daemon=True)
    killer.start()
    lo = 0
    start = time.perf_counter()
    while killer.is_alive():
        ids = [f"p{i}" for i in range(lo, lo + batch)]
        reply = h.call(
            "POST",
            "/api/v1/streams/line/samples",
            json={
                "samples": [
                    {"id": sid, "x": s.X_stream[i].tolist()}
                    for sid, i in zip(ids, range(lo, lo + batch), strict=True)
                ]
            },
        )
        for d in reply["decisions"]:
            acked_samples[d["sample_id"]] = d["decision"]["id"]
        lo += batch
        while (task := h.call("GET", "/api/v1/streams/line/tasks/next")) is not None:
            label = truth[int(task["sample_id"][1:])]
            h.call(
                "POST",
                f"/api/v1/tasks/{task['task_id']}/label",
                json={"label": label, "request_id": f"label-{task['task_id']}"},
            )
            acked_labels[task["task_id"]] = label
    stop.set()
    seconds = time.perf_counter() - start
    h.server.stop()
    return check(db, acked_samples, acked_labels) | {
        "kills": h.kills,
        "restarts": h.restarts,
        "seconds": round(seconds, 1),
    }


def check(
    db: str, acked_samples: dict[str, str | None], acked_labels: dict[int, str]
) -> dict[str, Any]:
    engine = connect(db)
    with engine.connect() as conn:
        stored = {
            r.sample_id: r.decision_id
            for r in conn.execute(
                select(samples.c.sample_id, samples.c.decision_id).where(samples.c.seq > 0)
            )
        }
        n_rows = conn.execute(
            select(func.count()).select_from(samples).where(samples.c.seq > 0)
        ).scalar_one()
        labels = {
            r.id: r.label
            for r in conn.execute(
                select(tasks.c.id, tasks.c.label).where(
                    tasks.c.label.is_not(None), tasks.c.status != "initial"
                )
            )
        }
        n_tasks = conn.execute(
            select(func.count()).select_from(tasks).where(tasks.c.status != "initial")
        ).scalar_one()
        n_acquired = conn.execute(
            select(func.count()).select_from(samples).where(samples.c.acquire)
        ).scalar_one()
    lost_samples = sum(sid not in stored for sid in acked_samples)
    changed = sum(stored.get(sid, d) != d for sid, d in acked_samples.items())
    lost_labels = sum(labels.get(t) != v for t, v in acked_labels.items())
    # the recovered model decides exactly as a never-crashed one: rebuild from the log alone
    with engine.begin() as conn:
        conn.execute(delete(checkpoints))
    from cbeal.service.engine.streams import Streams

    streams = Streams(engine, owner="durability-check", lease_seconds=5.0)
    runtime = streams.get("line")  # raises ReplayMismatch on any differing decision
    engine.dispose()
    return {
        "samples_acked": len(acked_samples),
        "samples_lost": lost_samples,
        "decisions_changed": changed,
        "samples_duplicated": n_rows - len(stored),
        "labels_acked": len(acked_labels),
        "labels_lost": lost_labels,
        "tasks": n_tasks,
        "acquired": n_acquired,
        "tasks_duplicated": n_tasks - n_acquired,
        "replayed_events": runtime.seq,
        "replay_exact": True,
        "labels_learned": int(runtime.model.n_labels_),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--db", default=None, help="default: a SQLite file in a temp folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--retrain", default="background")
    args = parser.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or f"sqlite:///{tmp}/durability.db"
        result = run(args.kills, db, Path(tmp), seed=args.seed, retrain=args.retrain)
    kind = db.split(":")[0].split("+")[0]
    lines = [
        f"# Durability ({kind}, retrain={args.retrain}, seed {args.seed})",
        "",
        "| check | count |",
        "|---|---:|",
    ]
    lines += [f"| {k} | {v} |" for k, v in result.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("a") as fh:
        fh.write(text + "\n")
    ok = not (
        result["samples_lost"]
        or result["decisions_changed"]
        or result["labels_lost"]
        or result["samples_duplicated"]
        or result["tasks_duplicated"]
    )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
