"""The quantile pacer's step compiled with numba: the twin of its reference
:func:`cbeal.core.pacer.step`, in the same operations and order, so the fused score, level
and threshold are the same bit for bit (tests/algorithm/test_kernel_twins.py compares them).

The fused score ``scores @ weights`` is numpy's dot product, which OpenBLAS computes; for
fewer than 16 members its ``ddot`` is one chain of fused multiply-adds from the first
element on (its unrolled blocks start at 16). :func:`dot` does the same with LLVM's
``fma``; :func:`dot_matches_numpy` compares both on seeded data of every length from 1 to
15 before :mod:`cbeal.kernels` registers the step (another BLAS, or an older CPU's kernel,
sums otherwise — a different order differs in the last bit on a quarter of the samples or
more, so the check cannot miss it), and :meth:`~cbeal.core.QuantilePacer.decide` calls it
only when the weights did not change (a change re-fuses the window with numpy's
matrix-vector product).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["MAX_MEMBERS", "dot", "dot_matches_numpy", "step"]

#: Members up to which OpenBLAS's dot product is one chain of fused multiply-adds.
MAX_MEMBERS = 15


@intrinsic
def _fma(typingctx: Any, a: Any, b: Any, c: Any) -> Any:
    """``a · b + c`` rounded once (LLVM's fma)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.fma(*args)

    return sig, codegen


@njit(cache=True, nogil=True)
def dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a @ b`` as OpenBLAS computes it for fewer than 16 elements."""
    acc = 0.0
    for i in range(a.shape[0]):
        acc = _fma(a[i], b[i], acc)  # type: ignore[call-arg]
    return acc


def dot_matches_numpy() -> bool:
    """Whether :func:`dot` gives numpy's ``a @ b`` bit for bit here, for 1 to
    :data:`MAX_MEMBERS` elements (scores in [0, 1] and weights summing to 1, and wider)."""
    rng = np.random.default_rng(20261126)
    for n in range(1, MAX_MEMBERS + 1):
        for _ in range(200):
            a = rng.random(n)
            b = rng.random(n) * rng.choice([1.0 / n, 1.0, 1e3])
            if dot(a, b) != a @ b:
                return False
    return True


@njit(cache=True, nogil=True)
def _select(a: np.ndarray, k: int) -> float:
    """The `k`-th smallest of `a` (rearranged in place: Hoare's selection), any order
    statistic being exact: numpy's partition gives the same value."""
    lo, hi = 0, a.shape[0] - 1
    while lo < hi:
        pivot = a[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return a[k]


@njit(cache=True, nogil=True)
def _quantile(values: np.ndarray, level: float) -> float:
    """``cbeal.core.pacer._quantile``: the same order statistics and interpolation; NaN when
    a value is NaN (numpy's partition, which sorts NaN last, then decides). Hand-written
    selection rather than numba's ``np.partition``, whose compilation alone took 8 s."""
    n = values.shape[0]
    for i in range(n):
        if values[i] != values[i]:
            return math.nan
    virtual = (n - 1) * level
    if virtual >= n - 1:
        return values.max()
    lo = math.floor(virtual)
    gamma = virtual - lo
    part = values.copy()
    a = _select(part, lo)
    b = part[lo + 1 :].min()  # the next order statistic: the smallest above the lo-th
    diff = b - a
    return b - diff * (1.0 - gamma) if gamma >= 0.5 else a + diff * gamma


@njit(cache=True, nogil=True)
def step(
    window: np.ndarray,
    fused: np.ndarray,
    scores: np.ndarray,
    weights: np.ndarray,
    slot: int,
    size: int,
    seen: int,
    acquired: int,
    b: float,
    head: float,
    over: float,
    tol: float,
    horizon: float,
) -> tuple[float, float, float]:
    """:func:`cbeal.core.pacer.step` compiled (its :func:`~cbeal.core.pacer.level`
    inlined): ``(fused score, level, threshold)``, the level -1 when no label is due; the
    threshold NaN when a fused score is NaN (the caller then takes numpy's quantile at
    that level). `horizon` is NaN for none."""
    for j in range(scores.shape[0]):
        window[slot, j] = scores[j]
    f = dot(scores, weights)
    fused[slot] = f
    accrued = b * seen
    if over > 0.0:
        head *= min(1.0, accrued / over)
    due = accrued + head - acquired - 1.0 + 1e-9
    if due < 0.0:
        return f, -1.0, math.inf
    level = (1.0 - b) * max(0.0, 1.0 - due / tol)
    if not math.isnan(horizon):
        level *= min(1.0, max(0.0, b * (horizon - seen) / tol))
    return f, level, _quantile(fused[:size], level)
