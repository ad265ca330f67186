"""A plant (issue 31 item 4): 200 streams across 3 ``cbeal serve`` processes on one
PostgreSQL, 50 samples/s in all with labels; one process killed (SIGKILL) → its streams
served by the others within the lease time, nothing acknowledged lost.

Each process runs the service's app under uvicorn with an owner name of its own "host"
(``plant-host<k>``), as three machines would: a killed process's streams then wait for its
lease to run out (``--lease-seconds``, 15 s), not for the same-host shortcut. Stream i is
created through process i mod 3 (so that process owns it). Three clients, one per process's
streams, send one sample per request in turn over their streams, 50 samples/s in all, and
post the label of every sample the service asks for at once. A request that fails (the
process is gone) or answers 409 (the stream's lease is still held) is sent to the next
process, until it is acknowledged: as a load balancer with health checks would. At
``--kill-at`` seconds process 2 is killed; the run ends at ``--seconds``. Then every
acknowledged sample and label is looked up in the database.

    nice -n 5 python benchmarks/plant.py --seconds 120 --kill-at 45

Results: ``benchmarks/results/plant.md``.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from service_helpers import FEATURES, free_port  # noqa: E402

OUT = HERE / "results" / "plant.md"
PG = "postgresql+psycopg://postgres@127.0.0.1:5432/"


def serve(db: str, port: int, host: str, lease: float) -> None:
    import uvicorn

    from cbeal.service.app import create_app
    from cbeal.service.settings import Settings

    owner = f"{host}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    settings = Settings(db=db, open=True, undo_seconds=0, owner=owner, lease_seconds=lease)
    uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")


class Plant:
    def __init__(self, db: str, lease: float, log: Path) -> None:
        self.ports = [free_port() for _ in range(3)]
        self.urls = [f"http://127.0.0.1:{p}" for p in self.ports]
        self.procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--serve",
                    db,
                    str(port),
                    f"plant-host{k}",
                    "--lease",
                    str(lease),
                ],
                stderr=open(log, "ab"),
            )
            for k, port in enumerate(self.ports)
        ]
        for url in self.urls:
            for _ in range(900):
                try:
                    httpx.get(f"{url}/healthz", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
        self.alive = [True, True, True]

    def kill(self, k: int) -> None:
        self.procs[k].send_signal(signal.SIGKILL)
        self.procs[k].wait()
        self.alive[k] = False

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()


class Client:
    """One process's streams, one sample per request in turn, failing over to the others."""

    def __init__(self, plant: Plant, k: int, streams: list[str], s: Any, rate: float) -> None:
        self.plant, self.k, self.streams, self.s, self.rate = plant, k, streams, s, rate
        self.target = dict.fromkeys(streams, k)
        self.acked: list[tuple[str, str]] = []
        self.labels: list[int] = []
        self.first_after_kill: dict[str, float] = {}
        self.killed_at: float | None = None
        self.retries = 0

    def post(self, stream: str, path: str, body: dict[str, Any]) -> Any:
        while True:
            k = self.target[stream]
            try:
                r = httpx.post(self.plant.urls[k] + path, json=body, timeout=30)
            except httpx.HTTPError:
                r = None
            if r is not None and r.status_code == 200:
                return r.json()
            if r is not None and r.status_code not in (409, 503):
                raise RuntimeError(f"{path}: {r.status_code} {r.text[:200]}")
            self.retries += 1
            if r is None:  # gone: the balancer's health check moves the stream on
                self.target[stream] = (k + 1) % 3
            else:  # 409: another live process holds the lease; try again shortly
                self.target[stream] = (k + 1) % 3
                time.sleep(0.2)

    def run(self, stop: threading.Event) -> None:
        start, n = time.perf_counter(), 0
        while not stop.is_set():
            stream = self.streams[n % len(self.streams)]
            wait = start + n / self.rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            row = n % len(self.s.X_stream)
            sid = f"{stream}-{n}"
            reply = self.post(
                stream,
                f"/api/v1/streams/{stream}/samples",
                {"samples": [{"id": sid, "x": self.s.X_stream[row].tolist()}]},
            )
            self.acked.append((stream, sid))
            if self.killed_at is not None and stream not in self.first_after_kill:
                self.first_after_kill[stream] = time.monotonic() - self.killed_at
            task = reply["decisions"][0]["task_id"]
            if task is not None:
                self.post(
                    stream,
                    f"/api/v1/tasks/{task}/label",
                    {"label": int(self.s.y_stream[row]), "request_id": sid},
                )
                self.labels.append(task)
            n += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--rate", type=float, default=50.0, help="samples per second in all")
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--kill-at", type=float, default=45.0)
    parser.add_argument("--lease", type=float, default=15.0)
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), args.serve[2], args.lease)
        return
    import psycopg
    from sqlalchemy import create_engine, text

    from cbeal import make_stream

    s = make_stream(n=5_000, pc=0.2, p=6, sp=0.0, random_state=1)
    name = f"cbeal_plant_{uuid.uuid4().hex[:8]}"
    admin = PG.replace("+psycopg", "") + "test"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    plant = None
    load = [os.getloadavg()[0]]
    try:
        plant = Plant(PG + name, args.lease, Path(f"/tmp/{name}.log"))
        names = [f"line{i:03d}" for i in range(args.streams)]
        began = time.monotonic()
        for i, stream in enumerate(names):
            config = {
                "name": stream,
                "features": FEATURES,
                "classes": [0, 1],
                "budget": "10%",
                "learner": "logreg",
                "seed": i,
                "initial": {"x": s.X0.tolist(), "y": s.y0.tolist()},
            }
            url = plant.urls[i % 3]
            httpx.post(f"{url}/api/v1/streams", json=config, timeout=120).raise_for_status()
        created = time.monotonic() - began
        clients = [Client(plant, k, names[k::3], s, args.rate / 3) for k in range(3)]
        stop = threading.Event()
        threads = [threading.Thread(target=c.run, args=(stop,)) for c in clients]
        for t in threads:
            t.start()
        time.sleep(args.kill_at)
        sent_before = sum(len(c.acked) for c in clients)
        killed = time.monotonic()
        for c in clients:
            c.killed_at = killed
        plant.kill(2)
        time.sleep(max(args.seconds - args.kill_at, 0))
        stop.set()
        for t in threads:
            t.join()
        load.append(os.getloadavg()[0])
        moved = clients[2]
        takeover = sorted(moved.first_after_kill.values())
        engine = create_engine(PG + name)
        with engine.connect() as conn:
            stored = {
                (r[0], r[1])
                for r in conn.execute(
                    text(
                        "SELECT st.name, s.sample_id FROM samples s "
                        "JOIN streams st ON st.id = s.stream_id WHERE s.seq > 0"
                    )
                )
            }
            labelled = {
                r[0]
                for r in conn.execute(
                    text("SELECT id FROM tasks WHERE status IN ('labelled', 'learned')")
                )
            }
            owners = conn.execute(
                text("SELECT owner, count(*) FROM streams GROUP BY owner ORDER BY owner")
            ).all()
        engine.dispose()
    finally:
        if plant is not None:
            plant.stop()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    acked = [a for c in clients for a in c.acked]
    labels = [t for c in clients for t in c.labels]
    lost = [a for a in acked if a not in stored]
    lost_labels = [t for t in labels if t not in labelled]
    total = time.monotonic() - began - created
    sha = os.popen("git rev-parse --short HEAD").read().strip()
    lines = [
        f"# A plant: {args.streams} streams, 3 processes, one PostgreSQL, one killed",
        "",
        f"git {sha}, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} "
        "cores shared with other sessions (PostgreSQL, the 3 processes and the clients on "
        f"the same machine), load (1 min) {load[0]:.1f} → {load[1]:.1f}. "
        f"{args.streams} streams (logreg, budget 10%), created through their processes in "
        f"{created:.0f} s; {args.rate:g} samples/s in all, one per request, every asked "
        f"sample labelled at once; lease {args.lease:g} s; process 2 (plant-host2, "
        f"{len(moved.streams)} streams) killed with SIGKILL at {args.kill_at:g} s of "
        f"{args.seconds:g}. `benchmarks/plant.py`.",
        "",
        f"- acknowledged: {len(acked):,} samples ({len(acked) / total:.1f}/s over the run; "
        f"{sent_before:,} before the kill) and {len(labels):,} labels",
        f"- **lost: {len(lost)} samples, {len(lost_labels)} labels** (every acknowledged one "
        "looked up in the database after the run)",
        f"- the killed process's {len(moved.streams)} streams served again by the others: "
        f"first after {takeover[0]:.1f} s, half after {takeover[len(takeover) // 2]:.1f} s, "
        f"all {len(takeover)} after **{takeover[-1]:.1f} s** (lease {args.lease:g} s; "
        "the client tries each stream in turn, so the last ones also wait for the ones "
        f"before them); {moved.retries:,} retried requests",
        "- owners at the end: "
        + ", ".join(f"{(o or 'none').split(':')[0]}: {n}" for o, n in owners),
        "",
    ]
    OUT.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
