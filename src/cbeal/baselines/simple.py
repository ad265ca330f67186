"""Random sampling and the uncertainty strategies (fixed, variable, split; spec §6)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError

__all__ = ["RandomAgent", "SplitAgent", "UncertaintyAgent", "VariableUncertaintyAgent"]


class RandomAgent(Agent):
    """RS: acquire every sample with the same probability ``rate`` (the paper uses ``B/n``).

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.baselines import RandomAgent
    >>> from cbeal.core import Context
    >>> RandomAgent(rate=0.1).fit(np.zeros((1, 2))).advise_one(Context(np.zeros(2), np.ones(2) / 2))
    0.1
    """

    kind: ClassVar[str] = "exploration"
    tasks: ClassVar[tuple[str, ...]] = ("classification", "regression")

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"rate": 0.2}]

    def __init__(self, *, rate: float = 0.1) -> None:
        self.rate = rate

    def _start(self, X0: np.ndarray) -> None:
        if not 0.0 <= float(self.rate) <= 1.0:
            raise ParameterError(f"rate must be in [0, 1], got {self.rate}")

    def advise_one(self, ctx: Context) -> float:
        return float(self.rate)


class UncertaintyAgent(Agent):
    """US: acquire when the learner's certainty is below a fixed ``threshold`` (paper: 0.7).

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.baselines import UncertaintyAgent
    >>> from cbeal.core import Context
    >>> agent = UncertaintyAgent().fit(np.zeros((1, 1)))
    >>> agent.advise_one(Context(np.zeros(1), np.array([0.65, 0.35])))
    1.0
    """

    kind: ClassVar[str] = "exploitation"

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"threshold": 0.8}]

    def __init__(self, *, threshold: float = 0.7) -> None:
        self.threshold = threshold

    def _start(self, X0: np.ndarray) -> None:
        pass

    def advise_one(self, ctx: Context) -> float:
        return 1.0 if ctx.certainty < self.threshold else 0.0


class _BudgetPaced(Agent):
    """Shared pacing of Žliobaitė et al. (2014): act only while labels/samples < budget share."""

    budget_fraction: float

    def _start(self, X0: np.ndarray) -> None:
        if not 0.0 < float(self.budget_fraction) <= 1.0:
            raise ParameterError(f"budget_fraction must be in (0, 1], got {self.budget_fraction}")
        self.n_seen_ = 0
        self.n_labels_ = 0

    def _within_budget(self) -> bool:
        self.n_seen_ += 1
        return self.n_labels_ / self.n_seen_ < float(self.budget_fraction)

    def decided_one(self, advice: float, acquired: bool) -> None:
        self.n_labels_ += int(acquired)


class VariableUncertaintyAgent(_BudgetPaced):
    """Uncertainty with a variable threshold (Žliobaitė et al. 2014).

    Within budget: acquire when certainty < ``θ`` and then shrink ``θ ← θ(1 − s)``;
    otherwise widen ``θ ← θ(1 + s)``.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.baselines import VariableUncertaintyAgent
    >>> from cbeal.core import Context
    >>> agent = VariableUncertaintyAgent(budget_fraction=0.5).fit(np.zeros((1, 1)))
    >>> agent.advise_one(Context(np.zeros(1), np.array([0.9, 0.1]))), agent.theta_
    (1.0, 0.99)
    """

    kind: ClassVar[str] = "exploitation"

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"budget_fraction": 0.2}]

    def __init__(
        self, *, budget_fraction: float = 0.1, step: float = 0.01, theta0: float = 1.0
    ) -> None:
        self.budget_fraction = budget_fraction
        self.step = step
        self.theta0 = theta0

    def _start(self, X0: np.ndarray) -> None:
        super()._start(X0)
        self.theta_ = float(self.theta0)

    def _variable(self, ctx: Context) -> float:
        if ctx.certainty < self.theta_:
            self.theta_ *= 1.0 - float(self.step)
            return 1.0
        self.theta_ *= 1.0 + float(self.step)
        return 0.0

    def advise_one(self, ctx: Context) -> float:
        if not self._within_budget():
            return 0.0
        return self._variable(ctx)


class SplitAgent(VariableUncertaintyAgent):
    """Split (Žliobaitė et al. 2014): a share ``random_share`` of the samples is handled by
    random sampling at the budget rate, the rest by variable uncertainty.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.baselines import SplitAgent
    >>> from cbeal.core import Context
    >>> agent = SplitAgent(budget_fraction=0.1, random_share=1.0).fit(np.zeros((1, 1)))
    >>> agent.advise_one(Context(np.zeros(1), np.array([0.5, 0.5])))
    0.1
    """

    kind: ClassVar[str] = "hybrid"

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"budget_fraction": 0.2, "random_share": 0.5}]

    def __init__(
        self,
        *,
        budget_fraction: float = 0.1,
        step: float = 0.01,
        theta0: float = 1.0,
        random_share: float = 0.2,
    ) -> None:
        super().__init__(budget_fraction=budget_fraction, step=step, theta0=theta0)
        self.random_share = random_share

    def advise_one(self, ctx: Context) -> float:
        if not self._within_budget():
            return 0.0
        if self._rng.random() < float(self.random_share):
            return float(self.budget_fraction)
        return self._variable(ctx)
