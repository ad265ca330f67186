"""SPRD-Agent: the model's own predictive spread, ranked among recent parts.

A regressor with a predictive spread (``BayesianRidge``'s ``return_std``, a bootstrap
committee's) says itself where it is unsure. The score is the part's spread ``σ`` ranked
among the last `window` parts' spreads (:class:`~cbeal.core.recent_rank.RecentRank`): no
committee to refit, no tolerance to guess (a rank does not change when the tolerance
does).
"""

from __future__ import annotations

from typing import Any, ClassVar

from cbeal.core.agent import Agent, Context
from cbeal.core.recent_rank import RecentRank, check_window
from cbeal.core.regression import regression_context

__all__ = ["SpreadRankAgent"]


class SpreadRankAgent(Agent):
    """Score a part by the rank of the model's predictive spread among recent parts.

    Parameters
    ----------
    window
        How many recent parts' spreads the rank is taken over (≥ 2).

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core.regression import RegressionContext
    >>> from cbeal.core.spread_rank import SpreadRankAgent
    >>> agent = SpreadRankAgent(window=10).fit(np.zeros((2, 1)))
    >>> [agent.score_one(RegressionContext(np.zeros(1), 0.0, s, 0.1)) for s in (1.0, 2.0, 0.5)]
    [0.5, 1.0, 0.0]
    """

    kind: ClassVar[str] = "exploitation"
    tasks: ClassVar[tuple[str, ...]] = ("regression",)

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"window": 50}]

    def __init__(self, *, window: int = 200) -> None:
        self.window = window

    def _start(self, X0: Any) -> None:
        self.ranks_ = RecentRank(check_window(self.window))

    def advise_one(self, ctx: Context) -> float:
        return self.ranks_.rank(regression_context(ctx, self).std)
