"""A soak: ``cbeal serve`` for ten minutes under steady load, its memory traced (issue 19
item 4: no memory growth beyond the labelled pool).

The server runs in its own process (the service's app under uvicorn, as ``cbeal serve``
runs it, SQLite, ``undo_seconds=0`` so that every label is learned and the model
retrains) with :mod:`tracemalloc` on (one frame per trace). A client posts batches of
samples at a fixed rate and a second one labels every task the service opens. Every few
seconds the soak reads the server's resident memory (``VmRSS``) and, from the server, the
memory tracemalloc traces (and what tracemalloc itself uses); at the end the server
compares the traced memory with a baseline taken after the warm-up and writes the lines
that grew most. Growth is expected where the labelled pool is kept (the learner's
training set and the tasks' labels); anything else growing is a leak.

    nice -n 5 python benchmarks/soak.py --minutes 10

Results: ``benchmarks/results/soak.md`` and ``soak.png``.
"""

from __future__ import annotations

import argparse
import json
import os
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
from service_helpers import FEATURES, free_port  # noqa: E402
from soak_rss import mappings, proc_memory, save  # noqa: E402

OUT = HERE / "results" / "soak.md"
PNG = HERE / "results" / "soak.png"


# ------------------------------------------------------------------ the server side
def serve(db: str, port: int, talk: Path) -> None:
    """The service under uvicorn, tracemalloc on; answers the soak through files in `talk`:
    ``base`` → baseline snapshot; ``top`` → ``top.json`` (growth since the baseline);
    every second, ``mem.json`` (traced bytes, tracemalloc's own bytes)."""
    import tracemalloc

    tracemalloc.start(1)
    import uvicorn

    from soak_rss import hooks, malloc_stats

    hooks()  # a variant's benchmark-only change, chosen by the environment (soak_rss.py)

    from cbeal.service.app import create_app
    from cbeal.service.settings import Settings

    app = create_app(Settings(db=db, undo_seconds=0))
    baseline: list[Any] = []

    def watch() -> None:
        while True:
            time.sleep(1.0)
            traced, _ = tracemalloc.get_traced_memory()
            mem = {"traced": traced, "overhead": tracemalloc.get_tracemalloc_memory()}
            mem.update(malloc_stats())
            (talk / "mem.part").write_text(json.dumps(mem))
            os.replace(talk / "mem.part", talk / "mem.json")  # whole, never half-written
            if (talk / "base").exists():
                (talk / "base").unlink()
                baseline[:] = [tracemalloc.take_snapshot()]
                (talk / "base.done").write_text("")
            if (talk / "top").exists() and baseline:
                (talk / "top").unlink()
                diff = tracemalloc.take_snapshot().compare_to(baseline[0], "lineno")
                total = sum(d.size_diff for d in diff)
                diff.sort(key=lambda d: -d.size_diff)  # the most grown first
                top = [
                    {"where": str(d.traceback[0]), "grew": d.size_diff, "size": d.size}
                    for d in diff[:25]
                ]
                (talk / "top.part").write_text(json.dumps({"total": total, "top": top}))
                os.replace(talk / "top.part", talk / "top.json")

    threading.Thread(target=watch, daemon=True).start()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


# ------------------------------------------------------------------ the client side
def ask(talk: Path, what: str, answer: str, timeout: float = 120.0) -> Any:
    (talk / what).write_text("")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (talk / answer).exists():
            text = (talk / answer).read_text()
            return json.loads(text) if text else None
        time.sleep(0.2)
    raise TimeoutError(what)


