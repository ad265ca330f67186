"""``cbeal serve`` against its floor, in the same run (issue 19 item 4).

The floor is a minimal FastAPI endpoint under the same uvicorn: it parses the JSON, looks
up the request's hashed token, decides with the library itself (``CbeAL.query_many``, the
same preset, learner, seed and initial set as the service's stream, in-process), inserts
the samples and their decisions with one ``executemany`` in one transaction and replies.
Everything else the service does (events, tasks, idempotency, checkpoints, metrics,
middleware) is what the ratio measures.

Server CPU per sample is read from the server process's ``/proc/PID/stat`` (user + system)
before and after each phase; rates are wall time at the client, which shares the machine's
two cores with the server. Phases run in interleaved rounds (cbeal, floor, cbeal, …), both
servers up at once, and the load average is shown beside each round.

    nice -n 10 python benchmarks/bench_service_floor.py            # SQLite and PostgreSQL
    python benchmarks/bench_service_floor.py --serve-floor URL PORT  # (internal) the floor

Results go to ``benchmarks/results/service_floor.md``.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from fastapi import Request  # the floor's route reads it (resolved at module level)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from service_helpers import FEATURES, PG_BASE, Server, free_port, pg_available, pg_schema  # noqa: E402

OUT = HERE / "results" / "service_floor.md"
PRESET, LEARNER, BUDGET, SEED = "CBEAL-5F", "logreg", "2%", 0
TOKEN = (
    "cbeal_floorbenchmarktoken0000000000000000"  # the floor's token (the service issues its own)
)
TICK = os.sysconf("SC_CLK_TCK")


def data() -> Any:
    from cbeal import make_stream

    return make_stream(n=40_000, pc=0.1, p=len(FEATURES), sp=0.0, random_state=SEED)


# ---------------------------------------------------------------------------- the floor
_SQLITE_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS tokens (token_hash TEXT PRIMARY KEY, role TEXT NOT NULL, "
    "revoked_at REAL)",
    "CREATE TABLE IF NOT EXISTS samples (id INTEGER PRIMARY KEY AUTOINCREMENT, "
    "sample_id TEXT NOT NULL UNIQUE, seq INTEGER NOT NULL, x TEXT NOT NULL, "
    "decision TEXT NOT NULL, acquire INTEGER NOT NULL, received_at REAL NOT NULL)",
)
_PG_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS tokens (token_hash TEXT PRIMARY KEY, role TEXT NOT NULL, "
    "revoked_at DOUBLE PRECISION)",
    "CREATE TABLE IF NOT EXISTS samples (id BIGSERIAL PRIMARY KEY, "
    "sample_id TEXT NOT NULL UNIQUE, seq BIGINT NOT NULL, x JSONB NOT NULL, "
    "decision JSONB NOT NULL, acquire BOOLEAN NOT NULL, received_at DOUBLE PRECISION NOT NULL)",
)


def _opener(url: str) -> tuple[Callable[[], Any], str]:
    """A function that opens a DB-API connection to `url`, and its parameter style mark."""
    if url.startswith("sqlite"):
        import sqlite3

        path = url.split("///", 1)[1]

        def sqlite() -> Any:
            conn = sqlite3.connect(path, check_same_thread=False, timeout=10, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=10000")
            return conn

        return sqlite, "?"
    import psycopg

    plain, _, query = url.replace("+psycopg", "").partition("?")
    options = query.split("options=", 1)[1].replace("%3D", "=") if "options=" in query else ""
    return lambda: psycopg.connect(plain, options=options), "%s"


def floor_app(url: str) -> Any:
    """The minimal endpoint: parse, token by hash, the library's decisions, one executemany."""
    import orjson
    from fastapi import FastAPI
    from fastapi.responses import Response

    from cbeal.catalog import learner
    from cbeal.learners import fit_preprocessor
    from cbeal.models import CbeAL
    from cbeal.service.engine.tokens import hash_token

    s = data()
    model = CbeAL.from_preset(
        PRESET,
        estimator=learner(LEARNER, random_state=SEED),
        budget=BUDGET,
        classes=[0, 1],
        refit_every=None,
        preprocessor=fit_preprocessor(np.asarray(s.X0, dtype=float)),
        random_state=SEED,
    ).fit(np.asarray(s.X0, dtype=float), np.asarray(s.y0))
    lock = threading.Lock()
    seq = [0]
    open_conn, mark = _opener(url)
    pool: queue.Queue[Any] = queue.Queue()
    first = open_conn()
    sqlite = mark == "?"
    for stmt in _SQLITE_SCHEMA if sqlite else _PG_SCHEMA:
        first.execute(stmt)
    first.execute(
        f"INSERT INTO tokens VALUES ({mark}, 'admin', NULL) ON CONFLICT DO NOTHING",
        (hash_token(TOKEN),),
    )
    first.commit() if not sqlite else None
    pool.put(first)
    lookup = f"SELECT role, revoked_at FROM tokens WHERE token_hash = {mark}"
    insert = (
        "INSERT INTO samples (sample_id, seq, x, decision, acquire, received_at) "
        f"VALUES ({', '.join([mark] * 6)})"
    )
    app = FastAPI()
    gc.collect()
    gc.freeze()  # as the service does at its start

    def conn_() -> Any:
        try:
            return pool.get_nowait()
        except queue.Empty:
            return open_conn()

    @app.post("/samples")
    def post(request: Request, body: dict[str, Any]) -> Response:  # one thread-pool hop
        conn = conn_()
        try:
            if sqlite:
                conn.execute("BEGIN IMMEDIATE")  # a writer from the start: no upgrade deadlock
            token = request.headers.get("authorization", "")[7:]
            row = conn.execute(lookup, (hash_token(token),)).fetchone()
            if row is None or row[1] is not None:
                conn.rollback()
                return Response(status_code=401)
            items = body["samples"]
            X = np.asarray([it["x"] for it in items], dtype=float)
            with lock:
                decisions = [d.to_dict() for d in model.query_many(X)]
                first_seq = seq[0] + 1
                seq[0] += len(items)
            t = time.time()
            dumps = orjson.dumps
            rows = [
                (
                    it["id"],
                    first_seq + i,
                    dumps(it["x"]).decode(),
                    dumps(d, option=orjson.OPT_SERIALIZE_NUMPY).decode(),
                    bool(d["acquire"]),
                    t,
                )
                for i, (it, d) in enumerate(zip(items, decisions, strict=True))
            ]
            conn.cursor().executemany(insert, rows)
            conn.commit() if not sqlite else conn.execute("COMMIT")
        except BaseException:
            conn.rollback()
            raise
        finally:
            pool.put(conn)
        reply = [
            {"sample_id": it["id"], "seq": first_seq + i, "acquire": d["acquire"], "decision": d}
            for i, (it, d) in enumerate(zip(items, decisions, strict=True))
        ]
        return Response(
            orjson.dumps({"decisions": reply}, option=orjson.OPT_SERIALIZE_NUMPY),
            media_type="application/json",
        )

    return app


