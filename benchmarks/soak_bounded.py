"""Bounded memory (issue 31 item 1): ``cbeal serve`` under steady load with tracemalloc off,
its resident memory against the samples and labels it took.

The server (the service's app under uvicorn, as ``cbeal serve`` runs it; SQLite, undo 0,
so every label is learned and the model retrains) runs in its own process; a client posts
batches at a fixed rate and a second one answers every task. Every 10 s the soak reads the
server's ``VmRSS`` and ``RssAnon`` and the stream's counts. After minute 2 it fits resident
memory linearly against the samples sent, and reports MB per 10,000 samples, the labelled
pool's expected share (labels × bytes per labelled sample, from the traced soak) and the
rest: MB per 10,000 unlabelled samples. ``--trim 0`` turns the service's periodic
``malloc_trim`` off (the service's default is every 60 s), ``--retain`` turns retention on.

The machine is shared (2 cores, with other sessions): runs are at most 10–12 minutes, not
the 30 the issue asks for.

    nice -n 5 python benchmarks/soak_bounded.py --minutes 10 --trim 60 --name trim60
    python benchmarks/soak_bounded.py --report

Results: ``benchmarks/results/soak_bounded.md`` (runs in ``results/soak_bounded/*.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))
from bench_service_latency import create_line, labeller  # noqa: E402
from service_helpers import free_port  # noqa: E402

RUNS = HERE / "results" / "soak_bounded"
OUT = HERE / "results" / "soak_bounded.md"
BYTES_PER_LABEL = 2_500  # traced, results/soak.md: the labelled pool's share per label


def serve(db: str, port: int, trim: float, retain: float | None, archive: str) -> None:
    import uvicorn

    from cbeal.service.app import create_app
    from cbeal.service.settings import Settings

    settings = Settings(
        db=db,
        undo_seconds=0,
        open=True,
        trim_seconds=trim,
        retain_seconds=retain,
        archive=archive if retain else None,
    )
    uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")


def memory(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile"):
            out[key] = int(value.split()[0]) * 1024
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--rate", type=float, default=10.0, help="requests per second")
    parser.add_argument("--budget", default="2%")
    parser.add_argument("--trim", type=float, default=60.0)
    parser.add_argument("--retain", type=float, default=None, help="seconds")
    parser.add_argument("--name", default="run")
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--serve", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), args.trim, args.retain, args.serve[0] + ".a")
        return
    if args.report:
        report()
        return
    from cbeal import make_stream

    s = make_stream(n=20_000, pc=0.2, p=6, sp=0.0, random_state=1)
    work = Path(tempfile.mkdtemp(prefix="cbeal-soak-"))
    db, port = f"sqlite:///{work / 'soak.db'}", free_port()
    cmd = [sys.executable, __file__, "--serve", db, str(port), "--trim", str(args.trim)]
    if args.retain:
        cmd += ["--retain", str(args.retain)]
    proc = subprocess.Popen(cmd, stderr=open(work / "serve.log", "wb"))
    url = f"http://127.0.0.1:{port}"
    load_start = os.getloadavg()[0]
    try:
        for _ in range(600):
            try:
                httpx.get(f"{url}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        with httpx.Client(base_url=url, timeout=120) as http:
            create_line(http, s, budget=args.budget, learner="logreg")
        probes = run(url, proc.pid, s, args)
    finally:
        proc.kill()
        proc.wait()
    result = {
        "name": args.name,
        "args": vars(args),
        "git": os.popen("git rev-parse --short HEAD").read().strip(),
        "when": f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        "cores": os.cpu_count(),
        "load": [load_start, os.getloadavg()[0]],
        "probes": probes,
    }
    RUNS.mkdir(parents=True, exist_ok=True)
    (RUNS / f"{args.name}.json").write_text(json.dumps(result, indent=1))
    report()


def run(url: str, pid: int, s: Any, args: Any) -> list[dict[str, Any]]:
    stop, sent = threading.Event(), [0]
    truth = np.resize(np.asarray(s.y_stream), 2_000_000)

    def post() -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            start, k = time.perf_counter(), 0
            while not stop.is_set():
                wait = start + k / args.rate - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
                lo = k * args.batch
                rows = [
                    {"id": f"s{lo + i}", "x": s.X_stream[(lo + i) % len(s.X_stream)].tolist()}
                    for i in range(args.batch)
                ]
                http.post("/api/v1/streams/line/samples", json={"samples": rows})
                k += 1
                sent[0] = k * args.batch

    def label() -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            labeller(http, truth, stop)

    threads = [threading.Thread(target=post), threading.Thread(target=label)]
    for t in threads:
        t.start()
    began, probes = time.monotonic(), []
    try:
        while time.monotonic() - began < args.minutes * 60:
            time.sleep(10.0)
            status = httpx.get(f"{url}/api/v1/streams/line", timeout=30).json()
            probes.append(
                {
                    "t": time.monotonic() - began,
                    "sent": sent[0],
                    "labels": status.get("labels_learned"),
                    **memory(pid),
                }
            )
            print(json.dumps(probes[-1]), flush=True)
    finally:
        stop.set()
        for t in threads:
            t.join()
    return probes


def fit(run: dict[str, Any], after_s: float = 120.0) -> dict[str, float]:
    p = [x for x in run["probes"] if x["t"] >= after_s]
    n = np.array([x["sent"] for x in p], dtype=float)
    labels = np.array([x["labels"] for x in p], dtype=float)
    rss = np.array([x["VmRSS"] for x in p], dtype=float)
    per_sample = float(np.polyfit(n, rss, 1)[0])  # bytes per sample sent
    per_label = float(np.polyfit(n, labels, 1)[0])  # labels learned per sample sent
    pool = per_label * BYTES_PER_LABEL
    return {
        "mb_per_10k": per_sample * 1e4 / 1e6,
        "pool_mb_per_10k": pool * 1e4 / 1e6,
        "rest_mb_per_10k": (per_sample - pool) * 1e4 / (1 - per_label) / 1e6,
        "rss_first": rss[0] / 1e6,
        "rss_last": rss[-1] / 1e6,
        "samples": n[-1] - n[0],
        "labels": labels[-1] - labels[0],
    }


def report() -> None:
    runs = [json.loads(f.read_text()) for f in sorted(RUNS.glob("*.json"))]
    lines = [
        "# Bounded memory: resident memory per 10,000 samples (tracemalloc off)",
        "",
        "`benchmarks/soak_bounded.py`: `cbeal serve`'s app under uvicorn in its own process, "
        "SQLite, logreg, undo 0 (every label learned, the model retrains), every task "
        "answered; a linear fit of VmRSS against the samples sent, after minute 2. The "
        f"labelled pool's share is the labels learned × {BYTES_PER_LABEL:,} bytes (the "
        "traced soak's bytes per labelled sample, results/soak.md); the rest is per "
        "unlabelled sample. At most 10–12 minutes per run: the machine (2 cores) is shared "
        "with other sessions, not the issue's 30.",
        "",
        "| run | when, git | load (1 min) | minutes | batch × rate/s | trim | retain | samples "
        "after min 2 | labels | RSS MB (min 2 → end) | MB per 10k samples | pool's share | "
        "rest, MB per 10k unlabelled |",
        "|---|---|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in runs:
        a, f = r["args"], fit(r)
        lines.append(
            f"| {r['name']} | {r['when']}, {r['git']} | {r['load'][0]:.1f}–{r['load'][1]:.1f} "
            f"| {a['minutes']:g} | {a['batch']} × {a['rate']:g} | {a['trim']:g} s | "
            f"{a['retain'] or '—'} | {f['samples']:,.0f} | {f['labels']:,.0f} | "
            f"{f['rss_first']:.0f} → {f['rss_last']:.0f} | {f['mb_per_10k']:.3f} | "
            f"{f['pool_mb_per_10k']:.3f} | {f['rest_mb_per_10k']:.3f} |"
        )
    notes = ""  # the reading written by hand below the table stays
    if OUT.exists() and "\n## What it shows" in OUT.read_text():
        notes = OUT.read_text()[OUT.read_text().index("\n## What it shows") :]
    OUT.write_text("\n".join(lines) + "\n" + notes)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