def main() -> None:
    import subprocess

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--batch", type=int, default=50, help="samples per request")
    parser.add_argument("--rate", type=float, default=10.0, help="requests per second")
    parser.add_argument("--budget", default="2%")
    parser.add_argument("--variant", help="save to results/soak_rss/NAME.json, not soak.md")
    parser.add_argument("--arena-max", type=int, help="MALLOC_ARENA_MAX for the server")
    parser.add_argument("--sqlite-cache", type=int, help="PRAGMA cache_size, KiB")
    parser.add_argument("--trim", type=float, help="malloc_trim(0) every TRIM seconds")
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), Path(args.serve[2]))
        return
    from cbeal import make_stream
    from cbeal.reports.provenance import git_sha
    from cbeal.service.engine.tokens import create_token
    from cbeal.service.store.db import connect, migrate

    n = int(args.minutes * 60 * args.rate * args.batch) + 300 * args.batch
    s = make_stream(n=n, pc=0.1, p=len(FEATURES), sp=0.0, random_state=0)
    X, truth = np.asarray(s.X_stream, dtype=float), np.asarray(s.y_stream)
    with tempfile.TemporaryDirectory() as tmp:
        talk = Path(tmp)
        db = f"sqlite:///{tmp}/soak.db"
        engine = connect(db)
        migrate(engine)
        token = create_token(engine, role="admin", name="soak")
        engine.dispose()
        port = free_port()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        for key, value in (
            ("MALLOC_ARENA_MAX", args.arena_max),
            ("SOAK_SQLITE_CACHE_KIB", args.sqlite_cache),
            ("SOAK_TRIM_SECONDS", args.trim),
        ):
            if value is not None:
                env[key] = str(value)
        proc = subprocess.Popen([sys.executable, __file__, "--serve", db, str(port), tmp], env=env)
        auth = {"Authorization": f"Bearer {token}"}
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    httpx.get(f"{url}/healthz", headers=auth, timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            result = run(url, auth, X, truth, s, proc.pid, talk, args)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    if args.variant:
        save(args.variant, result, args, git_sha())
    else:
        write(result, args, git_sha())


def run(
    url: str,
    auth: dict[str, str],
    X: np.ndarray,
    truth: np.ndarray,
    s: Any,
    pid: int,
    talk: Path,
    args: Any,
) -> dict[str, Any]:
    with (
        httpx.Client(base_url=url, headers=auth, timeout=60) as http,
        httpx.Client(base_url=url, headers=auth, timeout=60) as side,
    ):
        create_line(http, s, budget=args.budget, learner="logreg")
        stop = threading.Event()
        labelled: list[int] = []
        worker = threading.Thread(target=lambda: labelled.append(labeller(side, truth, stop)))
        worker.start()
        lo, k = 0, 0

        def post() -> None:
            nonlocal lo
            body = [{"id": f"s{i}", "x": X[i].tolist()} for i in range(lo, lo + args.batch)]
            http.post("/api/v1/streams/line/samples", json={"samples": body}).raise_for_status()
            lo += args.batch

        for _ in range(200):  # warm-up: imports, caches, the first refits
            post()
        time.sleep(3)
        ask(talk, "base", "base.done")
        series: list[dict[str, Any]] = []
        start = time.perf_counter()
        end = start + args.minutes * 60
        next_probe = start
        while (now := time.perf_counter()) < end:
            due = start + k / args.rate
            if due > now:
                time.sleep(due - now)
            post()
            k += 1
            if time.perf_counter() >= next_probe:
                mem = json.loads((talk / "mem.json").read_text())
                status = side.get("/api/v1/streams/line").json()
                series.append(
                    {
                        "t": time.perf_counter() - start,
                        **proc_memory(pid),
                        **mem,
                        "labels": int(status.get("labels_learned") or 0),
                        "load": os.getloadavg()[0],
                    }
                )
                next_probe += 5.0
        top = ask(talk, "top", "top.json")
        stop.set()
        worker.join()
    maps = mappings(pid)
    return {"series": series, "top": top, "samples": lo, "labels": sum(labelled), "maps": maps}


def write(result: dict[str, Any], args: Any, sha: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t, rss_b, traced, over, labels, load = (
        np.asarray([p[key] for p in result["series"]])
        for key in ("t", "rss", "traced", "overhead", "labels", "load")
    )
    mb = 1 / 2**20
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(t / 60, rss_b * mb, label="resident memory (RSS)")
    ax.plot(t / 60, (rss_b - over) * mb, label="RSS less tracemalloc's own memory")
    ax.plot(t / 60, traced * mb, label="traced by tracemalloc (Python allocations)")
    ax.set_xlabel("minutes")
    ax.set_ylabel("MB")
    ax.set_ylim(bottom=0)
    ax.set_title(f"cbeal serve, {args.minutes:g}-minute soak ({result['samples']:,} samples)")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left")
    ax2 = ax.twinx()
    ax2.plot(t / 60, labels, color="grey", linestyle=":", label="labels learned (right)")
    ax2.set_ylabel("labels learned")
    ax2.set_ylim(bottom=0)
    ax2.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(PNG, dpi=110)
    first, last = 0, len(t) - 1
    top = result["top"]
    here = str(HERE.parent)
    rows = [
        f"| {d['where'].split('site-packages/')[-1].replace(here, '.')} | "
        f"{d['grew'] / 1024:,.0f} | {d['size'] / 1024:,.0f} |"
        for d in top["top"][:15]
    ]
    text = [
        "# Soak: memory over ten minutes",
        "",
        (__doc__ or "").split("\n\n")[1].strip(),
        "",
        f"git {sha}, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, SQLite, logreg, "
        f"budget {args.budget}; {args.batch} samples per request at {args.rate:g} requests/s; "
        f"load (1 min) {load.min():.1f}–{load.max():.1f}.",
        "",
        f"- samples: {result['samples']:,}; labels given: {result['labels']:,}; labels "
        f"learned {labels[first]:,} → {labels[last]:,}",
        f"- RSS: {rss_b[first] * mb:.1f} MB after the warm-up → {rss_b[last] * mb:.1f} MB "
        f"after {t[last] / 60:.1f} min (tracemalloc's own memory: {over[first] * mb:.1f} → "
        f"{over[last] * mb:.1f} MB)",
        f"- traced Python memory: {traced[first] * mb:.1f} → {traced[last] * mb:.1f} MB; "
        f"net growth since the baseline, all lines: {top['total'] / 2**20:.2f} MB",
        "",
        "![memory over the soak](soak.png)",
        "",
        "Lines whose traced memory grew most since the baseline (KiB):",
        "",
        "| where | grew | now |",
        "|---|---:|---:|",
        *rows,
        "",
    ]
    OUT.write_text("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
