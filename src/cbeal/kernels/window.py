"""The window agents' arithmetic compiled with numba: the same operations in the same order
as :mod:`cbeal.core.window_agent`, so the advice is the same bit for bit.

The distances themselves stay numpy's (``cbeal.core.window.METRICS``, computed by the
caller): numpy's einsum accumulates with fused multiply-adds in SIMD lanes chosen by the
CPU, which a loop here would not reproduce. Everything after them — each agent's score,
the update of its distance matrix and statistics, the shared buffer — runs here, in one
call per sample for a whole group of agents.

Agent kinds: 0 for LD (``lsf / (L · δ_L)``), 1 for SPF (nearest over the largest
nearest-neighbour distance).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["advise_agent", "advise_group"]

LD, SPF = 0, 1


@njit(cache=True, nogil=True)
def _score(kind: int, param: float, stat: np.ndarray, d: np.ndarray, n: int) -> float:
    """The advice of an agent whose members' statistics are `stat` for distances `d[:n]`."""
    if n == 0:
        return 1.0
    if kind == LD:
        count = 0
        for i in range(n):
            if d[i] > stat[i]:
                count += 1
        return min(1.0, count / param)
    nearest = d[0]
    for i in range(1, n):
        if d[i] < nearest:
            nearest = d[i]
    denom = 0.0
    if n >= 2:
        denom = stat[0]
        for i in range(1, n):
            if stat[i] > denom:
                denom = stat[i]
    if denom <= 0.0:
        return 1.0 if nearest > 0.0 else 0.0
    return min(1.0, nearest / denom)


@njit(cache=True, nogil=True, inline="always")
def _better(is_max: bool, a: float, b: float) -> bool:
    return a > b if is_max else a < b


@njit(cache=True, nogil=True)
def _row_extreme(is_max: bool, row: np.ndarray) -> float:
    best = row[0]
    for j in range(1, row.shape[0]):
        if _better(is_max, row[j], best):
            best = row[j]
    return best


@njit(cache=True, nogil=True)
def _observe(
    dist: np.ndarray,
    stat: np.ndarray,
    points: np.ndarray,
    x: np.ndarray,
    d: np.ndarray,
    size: int,
    slot: int,
    is_max: bool,
    exact: bool,
    fill: float,
    hit: np.ndarray,
) -> None:
    """Insert `x` at `slot` (distances `d[:size]` to the members by slot); see
    ``WindowAgent._observe``."""
    cap = stat.shape[0]
    n_stale = 0
    if size == cap and exact:
        for i in range(cap):  # members whose extreme was the member leaving
            old = dist[slot, i]
            hit[i] = i != slot and (old >= stat[i] if is_max else old <= stat[i])
            if hit[i]:
                n_stale += 1
    for i in range(size):
        if _better(is_max, d[i], stat[i]):
            stat[i] = d[i]
    points[slot, :] = x
    for i in range(size):
        dist[slot, i] = d[i]
    dist[slot, slot] = fill
    for i in range(cap):
        dist[i, slot] = dist[slot, i]
    stat[slot] = _row_extreme(is_max, dist[slot])
    if n_stale:
        for i in range(cap):
            if hit[i]:
                stat[i] = _row_extreme(is_max, dist[i])


@njit(cache=True, nogil=True)
def advise_agent(
    kind: int,
    param: float,
    dist: np.ndarray,
    stat: np.ndarray,
    points: np.ndarray,
    x: np.ndarray,
    d: np.ndarray,
    size: int,
    slot: int,
    is_max: bool,
    exact: bool,
    fill: float,
) -> float:
    """One agent's advice on `x` (distances `d` to its members by slot); observes `x`."""
    p = _score(kind, param, stat, d, size)
    hit = np.empty(stat.shape[0], dtype=np.bool_)
    _observe(dist, stat, points, x, d, size, slot, is_max, exact, fill, hit)
    return p


@njit(cache=True, nogil=True)
def advise_group(
    x: np.ndarray,
    d_all: np.ndarray,
    buffer: np.ndarray,
    buffer_next: int,
    kinds: np.ndarray,
    params: np.ndarray,
    state: np.ndarray,
    fills: np.ndarray,
    dists: tuple[np.ndarray, ...],
    stats: tuple[np.ndarray, ...],
    points: tuple[np.ndarray, ...],
    slot_maps: tuple[np.ndarray, ...],
    out: np.ndarray,
    where: np.ndarray,
) -> None:
    """Every agent of a group advises on `x` into ``out[where[k]]``, given the distances
    `d_all` from `x` to the shared buffer; all windows slide and `x` joins the buffer.

    ``state[k]`` holds agent k's window size, next slot, is-max and exact flags; sizes and
    next slots are advanced here (the caller copies them back to the agents).
    """
    cap_max = 0
    for k in range(len(stats)):
        cap_max = max(cap_max, stats[k].shape[0])
    d = np.empty(cap_max)
    hit = np.empty(cap_max, dtype=np.bool_)
    for k in range(len(stats)):
        size, slot = state[k, 0], state[k, 1]
        cap = stats[k].shape[0]
        slot_map = slot_maps[k]
        for i in range(size):
            d[i] = d_all[slot_map[i]]
        out[where[k]] = _score(kinds[k], params[k], stats[k], d, size)
        is_max, exact = state[k, 2] != 0, state[k, 3] != 0
        _observe(dists[k], stats[k], points[k], x, d, size, slot, is_max, exact, fills[k], hit)
        slot_map[slot] = buffer_next
        state[k, 0] = size + 1 if size < cap else size
        state[k, 1] = slot + 1 if slot + 1 < cap else 0
    buffer[buffer_next, :] = x