def serve_floor(url: str, port: int) -> None:
    import uvicorn

    config = uvicorn.Config(
        floor_app(url), host="127.0.0.1", port=port, log_level="warning", access_log=False
    )
    uvicorn.Server(config).run()


class Floor:
    """The floor in its own process, started like ``cbeal serve`` is."""

    def __init__(self, url: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve-floor", url, str(self.port)],
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.post(f"{self.url}/nothing", timeout=1.0)
                return
            except Exception:
                if self.proc.poll() is not None:
                    raise RuntimeError("the floor server exited") from None
                time.sleep(0.1)
        raise TimeoutError("the floor server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


# ---------------------------------------------------------------------------- the client
def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def send(
    url: str, path: str, auth: str, X: np.ndarray, prefix: str, size: int, clients: int
) -> None:
    """Post X in requests of `size` samples from `clients` threads (keep-alive)."""
    chunks = [(lo, min(len(X), lo + size)) for lo in range(0, len(X), size)]
    failed: list[str] = []

    def work(k: int) -> None:
        with httpx.Client(base_url=url, timeout=120, headers={"Authorization": auth}) as http:
            for lo, hi in chunks[k::clients]:
                body = {
                    "samples": [{"id": f"{prefix}{i}", "x": X[i].tolist()} for i in range(lo, hi)]
                }
                r = http.post(path, json=body)
                if r.status_code != 200:
                    failed.append(f"{url}{path}: {r.status_code} {r.text[:300]}")
                    return

    threads = [threading.Thread(target=work, args=(k,)) for k in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if failed:
        raise RuntimeError(failed[0])


class Target:
    def __init__(self, name: str, url: str, path: str, auth: str, pid: int) -> None:
        self.name, self.url, self.path, self.auth, self.pid = name, url, path, auth, pid

    def run(self, X: np.ndarray, prefix: str, size: int, clients: int) -> tuple[float, float]:
        """(samples per second of wall time, server CPU µs per sample)."""
        c0, t0 = cpu_seconds(self.pid), time.perf_counter()
        send(self.url, self.path, self.auth, X, prefix, size, clients)
        wall, cpu = time.perf_counter() - t0, cpu_seconds(self.pid) - c0
        return len(X) / wall, cpu / len(X) * 1e6


def cbeal_target(db: str, s: Any, tmp: str) -> tuple[Target, Server]:
    from cbeal.service.engine.tokens import create_token
    from cbeal.service.store.db import connect, migrate

    engine = connect(db)
    migrate(engine)
    auth = f"Bearer {create_token(engine, role='admin', name='bench')}"
    engine.dispose()
    server = Server(db, log=Path(tmp) / "serve.log").start()
    from bench_service_latency import create_line

    with httpx.Client(base_url=server.url, headers={"Authorization": auth}) as http:
        create_line(http, s, budget=BUDGET, learner=LEARNER, preset=PRESET)
    pid = server.proc.pid
    return Target("cbeal", server.url, "/api/v1/streams/line/samples", auth, pid), server


PHASES: dict[str, list[tuple[str, int, int, int]]] = {
    # label, samples per round, samples per request, clients
    "SQLite": [
        ("single sample, 1 connection", 300, 1, 1),
        ("single sample, 16 connections", 600, 1, 16),
        ("batches of 1,000", 5000, 1000, 1),
    ],
    "PostgreSQL": [("batches of 1,000", 4000, 1000, 1)],
}


def measure(
    label: str, db_cbeal: str, db_floor: str, rounds: int, rows: list[str], only: str = ""
) -> None:
    s = data()
    X = np.asarray(s.X_stream, dtype=float)
    with tempfile.TemporaryDirectory() as tmp:
        target, server = cbeal_target(db_cbeal, s, tmp)
        floor = Floor(db_floor)
        try:
            both = [
                target,
                Target("floor", floor.url, "/samples", f"Bearer {TOKEN}", floor.proc.pid),
            ]
            for t in both:  # warm: imports, caches, first connections
                t.run(X[:100], "warm-", 1, 1)
                t.run(X[100:2100], "warmb-", 1000, 1)
            offset = 2100
            for phase, n, size, clients in PHASES[label]:
                if only not in phase:
                    continue
                got: dict[str, list[tuple[float, float, float]]] = {t.name: [] for t in both}
                for k in range(rounds):
                    for t in both if k % 2 == 0 else both[::-1]:
                        load = os.getloadavg()[0]
                        rate, cpu = t.run(X[offset : offset + n], f"r{offset}-", size, clients)
                        got[t.name].append((rate, cpu, load))
                    offset += n
                rows.append(row(label, phase, got))
                print(rows[-1], flush=True)
        finally:
            floor.stop()
            server.stop()


def row(label: str, phase: str, got: dict[str, list[tuple[float, float, float]]]) -> str:
    rate = {k: float(np.median([g[0] for g in v])) for k, v in got.items()}
    cpu = {k: float(np.median([g[1] for g in v])) for k, v in got.items()}
    loads = [g[2] for v in got.values() for g in v]
    return (
        f"| {label} {phase} | {cpu['cbeal']:,.0f} | {cpu['floor']:,.0f} | "
        f"**{cpu['cbeal'] / cpu['floor']:.2f}×** | {rate['cbeal']:,.0f} | {rate['floor']:,.0f} | "
        f"**{rate['floor'] / rate['cbeal']:.2f}×** | {min(loads):.1f}–{max(loads):.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds per phase")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--label", default="latest", help="the results section to (re)write")
    parser.add_argument("--only", default="", help="only the phases whose name holds this")
    parser.add_argument("--serve-floor", nargs=2, metavar=("URL", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_floor:
        serve_floor(args.serve_floor[0], int(args.serve_floor[1]))
        return
    import cbeal
    from cbeal.reports.provenance import git_sha

    rows: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        measure(
            "SQLite",
            f"sqlite:///{tmp}/cbeal.db",
            f"sqlite:///{tmp}/floor.db",
            args.rounds,
            rows,
            args.only,
        )
    if not args.no_postgres and pg_available():
        with pg_schema() as a, pg_schema() as b:
            measure("PostgreSQL", a, b, args.rounds, rows, args.only)
    section = "\n".join(
        [
            f"## {args.label}",
            "",
            f"cbeal {cbeal.__version__} (git {git_sha()}), Python {platform.python_version()}, "
            f"{platform.machine()}, {os.cpu_count()} cores, "
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {args.rounds} rounds.",
            "",
            "| phase | cbeal CPU µs/sample | floor CPU µs/sample | CPU ratio | cbeal samples/s "
            "| floor samples/s | rate ratio | load (1 min) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
            *rows,
            "",
        ]
    )
    # one section per label: a rerun replaces its own and keeps the others
    kept = OUT.read_text().split("\n## ")[1:] if OUT.exists() else []
    kept = ["## " + k for k in kept if not k.startswith(args.label + "\n")]
    OUT.write_text("\n".join([HEADER, *kept, section]).rstrip() + "\n")
    print(section)


HEADER = f"""# The service against its floor

`benchmarks/bench_service_floor.py` (issue 19 item 4). Preset {PRESET}, learner {LEARNER},
budget {BUDGET}, seed {SEED}; the service at its default settings; PostgreSQL
{PG_BASE.split("@")[-1]}. Server and client share the machine's cores. The floor parses the
JSON, looks the token up by its hash, decides with `query_many`, inserts with one
`executemany` in one transaction and replies (see the script's docstring). Medians of the
interleaved rounds; CPU is the server process's user + system time per sample; the rate
ratio is floor / cbeal. Ratios are what issue 19 sets goals on (CPU within 1.5× for SQLite,
2× for PostgreSQL batches).
"""


if __name__ == "__main__":
    main()
