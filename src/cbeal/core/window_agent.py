"""Shared machinery of the window-based exploration agents (LD and SPF)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.window import METRICS, DistanceWindow

__all__ = ["WindowAgent"]


class WindowAgent(Agent):
    """An exploration agent scoring each sample against a window of the last `L` observed samples.

    For every window member it keeps one statistic over the other members: the largest
    distance (``_extreme = "max"``, LD) or the nearest-neighbour distance (``"min"``, SPF).
    The window starts with the inputs of ``D0`` and then holds the last ``window_size``
    stream samples, acquired or not. With ``exact_window=True`` the statistics stay exact
    when a member is evicted; ``False`` reproduces the paper's listing (maxima only grow,
    minima only shrink).
    """

    kind: ClassVar[str] = "exploration"
    _extreme: ClassVar[str] = "max"

    window_size: int
    metric: str
    exact_window: bool

    def _check_params(self) -> None:
        size = self.window_size
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
            raise ValueError(f"window_size must be a whole number ≥ 2, got {self.window_size!r}")
        if self.window_size < 2:
            raise ValueError(f"window_size must be at least 2, got {self.window_size}")
        if self.metric not in METRICS:
            raise ValueError(f"unknown metric {self.metric!r}; choose one of {sorted(METRICS)}")

    def _start(self, X0: np.ndarray) -> None:
        self._check_params()
        fill = 0.0 if self._extreme == "max" else np.inf
        self.window_ = DistanceWindow(int(self.window_size), X0.shape[1], self.metric, fill)
        self.stat_ = np.full(int(self.window_size), fill)
        for x in X0[-int(self.window_size) :]:
            self._observe(x, self.window_.distances(x))

    def advise_one(self, ctx: Context) -> float:
        d = self.window_.distances(ctx.x)
        p = self._score(d)
        self._observe(ctx.x, d)
        return p

    def _score(self, d: np.ndarray) -> float:
        raise NotImplementedError

    def _observe(self, x: np.ndarray, d: np.ndarray) -> None:
        """Insert `x` (distances `d` to the members, by slot) and keep the statistics exact."""
        w = self.window_
        stat = self.stat_
        is_max = self._extreme == "max"
        reduce = np.maximum if is_max else np.minimum
        size = w.size
        if size < w.capacity:
            reduce(stat[:size], d, out=stat[:size])
            slot = w.push(x, d)
            row = w.dist[slot]  # unused cells hold the neutral fill value
            stat[slot] = row.max() if is_max else row.min()
            return
        slot = w.next
        stale: np.ndarray | None = None
        if self.exact_window:
            old = w.dist[:, slot]
            # members whose extreme was attained at the member about to be evicted
            hit = old >= stat if is_max else old <= stat
            hit[slot] = False
            stale = np.flatnonzero(hit)
        reduce(stat, d, out=stat)
        w.push(x, d)
        row = w.dist[slot]
        stat[slot] = row.max() if is_max else row.min()
        if stale is not None and stale.size:
            rows = w.dist[stale]
            stat[stale] = rows.max(axis=1) if is_max else rows.min(axis=1)
