"""Retention's goal check (issue 31): ``cbeal serve --retain 20s --archive DIR`` on SQLite for
150 s under steady load, every task answered; the database's size at the half and at the end,
the archive read back against every sample sent, then a kill -9 and a restart: the stream must
report the same as before the kill.

The database's size is the SQLite file plus its write-ahead log (``-wal``), as ``ls`` sees
them. Policy: no VACUUM; deleted pages go on SQLite's free list and new rows reuse them, and
the log is cut back to 64 MiB after each checkpoint (``journal_size_limit``), so the files
plateau at the retention's worth of samples plus the labelled ones.

    nice -n 5 python benchmarks/retention.py --seconds 150 --retain 20s

Results: ``benchmarks/results/retention.md``.
"""

from __future__ import annotations

import argparse
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
from service_helpers import Server  # noqa: E402

OUT = HERE / "results" / "retention.md"
REPORTED = ("samples_received", "labels_received", "samples_seen", "labels_learned")


def db_bytes(path: Path) -> tuple[int, int]:
    """(main file, write-ahead log) sizes in bytes."""
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size, wal.stat().st_size if wal.exists() else 0


def status(url: str) -> dict[str, Any]:
    got = httpx.get(f"{url}/api/v1/streams/line", timeout=30).json()
    keep = {k: got.get(k) for k in REPORTED}
    keep["model_version"] = got.get("model_version")
    keep["budget_spent"] = (got.get("budget") or {}).get("spent")
    return keep


def load(url: str, X: np.ndarray, stop: threading.Event, sent: list[int], batch: int) -> None:
    """Batches of `batch` samples as fast as the server answers, until `stop`."""
    with httpx.Client(base_url=url, timeout=60) as http:
        k = 0
        while not stop.is_set():
            rows = [{"id": f"s{k + i}", "x": X[(k + i) % len(X)].tolist()} for i in range(batch)]
            http.post("/api/v1/streams/line/samples", json={"samples": rows}).raise_for_status()
            k += batch
            sent[0] = k


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=150.0)
    parser.add_argument("--retain", default="20s")
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    from cbeal import make_stream

    s = make_stream(n=20_000, pc=0.2, p=6, sp=0.0, random_state=1)
    truth = np.asarray(s.y_stream)
    work = Path(tempfile.mkdtemp(prefix="cbeal-retention-"))
    path, folder = work / "service.db", work / "archive"
    extra = ("--open", "--undo-seconds", "0", "--retain", args.retain, "--archive", str(folder))
    server = Server(f"sqlite:///{path}", extra=extra, log=work / "serve.log").start(60)
    load1 = os.getloadavg()[0]
    try:
        with httpx.Client(base_url=server.url, timeout=120) as http:
            create_line(http, s, budget="2%", learner="logreg")
        stop, sent = threading.Event(), [0]
        truth_of = np.resize(truth, 10_000_000)  # sample sK has row K mod n

        def label() -> None:
            with httpx.Client(base_url=server.url, timeout=60) as http:
                labeller(http, truth_of, stop)

        threads = [
            threading.Thread(target=load, args=(server.url, s.X_stream, stop, sent, args.batch)),
            threading.Thread(target=label),
        ]
        for t in threads:
            t.start()
        began, probes = time.monotonic(), []
        while time.monotonic() - began < args.seconds:
            time.sleep(5.0)
            probes.append((round(time.monotonic() - began), sent[0], *db_bytes(path)))
            print(probes[-1], flush=True)
        stop.set()
        for t in threads:
            t.join()
        time.sleep(8.0)  # the archive's next steps (every 5 s at 20 s)
        before = status(server.url)
        size_end = db_bytes(path)
        server.kill()  # kill -9
        server.start(60)
        after = status(server.url)
        server.stop()
        from sqlalchemy import create_engine, text

        from cbeal.service.engine.archive import read_archive

        archived = read_archive(folder, "line")
        engine = create_engine(f"sqlite:///{path}")
        with engine.connect() as conn:
            kept = {r[0] for r in conn.execute(text("SELECT sample_id FROM samples WHERE seq > 0"))}
            count = conn.execute(text("SELECT archived FROM streams")).scalar_one()
        engine.dispose()
        ids = set(archived["sample_id"])
        every = {f"s{k}" for k in range(sent[0])}
        files = len(list(folder.rglob("part-*.parquet")))
        archive_bytes = sum(f.stat().st_size for f in folder.rglob("part-*.parquet"))
    finally:
        server.kill()
    half = min(probes, key=lambda p: abs(p[0] - args.seconds / 2))
    end = probes[-1]
    ratio = (end[2] + end[3]) / (half[2] + half[3])
    load2 = os.getloadavg()[0]
    lines = [
        "# Retention: the database plateaus, the archive holds what left",
        "",
        f"git {os.popen('git rev-parse --short HEAD').read().strip()}, "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores (shared), "
        f"load (1 min) {load1:.1f} at the start, {load2:.1f} at the end; SQLite, logreg, "
        f"budget 2%, batches of {args.batch} as fast as the server answers, every task "
        f"answered, undo 0; `cbeal serve --retain {args.retain} --archive DIR`, "
        f"{args.seconds:.0f} s.",
        "",
        "| s | samples sent | database file MB | -wal MB | total MB |",
        "|---:|---:|---:|---:|---:|",
        *(
            f"| {p[0]} | {p[1]:,} | {p[2] / 1e6:.1f} | {p[3] / 1e6:.1f} | "
            f"{(p[2] + p[3]) / 1e6:.1f} |"
            for p in probes
        ),
        "",
        f"- database at the end / at the half ({half[0]} s): **{ratio:.2f}×** "
        f"({(half[2] + half[3]) / 1e6:.1f} → {(end[2] + end[3]) / 1e6:.1f} MB); after the "
        f"load stopped and the archive caught up: {sum(size_end) / 1e6:.1f} MB",
        f"- samples sent {sent[0]:,}; in the archive {len(archived):,} in {files} files "
        f"({archive_bytes / 1e6:.1f} MB, {archive_bytes / max(len(archived), 1):.0f} bytes "
        f"per sample); in the database {len(kept):,}; the stream's archived count {count:,}",
        f"- every sample sent is in exactly one of the two: "
        f"**{ids | kept == every and not ids & kept}** (archive ∩ database: {len(ids & kept)}, "
        f"missing: {len(every - ids - kept)})",
        f"- the stream before the kill -9: {before}",
        f"- after the restart: {after}; the same: **{before == after}**",
        "",
    ]
    OUT.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
