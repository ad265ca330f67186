"""The regression benchmark of studies/REGRESSION.md (issue 20).

    python studies/scripts/regression_bench.py run dev [JOBS]   # development part, resumable
    python studies/scripts/regression_bench.py run eval [JOBS]  # evaluation part, after the choice
    python studies/scripts/regression_bench.py report           # tables and figures

Results go to studies/regression/ (one JSON line per run in runs.jsonl). Run it niced,
with one BLAS thread per process.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cbeal_studies.regression.report import write_report
from cbeal_studies.regression.runner import EVAL_STRATEGIES, run_part
from cbeal_studies.regression.workloads import DEV, EVAL

OUT = Path(__file__).resolve().parent.parent / "regression"  # studies/regression


def main(argv: list[str]) -> None:
    if argv[:1] == ["run"]:
        part = argv[1]
        jobs = int(argv[2]) if len(argv) > 2 else 1
        if part == "dev":
            run_part(DEV, OUT, replications=3, jobs=jobs)
        else:
            run_part(EVAL, OUT, replications=3, jobs=jobs, strategies=EVAL_STRATEGIES)
    elif argv[:1] == ["report"]:
        print(write_report(OUT))
    else:
        print(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
