"""Round 2 of the regression benchmark (issue 33, studies/REGRESSION.md).

    python studies/scripts/regression_round2.py dev [JOBS]     # development part, resumable
    python studies/scripts/regression_round2.py fresh [JOBS]   # fresh part (after the choice)
    python studies/scripts/regression_round2.py report         # tables and figures

Results in studies/regression/round2/ (one JSON line per run). Run it niced, with one
BLAS thread per process.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from cbeal_studies.regression.fresh import FRESH, load_fresh
from cbeal_studies.regression.round2 import STRATEGIES, run_grid
from cbeal_studies.regression.workloads import DEV2, load_workload

OUT = Path(__file__).resolve().parent.parent / "regression" / "round2"  # studies/regression
#: the fresh part's strategies: the winner (as registered) and the controls named in
#: studies/REGRESSION.md
FRESH_STRATEGIES = ("CBEAL-R", "CBEAL-R (round 1)", "RS agent", "LD2")


def main(argv: list[str]) -> None:
    warnings.filterwarnings("ignore")
    jobs = int(argv[1]) if len(argv) > 1 else 1
    if argv[:1] == ["dev"]:
        tasks = [
            (s, w, lrn, r, 0.1)
            for r in range(2)  # bayes-ridge only, cut for time (studies/REGRESSION.md)
            for w in DEV2
            for lrn in ("bayes-ridge",)
            for s in ("=", *STRATEGIES)
        ]
        run_grid(tasks, load_workload, OUT / "dev.jsonl", jobs)
    elif argv[:1] == ["fresh"]:
        tasks = [
            (s, w, "bayes-ridge", r, b)
            for r in range(5)
            for w in FRESH
            for b in (0.1, 0.2)
            for s in ("=", *FRESH_STRATEGIES)
        ]
        run_grid(tasks, load_fresh, OUT / "fresh.jsonl", jobs)
    elif argv[:1] == ["report"]:
        from cbeal_studies.regression.round2_report import write_report

        print(write_report(OUT))
    else:
        print(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
