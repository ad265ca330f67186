"""Run named strategies over one profile of the label-efficiency suite (resumable).

    python studies/scripts/suite_run.py fusion5-dev2 "D:5F,D:4U" --out /tmp/r5 --jobs 2

Rows go to ``OUT/runs/…`` (one file per workload × learner × replication, written after
every run) and all of the profile's rows there are collected into
``OUT/results_<profile>.csv``. Used for the study rounds
of studies/BENCHMARK.md, whose candidates are named when a round's rule says which run.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

# small refits: one BLAS/OpenMP thread per worker (two threads on 2 busy cores are far slower)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile")
    parser.add_argument("names", help="strategies, comma-separated")
    parser.add_argument("--out", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    from cbeal_studies.label_efficiency.profiles import PROFILES
    from cbeal_studies.label_efficiency.runner import collect, run_suite

    names = [n for n in args.names.split(",") if n]
    profile = PROFILES[args.profile]
    run_suite(profile, names, Path(args.out), n_jobs=args.jobs)
    # every strategy's rows of the profile, not only this call's
    print(collect(Path(args.out), profile))


if __name__ == "__main__":
    main()
