"""Entropy sampling paced to a budget share: ask in proportion to the learner's uncertainty."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError

__all__ = ["EntropyAgent"]

_LOG2 = math.log(2)


class EntropyAgent(Agent):
    """Acquisition probability ``H^d``: ``H`` the normalised entropy of the learner's
    probabilities, ``d`` a discount steered toward the budget share ``b``.

    Unlike a certainty threshold (US, RAL) every sample keeps a chance in proportion to how
    unsure the learner is, and unlike the paper's agents it paces itself: after each
    sample ``log d ← log d + κ (ρ − b) / b``, where ``ρ`` is the recent share of samples it
    advised to label (its expected advice, an exponentially weighted mean over about
    ``window`` samples). The idea is that of river's ``active.EntropySampler``, whose
    discount is fixed by hand.

    Parameters
    ----------
    budget_fraction
        Target share ``b`` of samples to advise.
    discount0
        Starting discount ``d``.
    gain
        ``κ`` of the rate controller.
    window
        Samples over which the recent share is averaged.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.baselines import EntropyAgent
    >>> from cbeal.core import Context
    >>> agent = EntropyAgent(budget_fraction=0.1).fit(np.zeros((1, 2)))
    >>> agent.advise_one(Context(np.zeros(2), np.array([0.5, 0.5])))    # most unsure
    1.0
    >>> round(agent.advise_one(Context(np.zeros(2), np.array([0.9, 0.1]))), 3)
    0.101
    """

    kind: ClassVar[str] = "exploitation"

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"budget_fraction": 0.2, "window": 50}]

    def __init__(
        self,
        *,
        budget_fraction: float = 0.1,
        discount0: float = 3.0,
        gain: float = 0.05,
        window: int = 100,
    ) -> None:
        self.budget_fraction = budget_fraction
        self.discount0 = discount0
        self.gain = gain
        self.window = window

    def _start(self, X0: np.ndarray) -> None:
        if not 0.0 < float(self.budget_fraction) <= 1.0:
            raise ParameterError(f"budget_fraction must be in (0, 1], got {self.budget_fraction}")
        if not float(self.discount0) > 0.0 or not int(self.window) >= 1:
            raise ParameterError("discount0 must be > 0 and window ≥ 1")
        self.discount_ = float(self.discount0)
        self.rate_ = float(self.budget_fraction)

    def advise_one(self, ctx: Context) -> float:
        p = ctx.proba
        pair = p.tolist() if p.shape[0] == 2 else None
        if pair is not None and pair[0] > 0.0 and pair[1] > 0.0:  # the hot path, two classes
            logs = np.log(p).tolist()  # numpy's log; the products and their sum as floats
            h = -(pair[0] * logs[0] + pair[1] * logs[1]) / _LOG2
        else:
            h = self._entropy(p[p > 0.0])
        advice = min(1.0, max(0.0, h)) ** self.discount_
        b = float(self.budget_fraction)
        # the expected advice, not a draw: the controller sees no sampling noise
        self.rate_ += (advice - self.rate_) / float(self.window)
        step = float(self.gain) * (self.rate_ - b) / b
        self.discount_ = min(1000.0, max(0.05, self.discount_ * math.exp(step)))
        return advice

    @staticmethod
    def _entropy(p: np.ndarray) -> float:
        """Normalised entropy of the positive probabilities `p`."""
        if p.size < 2:
            return 0.0  # one class certain: nothing to learn from the learner's view
        return float(-(p * np.log(p)).sum() / math.log(p.size))
