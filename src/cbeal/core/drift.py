"""DRIFT-Agent: a recency term that asks more while the labels surprise the model.

When the process drifts, the parts measured lately are the ones the model predicts worst.
The agent keeps, for every labelled part it scored, the model's *surprise*: the error
over the predictive spread, ``z = |y − ŷ| / σ`` (prequential: the prediction made before
the label). Its score is ``r / (r + 1)`` with ``r`` the recent surprise (an exponential
mean over about `span` labels) over the long-run one: 0.5 while the model is as right as
usual, towards 1 after a run of surprising labels. The score is the same for every part
between two labels, so in a fusion it raises or lowers the whole fused level: with the
:class:`~cbeal.core.DeficitPacer` the model asks ahead of its even schedule while the
process is moving, and waits (catching up later) while it is not.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError
from cbeal.core.regression import regression_context

__all__ = ["DriftAgent"]


class DriftAgent(Agent):
    """Score every part by how much more the recent labels surprised the model than usual.

    Parameters
    ----------
    span
        About how many recent labels the recent surprise averages over (> 0).

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core.regression import RegressionContext
    >>> from cbeal.core.drift import DriftAgent
    >>> agent = DriftAgent(span=2).fit(np.zeros((2, 1)))
    >>> def part(y, mean=0.0):       # score a part, then its label arrives
    ...     s = agent.score_one(RegressionContext(np.array([y]), mean, 1.0, 0.5))
    ...     agent.label_one(np.array([y]), y)
    ...     return round(s, 3)
    >>> [part(1.0) for _ in range(4)]            # as surprising as usual
    [0.5, 0.5, 0.5, 0.5]
    >>> part(6.0), part(6.0)                     # the process moved: six spreads off
    (0.5, 0.684)
    """

    kind: ClassVar[str] = "exploitation"
    tasks: ClassVar[tuple[str, ...]] = ("regression",)

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"span": 5.0}]

    def __init__(self, *, span: float = 10.0) -> None:
        self.span = span

    def _start(self, X0: Any) -> None:
        s = self.span
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s) or s <= 0:
            raise ParameterError(f"span must be a number of labels > 0, got {s!r}")
        self.last_: tuple[np.ndarray, float, float] | None = None
        self.n_ = 0
        self.long_ = 0.0
        self.recent_ = 0.0

    def advise_one(self, ctx: Context) -> float:
        rctx = regression_context(ctx, self)
        self.last_ = (np.asarray(rctx.x), rctx.mean, rctx.std)
        if self.n_ < 2 or self.long_ <= 0.0:
            return 0.5
        r = self.recent_ / self.long_
        return r / (r + 1.0)

    def label_one(self, x: np.ndarray, y_index: Any) -> None:
        last = self.last_
        if last is None or not np.array_equal(last[0], x):
            return  # D0, or a label of a part this agent did not score
        self.last_ = None
        z = abs(float(y_index) - last[1]) / max(last[2], 1e-12)
        self.n_ += 1
        self.long_ += (z - self.long_) / self.n_
        alpha = min(1.0, 2.0 / (float(self.span) + 1.0))
        self.recent_ = z if self.n_ == 1 else self.recent_ + alpha * (z - self.recent_)
