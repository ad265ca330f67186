"""Regression in the decision core: the context of a numeric prediction, its reward, and
the regression analogue of RAL (numpy only).

A regression learner predicts a mean ``ŷ`` and a spread ``σ`` (its predictive standard
deviation). With the user's tolerance ``tol`` (in the target's unit) the model's
*certainty* is the probability that the measured value falls inside the band:
``P(|y − ŷ| ≤ tol) = erf(tol / (σ √2))`` under a normal predictive distribution. It plays
the part a classifier's largest class probability plays: the reward says whether the
model was wrong (``|y − ŷ| > tol``), the certainty predicts it.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError, TaskError
from cbeal.core.reinforced import ReinforcedAgent

__all__ = [
    "BAND_CLASSES",
    "REWARD_RULES",
    "RegressionContext",
    "ReinforcedSpreadAgent",
    "check_tolerance",
    "default_tolerance",
    "in_band_probability",
    "regression_reward",
    "regression_scores",
    "supports",
]

#: the two outcomes a regression decision's ``proba`` is about, in its order
BAND_CLASSES = ("within tolerance", "outside tolerance")
#: the regression rewards: ``"band"`` (default) and ``"normalized"`` (see :func:`regression_reward`)
REWARD_RULES = ("band", "normalized")


def in_band_probability(mean: float, std: float, tol: float) -> float:
    """``P(|y − ŷ| ≤ tol)`` for ``y ~ N(ŷ, std²)``: ``erf(tol / (std √2))`` (1 when std = 0).

    >>> round(in_band_probability(0.0, 1.0, 1.96), 3), in_band_probability(5.0, 0.0, 0.1)
    (0.95, 1.0)
    """
    if std <= 0.0:
        return 1.0
    return math.erf(tol / (std * math.sqrt(2.0)))


#: the default tolerance is this share of the standard deviation of D0's measured values
TOLERANCE_SHARE = 0.25


def default_tolerance(y0: Any) -> float:
    """The tolerance a user need not guess: a quarter of the (sample) standard deviation
    of the measured values known at the start (``D0``), in their unit; NaN when they do not
    vary (fewer than two values, or all equal).

    >>> default_tolerance([10.0, 12.0, 14.0])
    0.5
    """
    y = np.asarray(y0, dtype=np.float64).ravel()
    sd = float(np.std(y, ddof=1)) if y.size > 1 else 0.0
    return TOLERANCE_SHARE * sd if math.isfinite(sd) and sd > 0.0 else math.nan


def _example(y0: Any) -> str:
    """A tolerance to suggest, on the scale of `y0` when it is known."""
    tol = math.nan if y0 is None else default_tolerance(y0)
    if math.isnan(tol):
        return "tolerance=… (in the target's unit)"
    return (
        f"e.g. tolerance={tol:.3g} (in the target's unit: a quarter of the spread of the "
        "initial measured values)"
    )


def check_tolerance(tolerance: Any, y0: Any = None) -> float:
    """The tolerance as a float, or a :class:`~cbeal.core.ParameterError` saying what to
    give — a value on the scale of `y0` (the initial measured values) when they are known.

    >>> try:
    ...     check_tolerance(None, [10.0, 12.0, 14.0])
    ... except ParameterError as exc:
    ...     print(str(exc)[:64])
    a regressor needs the tolerance of the measured quality, e.g. to
    >>> "tolerance=0.5 (in the target's unit" in _example([10.0, 12.0, 14.0])
    True
    """
    if tolerance is None:
        raise ParameterError(
            f"a regressor needs the tolerance of the measured quality, {_example(y0)}; a part "
            "whose prediction is off by more is one the model got wrong"
        )
    try:
        tol = float(tolerance)
    except (TypeError, ValueError):
        raise ParameterError(f"tolerance must be a number > 0, got {tolerance!r}") from None
    if isinstance(tolerance, bool) or not (math.isfinite(tol) and tol > 0.0):
        raise ParameterError(
            f"tolerance must be a finite number > 0 in the target's unit, got {tolerance!r}; "
            f"{_example(y0)}"
        )
    return tol


def regression_reward(
    y: float, y_pred: float, tol: float, rule: str, reward: float, penalty: float
) -> float:
    """The reward of a labelled regression part.

    ``"band"``: ``ρ+`` when the prediction missed the band (``|y − ŷ| > tol``, the model
    was wrong), else ``ρ−``. ``"normalized"``: the normalized error ``e = |y − ŷ| / tol``
    on the same scale, piecewise linear: ``ρ− · (1 − e)`` inside the band (``ρ−`` for an
    exact prediction, 0 at its edge) and ``ρ+ · min(e − 1, 1)`` outside (``ρ+`` from twice
    the tolerance on). Its sign agrees with ``"band"``; it grades how wrong the model was
    and stays within ``[ρ−, ρ+]``, the range the bandit and RAL's threshold update assume.

    >>> regression_reward(1.3, 1.0, 0.2, "band", 1.0, -0.5)
    1.0
    >>> regression_reward(1.3, 1.0, 0.2, "normalized", 1.0, -0.5)   # e = 1.5
    0.5
    >>> regression_reward(1.05, 1.0, 0.2, "normalized", 1.0, -0.5)  # e = 0.25
    -0.375
    """
    e = abs(float(y) - float(y_pred)) / tol
    if rule == "band":
        return reward if e > 1.0 else penalty
    if rule == "normalized":
        return reward * min(e - 1.0, 1.0) if e > 1.0 else penalty * (1.0 - e)
    raise ParameterError(f"regression_reward must be one of {REWARD_RULES}, got {rule!r}")


def regression_scores(y_true: Any, y_pred: Any, tolerance: float) -> dict[str, float]:
    """RMSE, MAE and the share of predictions within ``± tolerance`` (rounded to 4 places)."""
    err = np.asarray(y_pred, dtype=np.float64) - np.asarray(y_true, dtype=np.float64)
    if err.size == 0:
        return {"rmse": float("nan"), "mae": float("nan"), "in_band": float("nan")}
    return {
        "rmse": round(float(np.sqrt(np.mean(err**2))), 4),
        "mae": round(float(np.mean(np.abs(err))), 4),
        "in_band": round(float(np.mean(np.abs(err) <= tolerance)), 4),
    }


class RegressionContext(Context):
    """What an agent sees of a sample in a regression stream.

    ``mean`` and ``std`` are the learner's prediction and predictive spread, ``tolerance``
    the band's half-width. ``proba`` is ``[P(in band), P(outside)]`` (the order of
    :data:`BAND_CLASSES`) and ``certainty`` is ``P(in band)``, so that a classifier's idea
    of certainty carries over: low certainty, a label worth asking for.

    >>> ctx = RegressionContext(np.zeros(2), 10.0, 0.05, 0.1)
    >>> ctx
    RegressionContext(mean=10, std=0.05, certainty=0.9545)
    """

    __slots__ = ("mean", "std", "tolerance")

    def __init__(self, x: np.ndarray, mean: float, std: float, tolerance: float) -> None:
        self.x = x
        self.mean = float(mean)
        self.std = float(std)
        self.tolerance = float(tolerance)
        p_in = in_band_probability(self.mean, self.std, self.tolerance)
        self.proba = np.array([p_in, 1.0 - p_in])
        self.y_index = 0
        self.certainty = p_in

    def __repr__(self) -> str:
        return (
            f"RegressionContext(mean={self.mean:.4g}, std={self.std:.4g}, "
            f"certainty={self.certainty:.4f})"
        )


def supports(agent: Agent, task: str) -> bool:
    """Whether `agent` works on a stream of `task` (``"classification"`` or ``"regression"``)."""
    return task in getattr(type(agent), "tasks", ("classification",))


def regression_context(ctx: Context, agent: Agent) -> RegressionContext:
    """`ctx` if it is a regression context, else a :class:`TaskError` naming `agent`."""
    if not isinstance(ctx, RegressionContext):
        raise TaskError(
            f"{type(agent).__name__} scores a regressor's predictive spread; use it with a "
            "regressor (e.g. BayesianRidge) and a tolerance, or use ReinforcedAgent with a "
            "classifier"
        )
    return ctx


class ReinforcedSpreadAgent(ReinforcedAgent):
    """RAL for regression: ask where the model is unlikely to be within the tolerance.

    The certainty is ``P(|y − ŷ| ≤ tol)`` under the learner's predictive spread
    (:class:`RegressionContext`); the agent asks (``p = 1``) when it is below ``θ``, and
    ``θ`` learns from the rewards exactly as RAL's: up after a part the model got wrong
    (``|y − ŷ| > tol``), down after one it got right. Its graded score (score fusion) is
    1 at certainty 0, 0.5 at ``θ`` and 0 at certainty 1.

    Parameters
    ----------
    theta0
        Initial certainty threshold ``θ0`` (the probability of being within tolerance
        below which the agent asks).
    eta
        Step size ``η`` of the threshold update.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core.regression import ReinforcedSpreadAgent, RegressionContext
    >>> agent = ReinforcedSpreadAgent(theta0=0.9, eta=0.1).fit(np.zeros((2, 1)))
    >>> unsure = RegressionContext(np.zeros(1), 3.0, 0.2, 0.1)      # P(in band) ≈ 0.38
    >>> sure = RegressionContext(np.zeros(1), 3.0, 0.01, 0.1)
    >>> agent.advise_one(unsure), agent.advise_one(sure)
    (1.0, 0.0)
    >>> round(agent.score_one(unsure), 3)   # 0.5 + 0.5 * (0.9 - 0.383) / 0.9
    0.787
    >>> agent.reward_one(1.0, reward=1.0, penalty=-0.5)   # it was out of tolerance
    >>> round(agent.theta_, 4)
    0.9675
    """

    kind: ClassVar[str] = "exploitation"
    tasks: ClassVar[tuple[str, ...]] = ("regression",)

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"theta0": 0.8, "eta": 0.02}]

    def __init__(self, *, theta0: float = 0.5, eta: float = 0.01) -> None:
        super().__init__(theta0=theta0, eta=eta)

    def advise_one(self, ctx: Context) -> float:
        return 1.0 if regression_context(ctx, self).certainty < self.theta_ else 0.0

    def score_one(self, ctx: Context) -> float:
        c, theta = regression_context(ctx, self).certainty, self.theta_
        if c < theta:
            return 0.5 + 0.5 * min(1.0, (theta - c) / max(theta, 1e-12))
        return (
            min(0.5 * (1.0 - c) / (1.0 - theta), float(np.nextafter(0.5, 0.0)))
            if theta < 1.0
            else 0.0
        )
