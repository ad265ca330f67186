"""Minority seeking, for score fusion: ask for samples that may belong to a rare class."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError

__all__ = ["MinorityAgent"]


class MinorityAgent(Agent):
    """Score a sample by how rare its class is expected to be among the labels so far.

    With ``n_k`` labels of class ``k`` so far (``D0`` included), a class's rarity is
    ``r_k = (n_k + prior)⁻¹ / max_j (n_j + prior)⁻¹`` (1 for the rarest), and the score is
    the expected rarity ``Σ_k P[k] r_k`` under the learner's probabilities ``P``. On a line
    failures are rare: a sample the learner gives some chance of being a failure is worth
    more than one more good part. On balanced labels every score is 1, which leaves a
    fusion's ranking unchanged.

    Parameters
    ----------
    prior
        Pseudo-count added to every class (a class never labelled counts as `prior`).

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context, MinorityAgent
    >>> agent = MinorityAgent().fit(np.zeros((10, 1)), y0=np.array([0] * 9 + [1]))
    >>> round(agent.advise_one(Context(np.zeros(1), np.array([0.9, 0.1]))), 3)  # 0.9/5 + 0.1
    0.28
    >>> round(agent.advise_one(Context(np.zeros(1), np.array([0.4, 0.6]))), 3)
    0.68
    """

    kind: ClassVar[str] = "exploration"

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"prior": 2.0}]

    def __init__(self, *, prior: float = 1.0) -> None:
        self.prior = prior

    def _start(self, X0: np.ndarray) -> None:
        prior = self.prior
        if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not prior > 0:
            raise ParameterError(f"prior must be a number > 0, got {prior!r}")
        self.counts_ = np.zeros(0)
        self.__dict__.pop("_rarities", None)

    def _grow(self, k: int) -> np.ndarray:
        if self.counts_.shape[0] < k:
            self.counts_ = np.concatenate([self.counts_, np.zeros(k - self.counts_.shape[0])])
        return self.counts_

    def _rarity(self, k: int) -> np.ndarray:
        """``r_k`` of the first `k` classes; kept until a label or the prior changes it."""
        prior = float(self.prior)
        cached = self.__dict__.get("_rarities")
        if cached is not None and cached[0] == k and cached[1] == prior:
            return cached[2]
        inverse = 1.0 / (self._grow(k)[:k] + prior)
        rarity = inverse / inverse.max()
        self.__dict__["_rarities"] = (k, prior, rarity)
        return rarity

    def advise_one(self, ctx: Context) -> float:
        rarity = self._rarity(ctx.proba.shape[0])
        return min(1.0, max(0.0, float(ctx.proba @ rarity)))

    def label_one(self, x: np.ndarray, y_index: int) -> None:
        self._grow(int(y_index) + 1)[int(y_index)] += 1.0
        self.__dict__.pop("_rarities", None)
