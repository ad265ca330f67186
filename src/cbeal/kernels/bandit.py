"""Exp4.P's weights and the EWMA chart compiled with numba: the operations of
:mod:`cbeal.core.exp4p` and :mod:`cbeal.core.ewma` in the same order (sums from the first
weight on, ``exp`` and ``sqrt`` of the C library), so the weights are the same bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["chart_step", "distribution", "mix", "update_decision", "update_reward", "weights"]

_MAX_EXP = 700.0
_FLOOR = 1e-300  # Exp4P's smallest weight


@njit(cache=True, nogil=True)
def _sum(values: np.ndarray) -> float:
    total = 0.0
    for v in values:
        total += v
    return total


@njit(cache=True, nogil=True)
def distribution(alpha: np.ndarray, advice: np.ndarray, p_min: float) -> float:
    """``Exp4P.distribution``: the acquire arm's probability."""
    mix = 0.0
    for i in range(alpha.shape[0]):
        mix += alpha[i] * advice[i]
    mix = mix / _sum(alpha)
    return (1.0 - 2.0 * p_min) * mix + p_min


@njit(cache=True, nogil=True)
def mix(alpha: np.ndarray, advice: np.ndarray, p_min: float, eps: float, out: np.ndarray) -> float:
    """``Exp4P.distribution`` then the ensemble's ε share, and ``Exp4P.weights`` into
    `out`: one call per sample for both."""
    total = _sum(alpha)
    mixed = 0.0
    for i in range(alpha.shape[0]):
        mixed += alpha[i] * advice[i]
        out[i] = alpha[i] / total
    mixed = mixed / total
    p = (1.0 - 2.0 * p_min) * mixed + p_min
    return (1.0 - eps) * p + eps


@njit(cache=True, nogil=True)
def weights(alpha: np.ndarray) -> np.ndarray:
    """``Exp4P.weights``: the standardized weights."""
    total = _sum(alpha)
    out = np.empty(alpha.shape[0])
    for i in range(alpha.shape[0]):
        out[i] = alpha[i] / total
    return out


@njit(cache=True, nogil=True)
def update_decision(alpha: np.ndarray, advice: np.ndarray, p1: float, k: float) -> None:
    """``Exp4P.update_decision`` with ``k = step · bonus``: alpha updated in place."""
    n = alpha.shape[0]
    p2 = 1.0 - p1
    e = np.empty(n)
    for i in range(n):
        x = advice[i]
        e[i] = k * (x / p1 + (1.0 - x) / p2)
    _multiply(alpha, e)


@njit(cache=True, nogil=True)
def update_reward(
    alpha: np.ndarray, advice: np.ndarray, step: float, reward: float, p1: float
) -> None:
    """``Exp4P.update_reward`` (a reward other than 0): alpha updated in place."""
    n = alpha.shape[0]
    k = step * reward / p1
    e = np.empty(n)
    inside = True
    for i in range(n):
        e[i] = k * advice[i]
        inside = inside and -_MAX_EXP < e[i] < _MAX_EXP
    if not inside:  # a huge reward: this order of multiplication never gives inf · 0 = NaN
        scale = step / p1
        for i in range(n):
            e[i] = (scale * advice[i]) * reward
    _multiply(alpha, e)


@njit(cache=True, nogil=True)
def _multiply(alpha: np.ndarray, e: np.ndarray) -> None:
    """``Exp4P._multiply`` and ``Exp4P._keep_finite``: ``α_i ← α_i · exp(e_i)`` in place."""
    n = alpha.shape[0]
    inside = True
    for i in range(n):
        inside = inside and -_MAX_EXP < e[i] < _MAX_EXP
    done = False
    if inside:
        grown = np.empty(n)
        for i in range(n):
            grown[i] = alpha[i] * math.exp(e[i])
        total = _sum(grown)
        if 0.0 < total < math.inf:  # else every weight under- or one overflowed
            alpha[:] = grown
            done = True
    if not done:
        top = -math.inf
        for i in range(n):
            e[i] = min(max(e[i], -1e300), 1e300)
            top = max(top, e[i])
        for i in range(n):
            alpha[i] = alpha[i] * math.exp(max(e[i] - top, -_MAX_EXP))
    total = _sum(alpha)
    if not 1e-100 <= total <= 1e100:
        for i in range(n):
            alpha[i] = alpha[i] / total
        total = 1.0
    floor = max(total * 1e-250, _FLOOR)
    low = alpha[0]
    for i in range(1, n):
        low = min(low, alpha[i])
    if low < floor:
        for i in range(n):
            alpha[i] = max(alpha[i], floor)


@njit(cache=True, nogil=True)
def chart_step(
    alpha: np.ndarray,
    state: np.ndarray,
    out: np.ndarray,
    flipped: np.ndarray,
    t: int,
    lam: float,
    mu: float,
    h: float,
    flags: int,
    gamma_t: float,
) -> float:
    """``EWMAChart.step`` at step `t` (already counted), the chart's ``z``, ``mean`` and
    ``m2`` the rows of `state`: fills ``out`` (the weights before and after flipping) and
    `flipped`, flips `alpha` in place; returns the next ``h``. `flags`: 1 for the paper's
    limits, 2 to flip all, 4 to reset a flipped agent's ``z``."""
    z, mean, m2 = state[0], state[1], state[2]
    ws, after = out[0], out[1]
    paper, flip_all, reset = flags & 1 != 0, flags & 2 != 0, flags & 4 != 0
    n = alpha.shape[0]
    total = _sum(alpha)
    for i in range(n):
        ws[i] = alpha[i] / total
    for i in range(n):
        w = ws[i]
        delta = w - mean[i]
        mean[i] += delta / t
        m2[i] += delta * (w - mean[i])
        z[i] = lam * w + (1.0 - lam) * z[i]
    any_out = False
    for i in range(n):
        half = 0.0
        if t >= 2:
            if paper:
                half = h * lam / (2.0 - lam) * m2[i] / (t - 1)
            else:
                half = h * math.sqrt(lam / (2.0 - lam)) * math.sqrt(m2[i] / (t - 1))
        flipped[i] = abs(z[i] - mu) > half and m2[i] > 0.0
        any_out = any_out or flipped[i]
    if flip_all and any_out:
        flipped[:] = True
    for i in range(n):
        after[i] = ws[i]
    if any_out:
        floor = 1e-6 * mu
        for i in range(n):
            if flipped[i]:
                after[i] = max(2.0 * mu - ws[i], floor)
        norm = _sum(after)
        for i in range(n):
            after[i] = after[i] / norm
            alpha[i] = total * after[i]
            if reset and flipped[i]:
                z[i] = mu
    h = h * math.exp(min(gamma_t, 700.0))
    return h if math.isfinite(h) else math.inf
