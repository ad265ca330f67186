"""Euclidean distances compiled with numba, bit for bit those of numpy's einsum.

The window agents' reference distances are ``sqrt(einsum("ij,ij->i", d, d))`` of the
differences ``d`` (:func:`cbeal.core.window.euclidean_into`). Numpy computes each row's sum
of squares in ``sum_of_products_contig_contig_outstride0_two``: two SIMD lanes of float64
(the x86-64 baseline numpy is built for), blocks of eight elements added from the last pair
to the first with a multiply then an add (no fused multiply-add in the baseline), the tail
pair by pair, and lane 0 plus lane 1 at the end. :func:`euclidean_into` does the same
operations in the same order, so it gives the same bits — on the builds where that is
numpy's order. Another build (wider lanes, fused multiply-adds) would sum in another order;
:func:`matches_numpy` therefore compares both on seeded data of every width up to 64
features before :mod:`cbeal.kernels` lets the window kernels compute distances themselves
(a wrong order differs in the last bit on about 40 % of rows, so the check cannot miss it).
Without that, numpy computes the distances and the kernels the rest.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["euclidean_into", "matches_numpy"]


@njit(cache=True, nogil=True)
def euclidean_into(points: np.ndarray, n: int, x: np.ndarray, out: np.ndarray) -> None:
    """Distances from the first `n` rows of `points` to `x` into ``out[:n]``."""
    p = x.shape[0]
    for r in range(n):
        lane0 = 0.0
        lane1 = 0.0
        i = 0
        while p - i >= 8:  # numpy's unrolled blocks: pairs 3, 2, 1, 0 of the block
            for k in (6, 4, 2, 0):
                a = points[r, i + k] - x[i + k]
                b = points[r, i + k + 1] - x[i + k + 1]
                lane0 = a * a + lane0
                lane1 = b * b + lane1
            i += 8
        while i < p:  # the tail, a pair at a time (a missing second element adds 0)
            a = points[r, i] - x[i]
            lane0 = a * a + lane0
            if i + 1 < p:
                b = points[r, i + 1] - x[i + 1]
                lane1 = b * b + lane1
            i += 2
        out[r] = np.sqrt(lane0 + lane1)


def matches_numpy() -> bool:
    """Whether :func:`euclidean_into` gives numpy's distances bit for bit on this build:
    seeded rows of 1 to 64 features at scales from 1e-3 to 1e3, and duplicates."""
    from cbeal.core.window import euclidean_into as reference

    rng = np.random.default_rng(20261126)
    for p in range(1, 65):
        for scale in (1e-3, 1.0, 1e3):
            points = rng.normal(size=(24, p)) * scale
            points[-1] = points[0]
            x = points[0] + rng.normal(size=p) * scale * rng.random()
            expected = np.empty(24)
            reference(points, x, np.empty_like(points), expected)
            got = np.empty(24)
            euclidean_into(points, 24, x, got)
            if not np.array_equal(got, expected):
                return False
    return True
