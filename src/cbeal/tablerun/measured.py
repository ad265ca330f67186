"""``cbeal run`` on measured values: what a regression run (a label column of measured values
and a `tolerance`) does differently from a run on class labels.

The protocol is the same (order, test set, D0, stream, budget, methods, references); the
learner is a regressor with a predictive spread, every method must work on measured values
(checked before anything runs), the scores are RMSE, MAE and the share of test parts whose
prediction is within the tolerance, and the learning curve gives the test RMSE of the
learner trained on D0 and the first k labels a method asked for, against k.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cbeal.catalog import AGENTS
from cbeal.catalog import learner as make_learner
from cbeal.core import InvalidInputError, TaskError
from cbeal.core.regression import regression_scores
from cbeal.learners.regression import RegressionAdapter
from cbeal.models.regression import regression_task
from cbeal.tablerun.split import Split

__all__ = [
    "CURVE_POINTS",
    "Curve",
    "TargetStats",
    "check_methods",
    "learning_curve",
    "reference_values",
    "regression_agents",
    "target_stats",
]

CURVE_POINTS = 15  # points of a learning curve (label counts), at most


def regression_agents() -> list[str]:
    """The catalog's agents that work on measured values.

    >>> {"QBCR", "EMCM", "RS"} <= set(regression_agents())
    True
    """
    return [n for n, e in AGENTS.items() if "regression" in getattr(e.cls, "tasks", ())]


def check_methods(build: Callable[[str], Any], methods: list[str], measured: bool) -> None:
    """Refuse, before anything runs, a method that does not work on this kind of label.

    `build(method)` makes an unfitted model of `method`.
    """
    for method in methods:
        try:
            regression_task(build(method))
        except TaskError:
            if measured:
                raise InvalidInputError(
                    f"{method} needs class labels (it reads a classifier's class "
                    "probabilities); with a `tolerance` use the `preset` CBEAL-R, `agents` "
                    f"among {', '.join(regression_agents())}, and `compare` methods among "
                    "them (e.g. RS)"
                ) from None
            raise InvalidInputError(
                f"{method} is for measured values (it scores a regressor's spread against a "
                "tolerance); give the `tolerance` of the measurement to predict measured "
                "values, or choose a `preset` for class labels"
            ) from None


def reference_values(learner: str, seed: int, Z: np.ndarray, y: np.ndarray, Z_test: Any) -> Any:
    """Test predictions of the regressor `learner` trained once on (`Z`, `y`)."""
    fitted = RegressionAdapter(make_learner(learner), seed).fit(Z, y, warn=False)
    return fitted.predict(Z_test)


@dataclass(frozen=True)
class Curve:
    """A learning curve: test RMSE and share within tolerance after ``labels[i]`` labels."""

    labels: tuple[int, ...]
    rmse: tuple[float, ...]
    in_band: tuple[float, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"labels": list(self.labels), "rmse": list(self.rmse), "in_band": list(self.in_band)}


def learning_curve(
    pool: tuple[np.ndarray, np.ndarray],
    n_initial: int,
    *,
    learner: str,
    seed: int,
    test: tuple[np.ndarray, np.ndarray],
    tolerance: float,
) -> Curve:
    """The test scores of `learner` trained on D0 and the first k labels of `pool` (the
    labelled pool of a stream model, preprocessed: D0 then the labels in the order they
    came), for up to :data:`CURVE_POINTS` values of k from 0 to all of them."""
    X, y = pool
    spent = y.shape[0] - n_initial
    ks = sorted(set(np.linspace(0, spent, min(CURVE_POINTS, spent + 1)).round().astype(int)))
    rmse, band = [], []
    for k in ks:
        pred = reference_values(learner, seed, X[: n_initial + k], y[: n_initial + k], test[0])
        s = regression_scores(test[1], pred, tolerance)
        rmse.append(s["rmse"])
        band.append(s["in_band"])
    return Curve(tuple(int(k) for k in ks), tuple(rmse), tuple(band))


@dataclass(frozen=True)
class TargetStats:
    """The measured values of the training and test rows, and the tolerance against them."""

    tolerance: float
    train: dict[str, float]  # n, mean, std, min, max
    test: dict[str, float]

    @property
    def tolerance_share(self) -> float:
        """The tolerance as a share of the training values' standard deviation."""
        std = self.train["std"]
        return self.tolerance / std if std > 0 else float("inf")

    def to_dict(self) -> dict[str, Any]:
        return {"tolerance": self.tolerance, "train": self.train, "test": self.test}


def _describe(y: np.ndarray) -> dict[str, float]:
    if not y.size:
        return {"n": 0}
    return {
        "n": int(y.size),
        "mean": float(np.mean(y)),
        "std": float(np.std(y, ddof=1)) if y.size > 1 else 0.0,
        "min": float(np.min(y)),
        "max": float(np.max(y)),
    }


def target_stats(split: Split, tolerance: float) -> TargetStats:
    """Summary of the measured values, training and test rows apart.

    >>> import numpy as np
    >>> from types import SimpleNamespace as NS
    >>> sp = NS(part=lambda n: (None, np.array([1.0, 3.0]) if n == "train" else np.array([])))
    >>> target_stats(sp, 0.5).train["mean"], target_stats(sp, 0.5).tolerance_share
    (2.0, 0.353...)
    """
    return TargetStats(
        tolerance=float(tolerance),
        train=_describe(np.asarray(split.part("train")[1], dtype=np.float64)),
        test=_describe(np.asarray(split.part("test")[1], dtype=np.float64)),
    )
