"""What a ``cbeal`` call costs before it does anything (issue 29, stumble 9).

Every call used to cost about 1.25 s of CPU at start — ``--version`` and ``--help``
included — because the command line imported scikit-learn, pandas and scipy while it built
its parser. The goal: ``--version`` and ``--help`` under 0.3 s of CPU. Measured here: the
CPU (user + system, from the children's resource usage) of ``python -m cbeal ARGS`` for
this tree and, with ``--against REF``, for a git revision checked out beside it (e.g.
``--against 3eee1d7``, the tree before the change), interleaved, median of ``--rounds``.
Python's own start (``python -c pass``) is measured too. Results go to
``benchmarks/results/cli_startup.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "results" / "cli_startup.md"
CALLS = (("--version",), ("--help",), ("run", "--help"))


def cpu_of(command: list[str], src: Path | None) -> float:
    """CPU seconds (user + system) of one run of `command`, with `src` on PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": str(src)} if src else dict(os.environ)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def checkout(ref: str, where: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), ref],
        check=True,
        capture_output=True,
    )
    return where / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--against", default=None, help="a git revision to compare with")
    args = parser.parse_args()
    trees = {"this tree": ROOT / "src"}
    with tempfile.TemporaryDirectory() as tmp:
        if args.against:
            trees[args.against] = checkout(args.against, Path(tmp) / "before")
        try:
            times: dict[tuple[str, str], list[float]] = {}
            for _ in range(args.rounds):
                times.setdefault(("python -c pass", ""), []).append(
                    cpu_of([sys.executable, "-c", "pass"], None)
                )
                for name, src in trees.items():
                    for call in CALLS:
                        command = [sys.executable, "-m", "cbeal", *call]
                        times.setdefault((f"cbeal {' '.join(call)}", name), []).append(
                            cpu_of(command, src)
                        )
        finally:
            if args.against:
                subprocess.run(
                    [
                        "git",
                        "-C",
                        str(ROOT),
                        "worktree",
                        "remove",
                        "--force",
                        trees[args.against].parent,
                    ],
                    capture_output=True,
                )
    load = os.getloadavg()[0]
    sha = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    lines = [
        "# `cbeal` start-up: CPU before the command does anything",
        "",
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, git {sha}, Python "
        f"{platform.python_version()}, load {load:.1f}; CPU = user + system of the process, "
        f"median (min–max) of {args.rounds} interleaved rounds. Goal: `--version` and "
        "`--help` under 0.3 s.",
        "",
        "| call | tree | CPU s |",
        "|---|---|---:|",
    ]
    for (call, tree), values in times.items():
        lines.append(
            f"| `{call}` | {tree} | {statistics.median(values):.3f} "
            f"({min(values):.3f}–{max(values):.3f}) |"
        )
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
