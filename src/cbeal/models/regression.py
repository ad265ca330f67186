"""What a stream model does differently when its learner is a regressor.

The model's protocol is the same (decide, spend, deliver labels by decision); the
differences are gathered here: the labels are measured values, the learner gives a
prediction with a spread, the context the agents see is a
:class:`~cbeal.core.regression.RegressionContext`, the reward compares the error with
the tolerance, and options that only mean something for a classifier are refused with a
:class:`~cbeal.core.TaskError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.core.agent import Agent
from cbeal.core.exceptions import InvalidInputError, ParameterError, TaskError
from cbeal.core.regression import (
    BAND_CLASSES,
    REWARD_RULES,
    RegressionContext,
    check_tolerance,
    regression_reward,
    supports,
)
from cbeal.learners.regression import RegressionAdapter, is_regression

__all__ = ["RegressionTask", "check_agents", "committee_of", "regression_task"]


def regression_task(model: Any, y0: Any = None) -> RegressionTask | None:
    """The regression side of `model`, or None when its learner is a classifier (`y0`,
    the initial measured values, lets a missing tolerance's message suggest one).

    Checks the parameters that belong to one kind of learner: `tolerance` and
    `regression_reward` with a classifier, `classes` with a regressor.
    """
    tolerance = getattr(model, "tolerance", None)
    rule = getattr(model, "regression_reward", "band")
    if not is_regression(model.estimator):
        check_agents(model, "classification")
        if tolerance is not None:
            raise TaskError(
                "tolerance is the band of a measured value and needs a regressor as estimator "
                f"(e.g. BayesianRidge()); {type(model.estimator).__name__} is a classifier: "
                "leave tolerance unset"
            )
        return None
    if getattr(model, "classes", None) is not None:
        raise TaskError(
            "classes lists the labels of a classifier; this model's estimator is a regressor, "
            "which predicts numbers: leave classes unset"
        )
    if rule not in REWARD_RULES:
        raise ParameterError(f"regression_reward must be one of {REWARD_RULES}, got {rule!r}")
    check_agents(model, "regression")
    return RegressionTask(check_tolerance(tolerance, y0), rule)


def check_agents(model: Any, task: str) -> None:
    """Refuse agents (among `model`'s parameters) that do not work on a `task` stream."""
    bad: list[str] = []
    stack: list[tuple[str | None, Any]] = [(None, v) for v in model.get_params(deep=False).values()]
    while stack:
        name, value = stack.pop()
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
            stack.append((value[0], value[1]))
        elif isinstance(value, (list, tuple)):
            stack.extend((None, v) for v in value)
        elif isinstance(value, Agent) and not supports(value, task):
            bad.append(name or type(value).__name__)
    if not bad:
        return
    if task == "regression":
        raise TaskError(
            f"agent(s) {', '.join(sorted(bad))} need a classifier's class probabilities; with "
            "a regressor use ReinforcedSpreadAgent (RALR), the committee agents QBCR and "
            "EMCM, or the exploration agents LD and SPF"
        )
    raise TaskError(
        f"agent(s) {', '.join(sorted(bad))} score a regressor's predictive spread; give a "
        "regressor (e.g. BayesianRidge) and a tolerance, or use the classifier's agents "
        "(RAL, ENT, …)"
    )


class RegressionTask:
    """The tolerance band and reward rule of a regression stream (see the module)."""

    classes = BAND_CLASSES  # what a regression decision's proba is about

    def __init__(self, tolerance: float, rule: str) -> None:
        self.tolerance = tolerance
        self.rule = rule

    def learner(self, estimator: Any, seed: int) -> RegressionAdapter:
        return RegressionAdapter(estimator, seed)

    def targets(self, y: np.ndarray, what: str = "y0") -> np.ndarray:
        """The measured values as finite floats, or an error that says what to do."""
        try:
            values = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"{what} must hold measured values (numbers) for a regressor; got "
                f"{np.asarray(y).dtype} values. A classifier takes class labels."
            ) from None
        if not np.isfinite(values).all():
            raise InvalidInputError(f"{what} contains NaN or infinite values; drop those rows")
        return values

    def target(self, y: Any) -> float:
        """One measured value (a label delivered later)."""
        if isinstance(y, (bool, np.bool_)):
            raise InvalidInputError(f"a regressor's label is a measured value, got {y!r}")
        return float(self.targets(np.asarray([y]), what="the label")[0])

    def context(self, z: np.ndarray, dist: Any) -> RegressionContext:
        mean, std = dist
        return RegressionContext(z, float(mean), float(std), self.tolerance)

    def reward(self, y: float, y_pred: float, reward: float, penalty: float) -> float:
        return regression_reward(y, y_pred, self.tolerance, self.rule, reward, penalty)


def committee_of(pool: list[tuple[str, Agent]], estimator: Any) -> list[tuple[str, Agent]]:
    """`pool` with every committee agent that has no estimator of its own refitting
    `estimator` (a regression preset's committees perturb the model's own learner)."""
    if estimator is None:
        return pool
    for _, agent in pool:
        params = agent.get_params(deep=False)
        if "estimator" in params and params["estimator"] is None:
            agent.set_params(estimator=estimator)
    return pool
