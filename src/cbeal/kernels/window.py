"""The window agents' arithmetic compiled with numba: the same operations in the same order
as :mod:`cbeal.core.window_agent`, so the advice is the same bit for bit.

A group's Euclidean distances are computed here too, once :mod:`cbeal.kernels.distances`
has checked that its order of summation is numpy's on this build; otherwise numpy computes
them (``cbeal.core.window.METRICS``) and the kernel does the rest: each agent's score, the
update of its distance matrix and statistics, the shared buffer — in one call per sample
for a whole group of agents.

Agent kinds: 0 for LD (``lsf / (L · δ_L)``), 1 for SPF (nearest over the largest
nearest-neighbour distance).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cbeal.kernels.distances import euclidean_into

__all__ = ["advise_agent", "advise_group", "advise_group_many"]

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


#: Columns of a group's integer table, one row per agent (see ``WindowGroup.pack``).
KIND, SIZE, NEXT, IS_MAX, EXACT, CAP, AT_DIST, AT_STAT, AT_POINTS, OUT = range(10)


@njit(cache=True, nogil=True)
def advise_group(
    x: np.ndarray,
    d_all: np.ndarray,
    compute: bool,
    buffer: np.ndarray,
    buffer_size: int,
    buffer_next: int,
    table: np.ndarray,
    reals: np.ndarray,
    dists: np.ndarray,
    stats: np.ndarray,
    points: np.ndarray,
    slot_maps: np.ndarray,
    out: np.ndarray,
) -> None:
    """Every agent of a group advises on `x` into ``out[table[k, OUT]]``; all windows
    slide and `x` joins the shared buffer.

    The agents' arrays are slices of four flat arrays (`dists`, `stats`, `points`,
    `slot_maps`) at the offsets of `table`, whose other columns hold each agent's kind,
    window size, next slot, is-max and exact flags and capacity (sizes and next slots are
    advanced here; the caller advances the agents' own counters alike); ``reals[k]`` holds
    its parameter and fill value. With `compute` the distances from `x` to the buffer are
    computed here (:mod:`cbeal.kernels.distances`) into `d_all`, else `d_all` holds them.
    One call per sample, with arrays only: numba prices every tuple argument at about
    0.6 µs a member, arrays at 0.08 µs.
    """
    if compute:
        euclidean_into(buffer, buffer_size, x, d_all)
    d, hit = _scratch(table)
    _advise(x, d_all, buffer_next, table, reals, dists, stats, points, slot_maps, out, d, hit)
    buffer[buffer_next, :] = x


@njit(cache=True, nogil=True)
def advise_group_many(
    X: np.ndarray,
    d_all: np.ndarray,
    buffer: np.ndarray,
    buffer_size: int,
    buffer_next: int,
    table: np.ndarray,
    reals: np.ndarray,
    dists: np.ndarray,
    stats: np.ndarray,
    points: np.ndarray,
    slot_maps: np.ndarray,
    out: np.ndarray,
) -> None:
    """:func:`advise_group` on every row of `X` in turn (the distances computed here), the
    advice on row r into ``out[r, table[k, OUT]]``: one call for a batch. The window
    agents' advice depends on the stream's samples only, never on the decisions drawn in
    between, so it is the advice of the rows one by one."""
    d, hit = _scratch(table)
    capacity = buffer.shape[0]
    for r in range(X.shape[0]):
        x = X[r]
        euclidean_into(buffer, buffer_size, x, d_all)
        _advise(
            x, d_all, buffer_next, table, reals, dists, stats, points, slot_maps, out[r], d, hit
        )
        buffer[buffer_next, :] = x
        buffer_size = buffer_size + 1 if buffer_size < capacity else buffer_size
        buffer_next = buffer_next + 1 if buffer_next + 1 < capacity else 0


@njit(cache=True, nogil=True)
def _scratch(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Room for one agent's distances and stale flags, as long as the longest window."""
    cap_max = 0
    for k in range(table.shape[0]):
        cap_max = max(cap_max, table[k, CAP])
    return np.empty(cap_max), np.empty(cap_max, dtype=np.bool_)


@njit(cache=True, nogil=True)
def _advise(
    x: np.ndarray,
    d_all: np.ndarray,
    buffer_next: int,
    table: np.ndarray,
    reals: np.ndarray,
    dists: np.ndarray,
    stats: np.ndarray,
    points: np.ndarray,
    slot_maps: np.ndarray,
    out: np.ndarray,
    d: np.ndarray,
    hit: np.ndarray,
) -> None:
    """Every agent's advice on `x` (distances `d_all` to the buffer) and its window's step."""
    nf = x.shape[0]
    for k in range(table.shape[0]):
        size, slot, cap = table[k, SIZE], table[k, NEXT], table[k, CAP]
        at_d, at_s, at_p = table[k, AT_DIST], table[k, AT_STAT], table[k, AT_POINTS]
        dist = dists[at_d : at_d + cap * cap].reshape((cap, cap))
        stat = stats[at_s : at_s + cap]
        members = points[at_p : at_p + cap * nf].reshape((cap, nf))
        slot_map = slot_maps[at_s : at_s + cap]
        for i in range(size):
            d[i] = d_all[slot_map[i]]
        out[table[k, OUT]] = _score(table[k, KIND], reals[k, 0], stat, d, size)
        is_max, exact = table[k, IS_MAX] != 0, table[k, EXACT] != 0
        _observe(dist, stat, members, x, d, size, slot, is_max, exact, reals[k, 1], hit)
        slot_map[slot] = buffer_next
        table[k, SIZE] = size + 1 if size < cap else size
        table[k, NEXT] = slot + 1 if slot + 1 < cap else 0
