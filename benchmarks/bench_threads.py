"""Refits pinned to one BLAS/OpenMP thread vs the libraries' default, on a loaded machine.

Run: ``python benchmarks/bench_threads.py`` (``--quick`` for a smoke run). Writes
``benchmarks/results/threads.md``.

The end-to-end benchmark of ``bench_stream.py`` (one n = 1500 stream, CBEAL-6, a refit
after every acquisition, budget 148) runs in a fresh process per repeat, once as cbeal runs
by default (every fit pinned to one thread) and once with ``CBEAL_FIT_THREADS=all`` (the
libraries' default: one thread per core), the two alternating. Neither process gets
``OMP_NUM_THREADS`` or ``OPENBLAS_NUM_THREADS``. While they run, ``--burners`` processes
spin on the CPU at the lowest priority (by default one per core), as other jobs on a line PC
or a CI runner would;
the machine's load average is shown beside each figure. CPU time is that of the process and
its threads (a thread pool that spins waiting for work burns it).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

OUT = Path(__file__).parent / "results" / "threads.md"

CHILD = """
import json, resource, time, warnings
import numpy as np
from cbeal import CbeAL, kernels, make_stream, simulate
from cbeal.catalog import learner
from threadpoolctl import threadpool_info
warnings.simplefilter("ignore")
kernels.enable()  # import numba (if installed) before the timing
s = make_stream(n=1500, pc=0.1, random_state=0)
pools = sorted({{p["num_threads"] for p in threadpool_info()}})
t0, c0 = time.perf_counter(), time.process_time()
model = CbeAL.from_preset("CBEAL-6", estimator=learner("{learner}"), budget=s.budget,
                          random_state=0).fit(s.X0, s.y0)
trace = simulate(model, s.X_stream, s.y_stream)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
acc = float(np.mean(model.predict(s.X_test) == s.y_test))
print(json.dumps({{"wall": wall, "cpu": cpu, "labels": int(trace.n_acquired), "acc": acc,
                  "pools": pools}}))
"""


def _burn(stop: float) -> None:
    os.nice(19)  # load the cores, yet yield them to everyone else's work
    x = 0
    while time.time() < stop:
        x += 1


def run_child(learner: str, pinned: bool) -> dict[str, float]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    }
    if pinned:
        env.pop("CBEAL_FIT_THREADS", None)
    else:
        env["CBEAL_FIT_THREADS"] = "all"
    load = os.getloadavg()[0]
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(learner=learner)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["load"] = (load + os.getloadavg()[0]) / 2
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--learners", default="logreg,svm")
    parser.add_argument("--quick", action="store_true", help="one repeat, logreg only")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    learners = ["logreg"] if args.quick else args.learners.split(",")
    stop = time.time() + 3600
    burners = [mp.Process(target=_burn, args=(stop,), daemon=True) for _ in range(args.burners)]
    for b in burners:
        b.start()
    time.sleep(5)  # let the load settle
    rows: dict[tuple[str, bool], list[dict[str, float]]] = {}
    try:
        for _ in range(repeats):
            for learner in learners:
                for pinned in (True, False):
                    rows.setdefault((learner, pinned), []).append(run_child(learner, pinned))
    finally:
        for b in burners:
            b.terminate()

    import numpy as np
    import sklearn
    import threadpoolctl

    import cbeal
    from cbeal.reports.provenance import git_sha

    lines = [
        "# Threads: refits pinned to one thread vs the libraries' default, machine loaded",
        "",
        f"cbeal {cbeal.__version__} (git {git_sha()}), numpy {np.__version__}, scikit-learn "
        f"{sklearn.__version__}, threadpoolctl {threadpoolctl.__version__}, Python "
        f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores; "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC.",
        f"One n = 1500 stream end to end (CBEAL-6, refit after every acquisition, budget 148), "
        f"a fresh process per run, {args.burners} CPU-burning processes beside it; median of "
        f"{repeats} alternating runs. Load average (1 min) beside each figure.",
        "",
        "| learner | fits | thread pools | wall | CPU | labels | test accuracy | load |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for learner in learners:
        for pinned in (True, False):
            rs = rows[(learner, pinned)]
            pools = rs[0]["pools"]
            lines.append(
                f"| {learner} | {'pinned (default)' if pinned else 'CBEAL_FIT_THREADS=all'} | "
                f"{'/'.join(str(p) for p in pools)} outside fits | "
                f"{statistics.median(r['wall'] for r in rs):.2f} s | "
                f"{statistics.median(r['cpu'] for r in rs):.2f} s | {int(rs[0]['labels'])} | "
                f"{rs[0]['acc']:.3f} | {statistics.mean(r['load'] for r in rs):.1f} |"
            )
        ratio = [
            statistics.median(r[k] for r in rows[(learner, False)])
            / statistics.median(r[k] for r in rows[(learner, True)])
            for k in ("wall", "cpu")
        ]
        lines.append(f"| {learner} | ratio | | {ratio[0]:.1f}× | {ratio[1]:.1f}× | | | |")
    lines += [
        "",
        "Same labels and accuracy either way: the threads change the speed, not the fits. "
        "`svm` is `PlattSVC`, whose libsvm fit is single-threaded: nothing to oversubscribe. "
        "Set `CBEAL_FIT_THREADS` (a number, or `all`) to give large refits more threads.",
    ]
    text = "\n".join(lines) + "\n"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
