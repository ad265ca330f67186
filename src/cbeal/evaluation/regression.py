"""Scores a quality engineer reads for a regression model: RMSE, MAE, the share of parts
within the tolerance band, and the learning curve against the labels spent.

>>> import numpy as np
>>> regression_scores(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.5, 3.0]), 0.2)
{'rmse': 0.2887, 'mae': 0.1667, 'in_band': 0.6667}
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.core.regression import regression_scores

__all__ = ["labels_to_reach", "learning_curve", "regression_scores"]


def learning_curve(
    model_rmse: list[tuple[int, float]],
) -> tuple[np.ndarray, np.ndarray]:
    """``(labels, rmse)`` arrays from ``(labels spent, test RMSE)`` pairs, sorted by labels.

    >>> learning_curve([(10, 0.5), (0, 0.9), (5, 0.7)])
    (array([ 0,  5, 10]), array([0.9, 0.7, 0.5]))
    """
    pairs = sorted(model_rmse)
    return (
        np.array([p[0] for p in pairs], dtype=np.intp),
        np.array([p[1] for p in pairs], dtype=np.float64),
    )


def labels_to_reach(labels: Any, rmse: Any, target: float) -> int | None:
    """The fewest labels after which the curve's RMSE is at most `target` and stays there
    (None when it never gets there, or leaves again before the end).

    Staying matters: a curve that dips below the target by chance early and climbs back
    has not reached it.

    >>> labels_to_reach([0, 10, 20, 30], [1.0, 0.6, 0.8, 0.55], 0.6)
    30
    >>> labels_to_reach([0, 10, 20], [1.0, 0.9, 0.8], 0.5) is None
    True
    """
    lab = np.asarray(labels)
    ok = np.asarray(rmse, dtype=np.float64) <= target
    if not ok.size or not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    first = 0 if bad.size == 0 else int(bad[-1]) + 1
    return int(lab[first])
