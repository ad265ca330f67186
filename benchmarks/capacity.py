"""The capacity table (issue 31 item 3): streams per process, resident memory per stream, and
samples per second per process, single and batched, on SQLite and PostgreSQL.

One ``cbeal serve`` process per database (``--open``, undo 0, logreg, budget 2%, no expert:
decisions only). Memory first, in the fresh process: streams created, each sent one batch
of 50 samples; RSS read after 1, 10, 50, 100 and 200 streams. Then throughput: one client
sending as fast as the server answers for ``--seconds`` each, one sample per request, then
100 per request, on one more stream. Short runs; the machine and the load are written
beside each figure.

    nice -n 5 python benchmarks/capacity.py --seconds 20 --streams 200

Results: ``benchmarks/results/capacity.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from service_helpers import FEATURES, Server  # noqa: E402

OUT = HERE / "results" / "capacity.md"
PG = "postgresql+psycopg://postgres@127.0.0.1:5432/"


def rss(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def create(http: httpx.Client, name: str, s: Any) -> None:
    config = {
        "name": name,
        "features": FEATURES,
        "classes": [0, 1],
        "budget": "2%",
        "learner": "logreg",
        "seed": 0,
        "initial": {"x": s.X0.tolist(), "y": s.y0.tolist()},
    }
    http.post("/api/v1/streams", json=config).raise_for_status()


def throughput(http: httpx.Client, name: str, s: Any, batch: int, seconds: float) -> float:
    """Samples per second one client gets with `batch` samples per request."""
    X = s.X_stream
    k, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        rows = [{"id": f"{batch}-{k + i}", "x": X[(k + i) % len(X)].tolist()} for i in range(batch)]
        http.post(f"/api/v1/streams/{name}/samples", json={"samples": rows}).raise_for_status()
        k += batch
    return k / (time.perf_counter() - began)


def measure(db: str, label: str, s: Any, args: Any) -> dict[str, Any]:
    server = Server(db, extra=("--open", "--undo-seconds", "0")).start(90)
    assert server.proc is not None
    pid = server.proc.pid
    out: dict[str, Any] = {"db": label, "load": [os.getloadavg()[0]]}
    try:
        with httpx.Client(base_url=server.url, timeout=120) as http:
            out["rss0"] = rss(pid)  # before any stream: memory first, on a fresh heap
            mem = []
            for i in range(args.streams):
                create(http, f"line{i}", s)
                rows = [{"id": f"m{j}", "x": s.X_stream[j].tolist()} for j in range(50)]
                http.post(f"/api/v1/streams/line{i}/samples", json={"samples": rows})
                if i + 1 in (1, 10, 50, 100, 200, 500):
                    mem.append((i + 1, rss(pid)))
            out["memory"] = mem
            create(http, "tput", s)
            time.sleep(1)
            out["single"] = throughput(http, "tput", s, 1, args.seconds)
            out["batched"] = throughput(http, "tput", s, 100, args.seconds)
    finally:
        server.kill()
    out["load"].append(os.getloadavg()[0])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--streams", type=int, default=100)
    args = parser.parse_args()
    from cbeal import make_stream

    s = make_stream(n=5_000, pc=0.2, p=6, sp=0.0, random_state=1)
    work = Path(tempfile.mkdtemp(prefix="cbeal-capacity-"))
    rows = [measure(f"sqlite:///{work / 'c.db'}", "SQLite", s, args)]
    import psycopg

    name = f"cbeal_capacity_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG.replace("+psycopg", "") + "test", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        rows.append(measure(PG + name, "PostgreSQL", s, args))
    finally:
        with psycopg.connect(PG.replace("+psycopg", "") + "test", autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")
    write(rows, args)


def write(rows: list[dict[str, Any]], args: Any) -> None:
    sha = os.popen("git rev-parse --short HEAD").read().strip()
    lines = [
        "# Capacity: one `cbeal serve` process",
        "",
        f"git {sha}, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores "
        "shared with other sessions (client and server on the same machine), logreg, "
        "budget 2%, no expert (decisions only), one client sending as fast as the server "
        f"answers for {args.seconds:g} s each. `benchmarks/capacity.py`.",
        "",
        "| database | samples/s, 1 per request | samples/s, 100 per request | RSS, 1 stream "
        "| RSS by streams loaded | MB per further stream | load (1 min) |",
        "|---|---:|---:|---:|---|---:|---|",
    ]
    for r in rows:
        mem = r["memory"]
        per = (mem[-1][1] - mem[0][1]) / max(mem[-1][0] - mem[0][0], 1)
        lines.append(
            f"| {r['db']} | {r['single']:,.0f} | {r['batched']:,.0f} | {mem[0][1]:.0f} MB | "
            + ", ".join(f"{n}: {m:.0f}" for n, m in mem)
            + f" MB | {per:.2f} | {r['load'][0]:.1f}–{r['load'][1]:.1f} |"
        )
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
