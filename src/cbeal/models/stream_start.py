"""What ``fit`` checks and builds when a stream model starts a stream (spec §1).

The parameters that shape the stream are checked before anything changes; the first
learner is trained on ``D0``, its labels turned into class indices (or, for a regressor,
measured targets) the labelled pool holds. Each function is handed what it needs.

Examples
--------
>>> import numpy as np
>>> from cbeal.models.stream_start import fitted_classes
>>> fitted_classes(np.array(["ok", "bad", "ok"]), None).tolist()
['bad', 'ok']
>>> fitted_classes(np.array(["ok"]), ["ok", "bad", "scrap"]).tolist()
['bad', 'ok', 'scrap']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from cbeal.core import ParameterError
from cbeal.core.validation import check_rewards, label_index
from cbeal.learners.adapter import LearnerAdapter
from cbeal.models.regression import RegressionTask

__all__ = ["check_params", "first_learner", "fitted_classes", "numbers", "waiting_params"]

_LIVE = frozenset({"refit_every", "reward", "penalty"})  # parameters read at every step
_PREFIX = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,99}$")


def check_params(*, refit_every: Any, reward: Any, penalty: Any, id_prefix: Any) -> None:
    """Refuse, with a :class:`~cbeal.ParameterError`, parameters no stream can start with."""
    every = refit_every
    if every is not None and (isinstance(every, bool) or not isinstance(every, int) or every < 1):
        raise ParameterError(
            f"refit_every must be a whole number of labels ≥ 1 (1: after every label) or "
            f"None (only when refit() is called), got {every!r}"
        )
    check_rewards(reward, penalty)
    prefix = id_prefix
    if prefix is not None and not (isinstance(prefix, str) and _PREFIX.match(prefix)):
        raise ParameterError(
            f"id_prefix must be 1-100 letters, digits, '.', '_' or '-', got {prefix!r}"
        )


def fitted_classes(y: np.ndarray, classes: Sequence[Any] | None) -> np.ndarray:
    """The sorted classes of a classifier: the ``classes`` parameter, else those of `y`."""
    if classes is None:
        return np.unique(y)
    given = np.asarray(classes)
    if given.ndim != 1 or np.unique(given).size != given.size or given.size < 2:
        raise ParameterError(f"classes must list at least two distinct labels, got {classes!r}")
    return np.unique(given)


def first_learner(
    estimator: Any,
    task: RegressionTask | None,
    y: np.ndarray,
    classes: Sequence[Any] | None,
    rng: np.random.Generator,
) -> tuple[np.ndarray | None, np.ndarray, LearnerAdapter]:
    """``(classes_, targets, learner)`` of ``D0``'s labels `y`: a classifier's classes
    (None for a regressor), the labels as the pool holds them and the unfitted learner,
    seeded from `rng`."""
    if task is not None:  # a regressor: the labels are measured values
        y_index = task.targets(y)
        return None, y_index, task.learner(estimator, int(rng.integers(2**31 - 1)))
    fitted = fitted_classes(y, classes)
    y_index = np.array([label_index(fitted, v) for v in y], dtype=np.intp)
    seed = int(rng.integers(2**31 - 1))
    return fitted, y_index, LearnerAdapter(estimator, fitted, seed)


def numbers(y0: Any) -> Any:
    """`y0` as floats when it holds numbers (to suggest a tolerance on their scale), else None."""
    try:
        return np.asarray(y0, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        return None


def waiting_params(params: dict[str, Any], owner: str) -> str | None:
    """The warning for the `params` set on a fitted model (of class `owner`) that wait for
    the next fit (all but the budget and those read at every step), or None."""
    later = sorted({key.partition("__")[0] for key in params} - _LIVE)
    if not later:
        return None
    verb = "takes" if len(later) == 1 else "take"
    return (
        f"{', '.join(later)} of this fitted {owner} only {verb} effect when fit(X0, y0) "
        "starts a new stream; until then it keeps deciding as fitted (a new budget applies "
        "at once: renew_budget)"
    )
