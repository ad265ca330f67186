"""Request latency of single samples, with and without the learner retraining (issue 19
item 4: p99 below 50 ms while the learner retrains).

``cbeal serve`` (SQLite, default settings: retraining in the background worker) gets one
client posting single samples at a fixed rate, on one keep-alive connection. Latency is
measured from each request's *scheduled* send time (a request sent late because the one
before was slow counts that wait: no coordinated omission).

* **quiet**: samples only; nobody labels, so the model never retrains;
* **retraining**: the same, while a second client labels every task the service opens
  (answered from the stream's truth; the server runs with ``--undo-seconds 0``, so a
  label is learned at once, not after the undo window), so that the background worker
  retrains the model again and again; the model versions served before and after, and
  the labels given, are recorded beside the figures.

The phases alternate (quiet, retraining, quiet, retraining…); the figures are over all
requests of a phase. Results go to ``benchmarks/results/service_latency.md``.

    nice -n 5 python benchmarks/bench_service_latency.py --learner random-forest
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import httpx
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from service_helpers import FEATURES, Server  # noqa: E402

OUT = HERE / "results" / "service_latency.md"


def create_line(
    http: httpx.Client, s: object, *, budget: str, learner: str, preset: str | None = None
) -> None:
    """Create the stream ``line`` (two classes, the features of the tests' helpers)."""
    config = {
        "name": "line",
        "features": FEATURES,
        "classes": [0, 1],
        "budget": budget,
        "learner": learner,
        "seed": 0,
        "initial": {"x": s.X0.tolist(), "y": s.y0.tolist()},  # type: ignore[attr-defined]
    }
    if preset is not None:
        config["preset"] = preset
    http.post("/api/v1/streams", json=config, timeout=120).raise_for_status()


def version(http: httpx.Client) -> int:
    return int(http.get("/api/v1/streams/line").json().get("model_version") or 0)


def post_samples(http: httpx.Client, X: np.ndarray, lo: int, n: int, rate: float) -> list[float]:
    """Post samples lo … lo+n one per request at `rate` per second; latencies in ms."""
    out = []
    start = time.perf_counter()
    for k in range(n):
        due = start + k / rate
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        r = http.post(
            "/api/v1/streams/line/samples",
            json={"samples": [{"id": f"s{lo + k}", "x": X[lo + k].tolist()}]},
        )
        done = time.perf_counter()
        if r.status_code != 200:
            raise RuntimeError(f"{r.status_code} {r.text[:300]}")
        out.append((done - due) * 1e3)  # from the scheduled time
    return out


def labeller(http: httpx.Client, truth: np.ndarray, stop: threading.Event) -> int:
    """Label every task the service opens until `stop`; returns how many."""
    done = 0
    while not stop.is_set():
        r = http.get("/api/v1/streams/line/tasks/next")
        if r.status_code != 200 or not r.content or r.json() is None:
            time.sleep(0.05)
            continue
        task = r.json()
        label = int(truth[int(task["sample_id"][1:])])
        got = http.post(
            f"/api/v1/tasks/{task['task_id']}/label",
            json={"label": label, "request_id": f"l{task['task_id']}"},
        )
        if got.status_code == 200:
            done += 1
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--learner", default="random-forest")
    parser.add_argument("--preset", default="CBEAL-5F")
    parser.add_argument("--budget", default="10%")
    parser.add_argument("--rate", type=float, default=50.0, help="requests per second")
    parser.add_argument("--n", type=int, default=1500, help="samples per phase and round")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from cbeal import make_stream
    from cbeal.reports.provenance import git_sha
    from cbeal.service.engine.tokens import create_token
    from cbeal.service.store.db import connect, migrate

    s = make_stream(n=40_000, pc=0.1, p=len(FEATURES), sp=0.0, random_state=0)
    X, truth = np.asarray(s.X_stream, dtype=float), np.asarray(s.y_stream)
    got: dict[str, list[float]] = {"quiet": [], "retraining": []}
    notes: dict[str, list[str]] = {"quiet": [], "retraining": []}
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{tmp}/latency.db"
        engine = connect(db)
        migrate(engine)
        token = create_token(engine, role="admin", name="bench")
        engine.dispose()
        # labels are learned at once (no undo window), so that every label retrains
        extra = ("--undo-seconds", "0")
        server = Server(db, extra=extra, log=Path(tmp) / "serve.log").start()
        auth = {"Authorization": f"Bearer {token}"}
        try:
            with (
                httpx.Client(base_url=server.url, headers=auth, timeout=60) as http,
                httpx.Client(base_url=server.url, headers=auth, timeout=60) as side,
            ):
                create_line(http, s, budget=args.budget, learner=args.learner, preset=args.preset)
                lo = 0
                post_samples(http, X, lo, 200, args.rate)  # warm
                lo += 200
                for _ in range(args.rounds):
                    for phase in ("quiet", "retraining"):
                        v0, load0 = version(side), os.getloadavg()[0]
                        stop = threading.Event()
                        count: list[int] = []
                        worker = threading.Thread(
                            target=lambda c=count, e=stop: c.append(labeller(side, truth, e))
                        )
                        if phase == "retraining":
                            worker.start()
                        got[phase] += post_samples(http, X, lo, args.n, args.rate)
                        lo += args.n
                        stop.set()
                        if phase == "retraining":
                            worker.join()
                        notes[phase].append(
                            f"versions {v0}→{version(side)}, labels {sum(count)}, "
                            f"load {load0:.1f}–{os.getloadavg()[0]:.1f}"
                        )
                        print(phase, notes[phase][-1], flush=True)
        finally:
            server.stop()
    import cbeal

    lines = [
        f"## {args.learner}, {args.preset}, budget {args.budget}, {args.rate:g} requests/s",
        "",
        f"cbeal {cbeal.__version__} (git {git_sha()}), Python {platform.python_version()}, "
        f"{os.cpu_count()} cores, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, SQLite, "
        f"{args.rounds} rounds of {args.n} samples per phase.",
        "",
        "| phase | requests | p50 ms | p95 ms | p99 ms | max ms | per round |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for phase, ms in got.items():
        p50, p95, p99 = np.percentile(ms, [50, 95, 99])
        lines.append(
            f"| {phase} | {len(ms):,} | {p50:.1f} | {p95:.1f} | **{p99:.1f}** | "
            f"{max(ms):.1f} | {'; '.join(notes[phase])} |"
        )
    section = "\n".join(lines) + "\n"
    print(section)
    head = "# Single-sample latency, with and without retraining\n\n" + (__doc__ or "")
    kept = OUT.read_text().split("\n## ")[1:] if OUT.exists() else []
    kept = ["## " + k for k in kept if not k.startswith(lines[0][3:] + "\n")]
    OUT.write_text("\n".join([head.rstrip() + "\n", *kept, section]).rstrip() + "\n")


if __name__ == "__main__":
    main()
