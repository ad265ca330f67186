"""Check that result CSVs of the same grid agree row for row, timing and provenance aside.

    python studies/scripts/compare_results.py loky/results_v1_svm.csv dask/results_v1_svm.csv ...

Exits 1 and names the first difference when they do not (used by CI to compare backends).
"""

from __future__ import annotations

import sys

import pandas as pd

VOLATILE = ["seconds", "cbeal_version", "git_sha", "python", "finished"]
KEYS = ["generator", "learner", "scenario", "replication", "method"]


def load(path: str) -> pd.DataFrame:
    frame = pd.read_csv(path).drop(columns=VOLATILE, errors="ignore")
    return frame.sort_values(KEYS).reset_index(drop=True)


def main(paths: list[str]) -> int:
    base = load(paths[0])
    for path in paths[1:]:
        try:
            pd.testing.assert_frame_equal(base, load(path))
        except AssertionError as exc:
            print(f"{path} differs from {paths[0]}:\n{exc}", file=sys.stderr)
            return 1
        print(f"{path}: {len(base)} rows identical to {paths[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
