"""Speed of PlattSVC against scikit-learn's two ways to get SVM probabilities, in one run.

Run: ``python benchmarks/bench_platt_svm.py`` (``PYTHONPATH=src`` without an install). Writes
``benchmarks/results/platt_svm.md``.

For binary pools of 20, 50, 100 and 170 samples x 15 features (``make_classification``), one
timing is a fit on the pool followed by ``predict_proba`` on 100 held-out rows, which is what
an active learner does after every acquired label. Methods:

* ``PlattSVC(random_state=0)`` (cbeal);
* ``SVC(probability=True, random_state=0)`` (deprecated in scikit-learn 1.9, removed in 1.11);
* ``CalibratedClassifierCV(SVC(), ensemble=False, method="sigmoid")`` (the suggested
  replacement; 5-fold like the other two).

The methods are timed in interleaved rounds (so machine load drifts hit all of them alike),
after warm-up; the table gives the median and the best of the rounds in milliseconds and the
ratio of medians against ``SVC(probability=True)``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import warnings
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import scipy
import sklearn
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.svm import SVC

from cbeal.learners.platt_svm import PlattSVC

OUT = Path(__file__).parent / "results" / "platt_svm.md"
SIZES = (20, 50, 100, 170)
N_FEATURES = 15
N_QUERY = 100

METHODS: dict[str, Callable[[], object]] = {
    "PlattSVC": lambda: PlattSVC(random_state=0),
    "SVC(probability=True)": lambda: SVC(probability=True, random_state=0),
    "CalibratedClassifierCV": lambda: CalibratedClassifierCV(
        SVC(), ensemble=False, method="sigmoid"
    ),
}
REFERENCE = "SVC(probability=True)"


def time_sizes(rounds: int, warmup: int) -> dict[int, dict[str, list[float]]]:
    """Seconds per fit + predict_proba, per pool size and method, one entry per round."""
    results: dict[int, dict[str, list[float]]] = {}
    for n in SIZES:
        X, y = make_classification(
            n_samples=n + N_QUERY, n_features=N_FEATURES, n_informative=5, random_state=n
        )
        pool_X, pool_y, query = X[:n], y[:n], X[n:]
        times: dict[str, list[float]] = {name: [] for name in METHODS}
        for r in range(warmup + rounds):
            for name, make in METHODS.items():
                t0 = time.perf_counter()
                make().fit(pool_X, pool_y).predict_proba(query)  # type: ignore[attr-defined]
                elapsed = time.perf_counter() - t0
                if r >= warmup:
                    times[name].append(elapsed)
        results[n] = times
    return results


def markdown(results: dict[int, dict[str, list[float]]], rounds: int) -> str:
    header = "| pool size | " + " | ".join(f"{m} ms (best)" for m in METHODS)
    header += " | " + " | ".join(f"{m} / SVC(prob)" for m in METHODS if m != REFERENCE) + " |"
    lines = [header, "|" + "---|" * (1 + 2 * len(METHODS) - 1)]
    for n, times in results.items():
        med = {m: statistics.median(t) * 1e3 for m, t in times.items()}
        best = {m: min(t) * 1e3 for m, t in times.items()}
        cells = [f"{med[m]:.2f} ({best[m]:.2f})" for m in METHODS]
        cells += [f"{med[m] / med[REFERENCE]:.2f}x" for m in METHODS if m != REFERENCE]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    env = (
        f"Python {platform.python_version()}, scikit-learn {sklearn.__version__}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
    )
    return "\n".join(
        [
            "# PlattSVC speed: fit + predict_proba",
            "",
            f"Binary `make_classification` pools x {N_FEATURES} features; one timing = fit on "
            f"the pool + `predict_proba` on {N_QUERY} held-out rows. Median of {rounds} "
            "interleaved rounds (best in brackets), milliseconds; ratios are of medians.",
            "",
            *lines,
            "",
            env,
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # SVC(probability=True) is deprecated
        results = time_sizes(args.rounds, args.warmup)
    text = markdown(results, args.rounds)
    print(text)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    print(f"written to {OUT}")


if __name__ == "__main__":
    main()
