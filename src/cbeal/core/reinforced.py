"""RAL-Agent: reinforced exploitation by an adaptive certainty threshold (spec §3.3)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError

__all__ = ["ReinforcedAgent"]

_BELOW_HALF = float(np.nextafter(0.5, 0.0))


class ReinforcedAgent(Agent):
    """Acquire samples the learner is unsure about; learn the certainty threshold from rewards.

    ``p = 1`` when the learner's certainty ``max_k P[k]`` is below the threshold ``θ``,
    else 0. When a sample this agent asked for was labelled with reward ``r``,
    ``θ ← min(θ · (1 + η · (1 − 2^{r / ρ−})), 1)``: with ``ρ+ = 1, ρ− = −0.5`` a useful
    query (the learner was wrong) raises ``θ`` by the factor ``1 + 0.75 η`` and a useless
    one lowers it by ``1 − η``.

    Parameters
    ----------
    theta0
        Initial certainty threshold ``θ0``.
    eta
        Step size ``η`` of the threshold update.

    For score fusion the advice is graded by :meth:`score_one`: 1 at the lowest possible
    certainty ``1/K``, 0.5 at the threshold ``θ``, 0 at certainty 1, linear in between. It
    is above 0.5 exactly when the advice is 1, so ``θ`` learns from the same rewards.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context, ReinforcedAgent
    >>> agent = ReinforcedAgent(theta0=0.9, eta=0.1).fit(np.zeros((2, 1)))
    >>> ctx = Context(np.zeros(1), np.array([0.2, 0.8]))
    >>> agent.advise_one(ctx), round(agent.score_one(ctx), 4)   # 0.5 + 0.5 * 0.1 / 0.4
    (1.0, 0.625)
    >>> agent.reward_one(1.0, reward=1.0, penalty=-0.5)   # the learner was wrong
    >>> round(agent.theta_, 6)                           # 0.9 * (1 + 0.075)
    0.9675
    """

    kind: ClassVar[str] = "exploitation"

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"theta0": 0.8, "eta": 0.02}]

    def __init__(self, *, theta0: float = 0.95, eta: float = 0.005) -> None:
        self.theta0 = theta0
        self.eta = eta

    def _start(self, X0: np.ndarray) -> None:
        if not 0.0 < float(self.theta0) <= 1.0:
            raise ParameterError(f"theta0 must be in (0, 1], got {self.theta0!r}")
        if not float(self.eta) >= 0.0:
            raise ParameterError(f"eta must be ≥ 0, got {self.eta!r}")
        self.theta_ = float(self.theta0)

    def advise_one(self, ctx: Context) -> float:
        return 1.0 if ctx.certainty < self.theta_ else 0.0

    def score_one(self, ctx: Context) -> float:
        c, theta = ctx.certainty, self.theta_
        if c < theta:  # the advice is 1: grade within (0.5, 1]
            floor = 1.0 / ctx.proba.shape[0]  # the lowest certainty K classes allow
            return 0.5 + 0.5 * min(1.0, (theta - c) / max(theta - floor, 1e-12))
        # strictly below 0.5, so that reward_one learns only from samples it asked for
        return min(0.5 * (1.0 - c) / (1.0 - theta), _BELOW_HALF) if theta < 1.0 else 0.0

    def reward_one(self, advice: float, reward: float, penalty: float) -> None:
        """Update ``θ`` if this agent asked for the sample (``advice`` = 1) and it was labelled."""
        if advice < 0.5 or reward == 0.0:
            return
        if penalty >= 0.0:
            raise ParameterError(f"the penalty ρ− must be negative, got {penalty}")
        factor = 1.0 + float(self.eta) * (1.0 - 2.0 ** (reward / penalty))
        self.theta_ = min(self.theta_ * factor, 1.0)
