"""How the window agents meet the compiled kernels (:mod:`cbeal.kernels.window`): which
agents they can run, a group's arrays packed for them, and a batch's advice in one call.

Numpy alone never needs this module's packing; the kernels are looked up in
:data:`cbeal.core.window.KERNELS` at every call, and the advice is the same either way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.core.window import KERNELS

__all__ = ["advise_many", "group_advice", "kernel_spec", "pack", "prepare_ahead"]

_KINDS: dict[type, int] = {}  # class -> kernel kind (-1: none)


def _kind(cls: Any) -> int:
    """The compiled kernels' kind for agents of `cls`: 0 scores as LD, 1 as SPF, -1 when the
    class changes the arithmetic (its own score or observation: then numpy runs it)."""
    from cbeal.core.low_density import LowDensityAgent
    from cbeal.core.space_filling import SpaceFillingAgent
    from cbeal.core.window_agent import WindowAgent

    same = cls._observe is WindowAgent._observe and cls.advise_given is WindowAgent.advise_given
    if same and cls._score is LowDensityAgent._score and cls.lsf is LowDensityAgent.lsf:
        return 0 if cls._extreme == "max" else -1
    if same and cls._score is SpaceFillingAgent._score:
        return 1 if cls._extreme == "min" else -1
    return -1


def kernel_spec(agent: Any) -> tuple[int, float, bool, bool, float] | None:
    """What the compiled kernels need to know of `agent`: ``(kind, parameter, is-max,
    exact, fill)``, or None when numpy must run it."""
    cls = type(agent)
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _KINDS[cls] = _kind(cls)
    if kind < 0:
        return None
    if kind == 0:  # LD's divisor L · δ_L, as its _score computes it
        param = agent.window_size * agent.sparsity_fraction
        return 0, float(param), True, bool(agent.exact_window), 0.0
    return 1, 0.0, False, bool(agent.exact_window), np.inf


def pack(group: Any, where: Any) -> tuple[Any, ...] | None:
    """The compiled group kernel's arguments (:func:`cbeal.kernels.window.advise_group`)
    for a :class:`~cbeal.core.window_agent.WindowGroup`, or None if numpy must run.

    The agents' distance matrices, statistics and members, and the slot maps, become
    slices of four flat arrays (same values, each slice contiguous), so that the kernel
    gets four arrays rather than four tuples; a table holds each agent's kind, counters,
    flags and offsets, with `where` (the owner's fixed positions of the agents). Packed
    once: again only when the sharing was broken (a copy of the model: the first agent's
    arrays are then no slices) or the windows moved without the kernel (the numpy path
    ran: the counters are read again).
    """
    packed = group.__dict__.get("_packed")
    first = group.agents[0]
    if packed is not None and first.stat_.base is packed[3]:
        if group.__dict__.get("_synced") != group.count:
            table = packed[0]
            for k, a in enumerate(group.agents):
                table[k, 1], table[k, 2] = a.window_.size, a.window_.next
        return packed
    found = [kernel_spec(a) for a in group.agents]
    specs = [spec for spec in found if spec is not None]
    if len(specs) < len(found):
        return None
    caps = [a.window_.capacity for a in group.agents]
    nf = group.buffer.points.shape[1]
    table = np.zeros((len(caps), 10), dtype=np.int64)
    reals = np.zeros((len(caps), 2))
    dists = np.empty(sum(c * c for c in caps))
    stats = np.empty(sum(caps))
    points = np.empty(sum(caps) * nf)
    maps = np.empty(sum(caps), dtype=np.int64)
    at_d = at_s = 0
    for k, (a, spec, cap) in enumerate(zip(group.agents, specs, caps, strict=True)):
        w = a.window_
        kind, param, is_max, exact, fill = spec
        table[k] = (kind, w.size, w.next, is_max, exact, cap, at_d, at_s, at_s * nf, where[k])
        reals[k] = (param, fill)
        matrix = dists[at_d : at_d + cap * cap].reshape(cap, cap)
        matrix[...] = w.dist
        w.dist = matrix
        members = points[at_s * nf : (at_s + cap) * nf].reshape(cap, nf)
        members[...] = w.points
        w.points = members
        stat = stats[at_s : at_s + cap]
        stat[...] = a.stat_
        a.stat_ = stat
        slot_map = maps[at_s : at_s + cap]
        slot_map[...] = group.slot_maps[k]
        group.slot_maps[k] = slot_map
        at_d += cap * cap
        at_s += cap
    cap = group.buffer.capacity
    packed = (table, reals, dists, stats, points, maps, np.empty(cap), np.empty((cap, nf)))
    group.__dict__["_packed"] = packed
    return packed


def advise_many(group: Any, X: np.ndarray, out: np.ndarray, where: list[int]) -> bool:
    """Every agent of `group` advises on each row of `X` in turn, into ``out[r, where]``, by
    one compiled call (:func:`cbeal.kernels.window.advise_group_many`); all windows slide
    by the rows. False, with nothing done, unless the kernels (with their own Euclidean
    distances) can run the group."""
    kernel = KERNELS.get("group_many")
    if kernel is None or group.metric != "euclidean" or "euclidean" not in KERNELS:
        return False
    packed = pack(group, where)
    if packed is None:
        return False
    table, reals, dists, stats, points, maps, d_all, _ = packed
    buf = group.buffer
    rows = np.ascontiguousarray(X, dtype=np.float64)
    kernel(rows, d_all, buf.points, buf.size, buf.next, table, reals, dists, stats, points,
           maps, out)  # fmt: skip
    n = rows.shape[0]
    for a in group.agents:  # the counters the kernel moved in its table, n steps each
        w = a.window_
        w.size = min(w.size + n, w.capacity)
        w.next = (w.next + n) % w.capacity
    buf.size = min(buf.size + n, buf.capacity)
    buf.next = (buf.next + n) % buf.capacity
    group.count += n
    group.__dict__["_synced"] = group.count
    return True


def prepare_ahead(policy: Any, X: np.ndarray | None, n_agents: int) -> None:
    """Before a batch (``query_many``): the advice of `policy`'s window groups on every
    row of `X`, computed at once, for :func:`group_advice` to hand out row by row; None
    ends the batch. Window agents advise on the samples alone, never on the decisions, so
    the advice is that of the rows one by one. Nothing is computed ahead when a group
    cannot run compiled (the rows are then advised one by one)."""
    policy.__dict__["_ahead"] = None
    groups = policy._groups
    if X is None or X.shape[0] < 2 or not groups:
        return
    if not all(g.metric == "euclidean" and pack(g, idx) is not None for idx, g in groups):
        return
    if "group_many" not in KERNELS or "euclidean" not in KERNELS:
        return
    block = np.empty((X.shape[0], n_agents))
    for idx, group in groups:
        advise_many(group, X, block, idx)
    policy.__dict__["_ahead"] = [block, 0]


def group_advice(policy: Any, x: np.ndarray, n_agents: int) -> np.ndarray:
    """A fresh advice array with the window groups' advice on `x` filled in: the next row
    computed ahead by :func:`prepare_ahead`, or the groups advising now."""
    ahead = policy.__dict__.get("_ahead")
    if ahead is not None:
        block, k = ahead
        ahead[1] = k + 1
        if k + 1 == block.shape[0]:
            policy.__dict__["_ahead"] = None
        return block[k]
    out = np.empty(n_agents)
    for idx, group in policy._groups:
        group.advise_into(x, out, idx)
    return out
