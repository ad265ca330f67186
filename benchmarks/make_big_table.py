"""Write a large synthetic line file for timing ``cbeal run`` (not committed: it is big).

    python benchmarks/make_big_table.py /tmp/line-1m.csv --rows 1000000

One row per part, one second apart: a part id, a timestamp, 10 sensor readings (two of
them drifting slowly) and a pass/fail label; about 5 % of the parts fail, more often when
sensors 0–2 run high. Seeded: the same arguments give the same file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def make_table(rows: int, seed: int = 0) -> object:
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, 10))
    X[:, 8] += np.linspace(0.0, 2.0, rows)  # slow drifts, as on a real line
    X[:, 9] += np.sin(np.linspace(0.0, 20.0, rows))
    score = 1.2 * X[:, 0] + 0.8 * X[:, 1] - 0.6 * X[:, 2] + 0.3 * rng.normal(size=rows)
    fail = score > np.quantile(score, 0.95)
    frame = pd.DataFrame(X.round(4), columns=[f"sensor{j}" for j in range(10)])
    frame.insert(0, "part_id", [f"P{i:07d}" for i in range(rows)])
    start = np.datetime64("2025-01-01T00:00:00")
    frame.insert(1, "timestamp", (start + np.arange(rows).astype("timedelta64[s]")).astype(str))
    frame["result"] = np.where(fail, "fail", "pass")
    return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="CSV file to write")
    parser.add_argument("--rows", type=int, default=1_000_000, help="number of parts")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    args = parser.parse_args()
    make_table(args.rows, args.seed).to_csv(args.path, index=False)  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
