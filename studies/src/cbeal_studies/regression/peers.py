"""scikit-activeml's pool-based regression strategy on a sliding window, as a stream peer.

scikit-activeml's regression strategies are pool-based: they pick the best of a set of
unlabelled candidates. On a stream, the candidates are the part at hand and the last
`window_size` parts; the agent's score is the part's utility rank among them (1: the best
candidate of the window), and the same quantile pacer as the fusion candidates spends
the budget on the highest scores. That is as fair as a pool strategy gets on a stream:
the same labels, the same pacing, the strategy's own utility.

Greedy sampling on the inputs (GSx, Wu, Lin & Huang 2019) is used: it needs no model
refits, so it is cheap enough to run on every part.
"""

from __future__ import annotations

from collections import deque
from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context

__all__ = ["WindowPoolAgent"]


class WindowPoolAgent(Agent):
    """A scikit-activeml pool regression strategy scored on a sliding window (see module).

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core.regression import RegressionContext
    >>> agent = WindowPoolAgent(window_size=20).fit(np.zeros((3, 2)), None, np.zeros(3))
    >>> near = [agent.advise_one(RegressionContext(np.array([0.1 * i, 0.0]), 0.0, 1.0, 0.1))
    ...         for i in range(5)]
    >>> agent.advise_one(RegressionContext(np.array([5.0, 5.0]), 0.0, 1.0, 0.1))  # the farthest
    1.0
    """

    kind: ClassVar[str] = "exploration"
    tasks: ClassVar[tuple[str, ...]] = ("regression",)

    def __init__(self, *, strategy: str = "GreedySamplingX", window_size: int = 100) -> None:
        self.strategy = strategy
        self.window_size = window_size

    def _start(self, X0: np.ndarray) -> None:
        import skactiveml.pool as pool

        self.qs_: Any = getattr(pool, self.strategy)(random_state=0)
        self.window_: deque[np.ndarray] = deque(maxlen=int(self.window_size))
        self.pool_X_: list[np.ndarray] = []
        self.pool_y_: list[float] = []

    def label_one(self, x: np.ndarray, y_index: Any) -> None:
        self.pool_X_.append(np.asarray(x, dtype=np.float64))
        self.pool_y_.append(float(y_index))

    def advise_one(self, ctx: Context) -> float:
        x = np.asarray(ctx.x, dtype=np.float64)
        cands = [*self.window_, x]
        self.window_.append(x)
        if not self.pool_X_ or len(cands) < 2:
            return 1.0 if not self.pool_X_ else 0.5
        X = np.vstack([*self.pool_X_, *cands])
        y = np.r_[self.pool_y_, np.full(len(cands), np.nan)]
        idx = np.arange(len(self.pool_X_), X.shape[0])
        _, util = self.qs_.query(X, y, candidates=idx, return_utilities=True)
        u = np.asarray(util)[0, idx]
        return float(np.mean(u[:-1] <= u[-1]))
