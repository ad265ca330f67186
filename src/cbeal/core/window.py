"""Sliding windows of observed samples: a ring buffer, and one with pairwise distances.

:class:`RingBuffer` holds the last ``capacity`` samples in fixed slots (the oldest is
overwritten); every window in cbeal is one. Both exploration agents keep, for every member
of a window of the last ``L`` observed samples, one statistic over the other members (the
largest distance for LD, the nearest neighbour distance for SPF). :class:`DistanceWindow`
stores the members with their pairwise distance matrix, so that after an eviction the
statistic of a member whose extreme was the evicted sample is recomputed exactly from one
matrix row instead of from scratch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cbeal.core.exceptions import ParameterError

__all__ = ["KERNELS", "METRICS", "DistanceWindow", "RingBuffer", "euclidean_into", "pairwise_to"]

#: Compiled twins of the core's steps by name (the window agents' ``"agent"`` and
#: ``"group"``, the pacer's ``"pace"``, Exp4.P's and the chart's), registered by
#: :mod:`cbeal.kernels` when numba is installed; empty means numpy. The core never imports
#: them: it looks them up here at every call, and they give the same values bit for bit
#: (the numpy code is the reference; tests/algorithm/test_kernel_twins.py compares them).
KERNELS: dict[str, Callable[..., Any]] = {}


try:  # what np.einsum calls (optimize=False), without its Python wrapper: 1 µs less
    from numpy._core.multiarray import c_einsum as _einsum
except ImportError:  # pragma: no cover - numpy < 2
    _einsum = np.einsum


def _euclidean(points: np.ndarray, x: np.ndarray) -> np.ndarray:
    diff = points - x
    return np.sqrt(_einsum("ij,ij->i", diff, diff))


def euclidean_into(points: np.ndarray, x: np.ndarray, diff: np.ndarray, out: np.ndarray) -> None:
    """:func:`_euclidean` into preallocated arrays (`diff` like `points`, `out` of its
    length): the same operations, the same values, no allocation."""
    np.subtract(points, x, out=diff)
    _einsum("ij,ij->i", diff, diff, out=out)
    np.sqrt(out, out=out)


def _manhattan(points: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.abs(points - x).sum(axis=1)


def _chebyshev(points: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.abs(points - x).max(axis=1)


METRICS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "euclidean": _euclidean,
    "manhattan": _manhattan,
    "chebyshev": _chebyshev,
}


def pairwise_to(metric: str, points: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Distances from every row of `points` to `x` (row by row, so batch-independent)."""
    try:
        fn = METRICS[metric]
    except KeyError:
        msg = f"unknown metric {metric!r}; choose one of {sorted(METRICS)}"
        raise ParameterError(msg) from None
    return fn(points, x)


class RingBuffer:
    """The last `capacity` points pushed, in fixed slots 0, 1, …; once full, a new point
    overwrites the oldest slot."""

    __slots__ = ("capacity", "next", "points", "size")

    def __init__(self, capacity: int, n_features: int) -> None:
        self.capacity = capacity
        self.points = np.zeros((capacity, n_features))
        self.size = 0
        self.next = 0

    @property
    def full(self) -> bool:
        return self.size == self.capacity

    def push(self, x: np.ndarray) -> int:
        """Insert `x`; returns its slot (that of the evicted oldest member once full)."""
        slot = self.next
        self.points[slot] = x
        if self.size < self.capacity:
            self.size += 1
        self.next = slot + 1 if slot + 1 < self.capacity else 0
        return slot

    def chronological(self) -> np.ndarray:
        """Slot indices from the oldest member to the newest."""
        if self.size < self.capacity:
            return np.arange(self.size)
        return (self.next + np.arange(self.capacity)) % self.capacity


class DistanceWindow(RingBuffer):
    """A ring buffer with the pairwise distance matrix of its members.

    Unused matrix cells and the diagonal hold `fill` (0 for maxima, +inf for minima), so
    that a row reduction over all slots ignores them.
    """

    __slots__ = ("dist", "fill", "metric")

    def __init__(self, capacity: int, n_features: int, metric: str, fill: float) -> None:
        if metric not in METRICS:
            msg = f"unknown metric {metric!r}; choose one of {sorted(METRICS)}"
            raise ParameterError(msg)
        super().__init__(capacity, n_features)
        self.metric = metric
        self.fill = fill
        self.dist = np.full((capacity, capacity), fill)

    def distances(self, x: np.ndarray) -> np.ndarray:
        """Distances from `x` to the members, indexed by slot (length `size`)."""
        return METRICS[self.metric](self.points[: self.size], x)

    def push_with(self, x: np.ndarray, d: np.ndarray) -> int:
        """Insert `x` whose distances to the current members are `d`; return its slot.

        When the window is full the returned slot is the one of the evicted (oldest)
        member; its old distance column must be read *before* calling this.
        """
        size = self.size
        slot = self.push(x)
        row = self.dist[slot]
        row[:size] = d
        row[slot] = self.fill
        self.dist[:, slot] = row
        return slot
