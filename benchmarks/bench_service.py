"""Speed of ``cbeal serve``: decisions per second and latency, on SQLite and PostgreSQL.

A. single-sample ingest: one client sending one sample per request (keep-alive), and four
   clients at once;
B. batched ingest: 1,000 samples per request;
C. p99 of single-sample ingest while a random-forest retrain runs;
D. a soak: ingest and labels for ``--soak`` seconds, errors and the server's memory.

The server runs in its own process on this machine (2 cores shared with the client).
Results go to ``benchmarks/results/service.md``. Goals (issue 11): single ≥ 1,000
decisions/s, batched ≥ 10,000 samples/s, p99 < 50 ms on SQLite.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import numpy as np

import cbeal
from cbeal import make_stream
from cbeal.reports.provenance import git_sha
from cbeal.service.engine.tokens import create_token
from cbeal.service.store.db import connect, migrate

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from service_helpers import FEATURES, PG_BASE, Server, pg_available, pg_schema  # noqa: E402

OUT = HERE / "results" / "service.md"
ARGS = ("--undo-seconds", "0", "--checkpoint-every", "2000")
# every request carries an admin token, as in a real deployment (the token is looked up
# by its hash on each request)
AUTH: dict[str, str] = {}


def create(
    url: str,
    s: Any,
    name: str,
    learner: str = "logreg",
    budget: str = "2%",
    preset: str = "CBEAL-4U",
) -> None:
    r = httpx.post(
        f"{url}/api/v1/streams",
        timeout=60,
        headers=AUTH,
        json={
            "name": name,
            "features": FEATURES,
            "classes": [0, 1],
            "budget": budget,
            "learner": learner,
            "preset": preset,
            "seed": 0,
            "initial": {"x": s.X0.tolist(), "y": s.y0.tolist()},
        },
    )
    r.raise_for_status()


def single(
    url: str, name: str, X: np.ndarray, prefix: str, clients: int = 1
) -> tuple[float, list[float]]:
    """Decisions per second and latencies (s) of one-sample requests from `clients` threads."""
    lat: list[float] = []
    lock = threading.Lock()

    def work(k: int) -> None:
        mine = []
        with httpx.Client(base_url=url, timeout=60, headers=AUTH) as http:
            for i in range(k, len(X), clients):
                t = time.perf_counter()
                r = http.post(
                    f"/api/v1/streams/{name}/samples",
                    json={"samples": [{"id": f"{prefix}{i}", "x": X[i].tolist()}]},
                )
                mine.append(time.perf_counter() - t)
                assert r.status_code == 200, r.text
        with lock:
            lat.extend(mine)

    start = time.perf_counter()
    threads = [threading.Thread(target=work, args=(k,)) for k in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return len(X) / (time.perf_counter() - start), lat


def batched(url: str, name: str, X: np.ndarray, prefix: str, size: int = 1000) -> float:
    start = time.perf_counter()
    with httpx.Client(base_url=url, timeout=120, headers=AUTH) as http:
        for lo in range(0, len(X), size):
            hi = min(len(X), lo + size)
            r = http.post(
                f"/api/v1/streams/{name}/samples",
                json={
                    "samples": [{"id": f"{prefix}{i}", "x": X[i].tolist()} for i in range(lo, hi)]
                },
            )
            assert r.status_code == 200, r.text
    return len(X) / (time.perf_counter() - start)


def label_all(url: str, name: str, y_of: dict[str, int]) -> int:
    n = 0
    with httpx.Client(base_url=url, timeout=60, headers=AUTH) as http:
        while (r := http.get(f"/api/v1/streams/{name}/tasks/next")).status_code == 200:
            t = r.json()
            http.post(
                f"/api/v1/tasks/{t['task_id']}/label",
                json={"label": y_of[t["sample_id"]], "request_id": f"l{t['task_id']}"},
            )
            n += 1
    return n


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000, q))


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(db: str, label: str, n_single: int, n_batch: int, soak: float, rows: list[str]) -> None:
    s = make_stream(
        n=max(n_single, n_batch) + 2000, pc=0.1, p=len(FEATURES), sp=0.0, random_state=0
    )
    X = s.X_stream
    engine = connect(db)
    migrate(engine)
    AUTH["Authorization"] = f"Bearer {create_token(engine, role='admin', name='bench')}"
    engine.dispose()
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(db, extra=ARGS, log=Path(tmp) / "serve.log").start()
        try:
            for preset in ("CBEAL-4U", "CBEAL-6"):
                a, b = f"a-{preset}", f"b-{preset}"
                create(server.url, s, a, preset=preset)
                single(server.url, a, X[:200], "warm")  # imports, caches
                rate1, lat1 = single(server.url, a, X[:n_single], "s1-")
                rate4, lat4 = single(server.url, a, X[:n_single], "s4-", clients=4)
                create(server.url, s, b, preset=preset)
                rate_b = batched(server.url, b, X[:n_batch], "b-")
                rows.append(
                    f"| {label} | {preset} | single, 1 client | {rate1:,.0f} decisions/s | "
                    f"{pct(lat1, 50):.1f} | {pct(lat1, 99):.1f} |"
                )
                rows.append(
                    f"| {label} | {preset} | single, 4 clients | {rate4:,.0f} decisions/s | "
                    f"{pct(lat4, 50):.1f} | {pct(lat4, 99):.1f} |"
                )
                rows.append(
                    f"| {label} | {preset} | batches of 1,000 | {rate_b:,.0f} samples/s | – | – |"
                )
            # C. a random forest retrains in the background while single samples arrive
            create(server.url, s, "rf", learner="random-forest", budget="20%")
            y_of = {f"rf-{i}": int(s.y_stream[i]) for i in range(len(X))}
            batched(server.url, "rf", X[:1500], "rf-", size=500)
            label_all(server.url, "rf", y_of)  # ~300 labels: retrains queue up
            _, lat_rf = single(server.url, "rf", X[1500:2000], "rf-")
            status = httpx.get(f"{server.url}/api/v1/streams/rf", timeout=60, headers=AUTH).json()
            rows.append(
                f"| {label} | CBEAL-4U | single during random-forest retrains (model v"
                f"{status['model_version']}) | – | {pct(lat_rf, 50):.1f} | "
                f"{pct(lat_rf, 99):.1f} |"
            )
            if soak > 0:
                rows.append(soak_row(server, s, soak, label))
        finally:
            server.stop()


def soak_row(server: Server, s: Any, seconds: float, label: str) -> str:
    create(server.url, s, "soak", budget="5%")
    pid = server.proc.pid  # type: ignore[union-attr]
    mem = [rss_mb(pid)]
    errors = sent = labels = 0
    y = s.y_stream
    start = time.monotonic()
    next_mem = start + 30
    i = 0
    with httpx.Client(base_url=server.url, timeout=60, headers=AUTH) as http:
        while time.monotonic() - start < seconds:
            batch = [
                {"id": f"k{i + j}", "x": s.X_stream[(i + j) % len(y)].tolist()} for j in range(20)
            ]
            r = http.post("/api/v1/streams/soak/samples", json={"samples": batch})
            errors += r.status_code != 200
            sent += 20
            while (t := http.get("/api/v1/streams/soak/tasks/next")).status_code == 200:
                task = t.json()
                k = int(task["sample_id"][1:]) % len(y)
                r = http.post(
                    f"/api/v1/tasks/{task['task_id']}/label",
                    json={"label": int(y[k]), "request_id": f"s{task['task_id']}"},
                )
                errors += r.status_code != 200
                labels += 1
            i += 20
            if time.monotonic() >= next_mem:
                mem.append(rss_mb(pid))
                next_mem += 30
    mem.append(rss_mb(pid))
    half = len(mem) // 2
    return (
        f"| {label} | CBEAL-4U | soak {seconds / 60:.0f} min: {sent:,} samples, {labels:,} labels, "
        f"{errors} errors; server memory {mem[0]:.0f} → {mem[half]:.0f} → {mem[-1]:.0f} MB "
        f"(start, middle, end) | – | – | – |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--single", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=20000)
    parser.add_argument("--soak", type=float, default=0.0, help="seconds (600: 10 minutes)")
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    rows: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        measure(f"sqlite:///{tmp}/bench.db", "SQLite", args.single, args.batch, args.soak, rows)
    if not args.no_postgres and pg_available():
        with pg_schema() as url:
            measure(url, "PostgreSQL", args.single, args.batch, 0.0, rows)
    text = "\n".join(
        [
            "# Service speed",
            "",
            f"cbeal {cbeal.__version__} (git {git_sha()}), Python {platform.python_version()}, "
            f"{platform.machine()}, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; server and "
            f"client on the same 2-core machine; every request with a token; PostgreSQL "
            f"{PG_BASE.split('@')[-1]}; logistic regression, budget 2 % of samples.",
            "",
            "| database | preset | workload | throughput | p50 ms | p99 ms |",
            "|---|---|---|---:|---:|---:|",
            *rows,
            "",
        ]
    )
    print(text)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)


if __name__ == "__main__":
    main()
