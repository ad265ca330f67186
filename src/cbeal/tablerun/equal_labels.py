"""The baseline of a regression run: random sampling at equal labels.

For every seed and every method that spent ``L`` labels, the test RMSE of the same learner
trained on D0 and ``L`` stream rows drawn uniformly without replacement (one draw per
seed, the same for every method). Over the seeds: the equal-label RMSE difference of each
method (mean ± standard error, in %), the budget it spent, and its label ratio — the
labels after which its learning curve reaches random sampling's RMSE at the full budget
and stays there, over the budget (the median over the seeds; ∞ when it never does).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cbeal.core.regression import regression_scores
from cbeal.evaluation.regression import labels_to_reach
from cbeal.tablerun.measured import reference_values
from cbeal.tablerun.repeats import mean_se
from cbeal.tablerun.split import Split

__all__ = ["SPENT_ENOUGH", "EqualLabels", "equal_labels", "uniform_rmse"]

#: below this share of its budget, a method's comparison is flagged in the report
SPENT_ENOUGH = 0.8


def uniform_rmse(split: Split, learner: str, seed: int, counts: Sequence[int]) -> dict[int, float]:
    """Test RMSE of `learner` on D0 and the first ``L`` rows of one uniform draw of the
    stream (seeded by `seed`), for each ``L`` in `counts`."""
    Z0, y0 = split.features("initial")
    Zs, ys = split.features("stream")
    Zt, yt = split.features("test")
    order = np.random.default_rng([int(seed), 20260533]).permutation(ys.shape[0])
    out = {}
    for L in sorted(set(int(c) for c in counts)):
        idx = order[:L]
        Z, y = np.vstack([Z0, Zs[idx]]), np.r_[y0, ys[idx]]
        pred = reference_values(learner, seed, Z, y, Zt)
        out[L] = regression_scores(yt, pred, 1.0)["rmse"]
    return out


@dataclass(frozen=True)
class EqualLabels:
    """One method against random sampling at equal labels, over the seeds."""

    method: str
    labels: float  # mean labels spent
    spent: float  # mean share of the budget spent
    rmse: float  # mean test RMSE
    random_rmse: float  # mean test RMSE of random sampling with the same labels
    difference: float  # mean of 100 · (RMSE / random's − 1), in %
    se: float  # its standard error over the seeds (NaN for one seed)
    label_ratio: float  # median over the seeds; inf when never reached

    @property
    def underspent(self) -> bool:
        return self.spent < SPENT_ENOUGH

    def to_dict(self) -> dict[str, Any]:
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                for k, v in self.__dict__.items()}  # fmt: skip


def equal_labels(seeds: Sequence[Any], methods: Sequence[str], budget: int) -> list[EqualLabels]:
    """Each of `methods` against random sampling at equal labels, from the seeds' runs
    (each with ``labels``, ``scores``, ``curves`` and ``uniform``: L → RMSE)."""
    out = []
    for m in methods:
        runs = [s for s in seeds if m in s.labels and s.uniform]
        if not runs:
            continue
        diffs = [100.0 * (s.scores[m]["rmse"] / s.uniform[s.labels[m]] - 1.0) for s in runs]
        ratios = []
        for s in runs:
            c = s.curves.get(m)
            need = None if c is None else labels_to_reach(c.labels, c.rmse, s.uniform[budget])
            ratios.append(math.inf if need is None else need / budget)
        mean, se = mean_se(diffs)
        out.append(
            EqualLabels(
                method=m,
                labels=float(np.mean([s.labels[m] for s in runs])),
                spent=float(np.mean([s.labels[m] / budget for s in runs])),
                rmse=float(np.mean([s.scores[m]["rmse"] for s in runs])),
                random_rmse=float(np.mean([s.uniform[s.labels[m]] for s in runs])),
                difference=mean,
                se=se,
                label_ratio=float(np.median(ratios)),
            )
        )
    return out
