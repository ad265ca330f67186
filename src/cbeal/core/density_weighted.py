"""DWU-Agent: density-weighted uncertainty, for score fusion (Settles & Craven's information
density, over a window of the recent stream)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError
from cbeal.core.window import RingBuffer

__all__ = ["DensityWeightedAgent", "normalized_entropy"]


def normalized_entropy(proba: np.ndarray) -> float:
    """Entropy of class probabilities divided by ``log K``: 0 when certain, 1 when uniform.

    >>> import numpy as np
    >>> normalized_entropy(np.array([0.5, 0.5])), normalized_entropy(np.array([1.0, 0.0]))
    (1.0, 0.0)
    """
    k = proba.shape[0]
    p = proba[proba > 0.0]
    if k < 2 or p.size < 2:
        return 0.0
    return min(1.0, max(0.0, float(-(p * np.log(p)).sum()) / math.log(k)))


class DensityWeightedAgent(Agent):
    """Ask where the learner is unsure *and* the sample is typical of the recent stream.

    The score is ``H · sim^β``: ``H`` the normalised entropy of the learner's probabilities
    and ``sim`` the mean Gaussian similarity ``exp(−d² / (2 h²))`` of the sample to the last
    `window_size` samples. The bandwidth ``h²`` is a running mean (over about
    `window_size` samples) of the median squared distance of each sample to the window, so
    an outlier keeps a low similarity. With ``β = 0`` the score is plain entropy.

    Uncertainty alone asks for outliers a learner cannot place; weighting by density
    prefers samples whose label also tells about their many neighbours.

    Parameters
    ----------
    window_size
        Samples in the window the similarity is measured against.
    density_weight
        ``β``, the exponent of the similarity.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context, DensityWeightedAgent
    >>> X0 = np.random.default_rng(0).normal(size=(30, 2))
    >>> agent = DensityWeightedAgent(window_size=30).fit(X0)
    >>> unsure = np.array([0.5, 0.5])
    >>> inside = agent.advise_one(Context(np.zeros(2), unsure))
    >>> outside = agent.advise_one(Context(np.full(2, 8.0), unsure))
    >>> bool(inside > 0.3), bool(outside < 0.01)
    (True, True)
    >>> agent.advise_one(Context(np.zeros(2), np.array([1.0, 0.0])))   # certain: 0
    0.0
    """

    kind: ClassVar[str] = "exploitation"

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"window_size": 25, "density_weight": 2.0}]

    def __init__(self, *, window_size: int = 100, density_weight: float = 1.0) -> None:
        self.window_size = window_size
        self.density_weight = density_weight

    def _start(self, X0: np.ndarray) -> None:
        size = self.window_size
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 2:
            raise ParameterError(f"window_size must be a whole number ≥ 2, got {size!r}")
        beta = self.density_weight
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta >= 0:
            raise ParameterError(f"density_weight must be a number ≥ 0, got {beta!r}")
        self.window_ = RingBuffer(int(size), X0.shape[1])
        self.bandwidth_ = math.nan  # h², from the first sample with a window
        for x in X0[-int(size) :]:
            self._observe(x)

    def _observe(self, x: np.ndarray) -> float:
        """Similarity of `x` to the window (1 for an empty one); then `x` joins it."""
        w = self.window_
        sim = 1.0
        if w.size:
            d2 = ((w.points[: w.size] - x) ** 2).sum(axis=1)
            med = float(np.median(d2))
            if math.isnan(self.bandwidth_):
                self.bandwidth_ = med
            h2 = self.bandwidth_
            sim = float(np.exp(-d2 / (2.0 * h2)).mean()) if h2 > 0.0 else float(np.all(d2 == 0))
            self.bandwidth_ += (med - h2) / float(self.window_size)
        w.push(x)
        return sim

    def advise_one(self, ctx: Context) -> float:
        sim = self._observe(ctx.x)
        h = normalized_entropy(ctx.proba)
        beta = float(self.density_weight)
        return h * sim**beta if beta > 0.0 else h
