"""Where the soak's resident memory goes (issue 19 item 4): benchmark-only hooks for the
soak's server and the report that compares the soak's variants.

The 10-minute soak (``soak.py``) found the traced Python memory bounded by the labelled
pool, but the server's resident memory growing outside tracemalloc's view. The variants
below run the same workload, one at a time, each changing one thing in the *server's*
environment; the service's own defaults are never changed:

- ``as-is``: nothing changed;
- ``arenas2``: ``MALLOC_ARENA_MAX=2`` (glibc gives each thread of the thread pool an arena
  of its own, up to 8 per core);
- ``cache256``: every SQLite connection opened with ``PRAGMA cache_size=-256`` (256 KiB
  instead of SQLite's 2 MiB), through a pool ``connect`` listener installed here;
- ``trim``: glibc's ``malloc_trim(0)`` called every 10 s: what it hands back is memory
  the allocator held free, not memory in use.

Every second the server also records glibc's ``mallinfo2`` (bytes in use and held free,
summed over every arena) and SQLite's own ``sqlite3_memory_used`` (every connection's
page cache and statements); the soak reads ``RssAnon``/``RssFile`` and the thread count
from ``/proc/PID/status`` and, at the end, the largest resident mappings from
``/proc/PID/smaps``.

    nice -n 5 python benchmarks/soak.py --minutes 3 --variant as-is
    nice -n 5 python benchmarks/soak.py --minutes 3 --variant arenas2 --arena-max 2
    python benchmarks/soak_rss.py     # the table and soak_rss.png from the variants run
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RUNS = HERE / "results" / "soak_rss"
PNG = HERE / "results" / "soak_rss.png"
_FIELDS = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in _FIELDS.split()]


_libc = ctypes.CDLL("libc.so.6")
_libc.mallinfo2.restype = _MallInfo2
_libc.malloc_trim.argtypes = [ctypes.c_size_t]


def _sqlite_used() -> Any:
    import _sqlite3

    used = ctypes.CDLL(_sqlite3.__file__).sqlite3_memory_used  # resolves in libsqlite3
    used.restype = ctypes.c_int64
    return used


def hooks() -> None:
    """Install the variant's server-side hook, chosen by the environment the soak set."""
    cache = os.environ.get("SOAK_SQLITE_CACHE_KIB")
    if cache:
        from sqlalchemy import event
        from sqlalchemy.pool import Pool

        def small_cache(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute(f"PRAGMA cache_size=-{int(cache)}")  # negative: KiB, not pages
            cursor.close()

        event.listen(Pool, "connect", small_cache)  # every pool, so the service's too
    trim = float(os.environ.get("SOAK_TRIM_SECONDS") or 0)
    if trim > 0:

        def trimmer() -> None:
            while True:
                time.sleep(trim)
                _libc.malloc_trim(0)

        threading.Thread(target=trimmer, daemon=True).start()


_used = _sqlite_used()


def malloc_stats() -> dict[str, int]:
    """glibc's heap (every arena: bytes taken from the system, in use, held free, in
    mmapped blocks), SQLite's own memory and the process's thread count."""
    info = _libc.mallinfo2()
    return {
        "heap": info.arena,  # non-mmapped bytes the arenas took from the system
        "in_use": info.uordblks,
        "free": info.fordblks,
        "mmapped": info.hblkhd,
        "sqlite": int(_used()),
    }


def proc_memory(pid: int) -> dict[str, int]:
    """The process's resident memory, split: anonymous, file-backed, shared memory."""
    keys = {"VmRSS": "rss", "RssAnon": "anon", "RssFile": "file", "RssShmem": "shmem"}
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in keys:
            out[keys[key]] = int(value.split()[0]) * 1024
        elif key == "Threads":
            out["os_threads"] = int(value)
    return out


def mappings(pid: int, top: int = 12) -> list[dict[str, Any]]:
    """The largest resident mappings: size (kB), resident (kB) and what backs them."""
    maps: list[dict[str, Any]] = []
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if "-" in head[0] and ":" not in head[0]:  # a mapping's first line
            lo, hi = (int(x, 16) for x in head[0].split("-"))
            name = head[5] if len(head) > 5 else "[anon]"
            maps.append({"kb": (hi - lo) // 1024, "rss": 0, "name": name.split("/")[-1]})
        elif head[0] == "Rss:":
            maps[-1]["rss"] = int(head[1])
    return sorted(maps, key=lambda m: -m["rss"])[:top]


def save(name: str, result: dict[str, Any], args: Any, sha: str) -> None:
    RUNS.mkdir(parents=True, exist_ok=True)
    meta = {"minutes": args.minutes, "batch": args.batch, "rate": args.rate, "sha": sha}
    (RUNS / f"{name}.json").write_text(json.dumps({**result, **meta}))


def report() -> None:
    """The variants side by side: a figure and a markdown table on stdout."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = {p.stem: json.loads(p.read_text()) for p in sorted(RUNS.glob("*.json"))}
    mb = 1 / 2**20
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.5))
    rows = []
    for name, run in runs.items():
        s = run["series"]
        t = [p["t"] / 60 for p in s]
        (line,) = ax.plot(t, [p["anon"] * mb for p in s], label=f"{name}: RssAnon")
        bx.plot(t, [p["free"] * mb for p in s], color=line.get_color(), label=f"{name}: free")
        bx.plot(t, [p["sqlite"] * mb for p in s], color=line.get_color(), linestyle=":")
        a, z = s[0], s[-1]
        load = [p["load"] for p in s]

        def d(key: str, a: dict[str, Any] = a, z: dict[str, Any] = z) -> str:
            return f"{a[key] * mb:.0f} → {z[key] * mb:.0f}"

        m = next(p for p in s if p["t"] >= 60)  # the first minute holds a one-off step
        slope = (z["anon"] - m["anon"]) * mb / ((z["t"] - m["t"]) / 60)
        rows.append(
            f"| {name} | {d('rss')} | {d('anon')} | {slope:+.1f} | {d('file')} | {d('in_use')} | "
            f"{d('free')} | {d('sqlite')} | {d('traced')} | {z['os_threads']} | "
            f"{run['samples']:,} | {min(load):.1f}–{max(load):.1f} |"
        )
    ax.set(xlabel="minutes", ylabel="MB", title="anonymous resident memory (RssAnon)")
    bx.set(xlabel="minutes", ylabel="MB", title="malloc's free bytes (—), SQLite's (···)")
    for axis in (ax, bx):
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    bx.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(PNG, dpi=110)
    print(
        "| variant | RSS | RssAnon | RssAnon after 1 min, MB/min | RssFile | malloc in use | "
        "malloc free | SQLite | "
        "traced | threads | samples | load (1 min) |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    )
    print("\n".join(rows))


if __name__ == "__main__":
    sys.exit(report())
