"""Shared machinery of the window-based exploration agents (LD and SPF).

An agent whose arithmetic has a compiled twin (:mod:`cbeal.kernels.window`) declares it by
its :meth:`WindowAgent.kernel_spec`. A :class:`WindowGroup` shares one distance computation
among the agents of a metric and packs its agents' arrays for the compiled group kernel
through :meth:`WindowGroup.pack`, which it owns; numpy alone never needs the packing, and
the advice is the same either way.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar, TypeAlias

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError
from cbeal.core.window import KERNELS, METRICS, DistanceWindow, RingBuffer, euclidean_into

__all__ = ["KernelSpec", "WindowAgent", "WindowGroup", "compiled_alike"]

#: What the compiled window kernels need to know of an agent: ``(kind, parameter, is-max,
#: exact, fill)``, the kind 0 scoring as LD, 1 as SPF (:mod:`cbeal.kernels.window`).
KernelSpec: TypeAlias = tuple[int, float, bool, bool, float]


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
            raise ParameterError(
                f"window_size must be a whole number ≥ 2, got {self.window_size!r}"
            )
        if self.window_size < 2:
            raise ParameterError(f"window_size must be at least 2, got {self.window_size}")
        if self.metric not in METRICS:
            raise ParameterError(f"unknown metric {self.metric!r}; choose one of {sorted(METRICS)}")

    def _start(self, X0: np.ndarray) -> None:
        self._check_params()
        fill = 0.0 if self._extreme == "max" else np.inf
        self.window_ = DistanceWindow(int(self.window_size), X0.shape[1], self.metric, fill)
        self.stat_ = np.full(int(self.window_size), fill)
        for x in X0[-int(self.window_size) :]:
            self._observe(x, self.window_.distances(x))

    def advise_one(self, ctx: Context) -> float:
        return self.advise_given(ctx.x, self.window_.distances(ctx.x))

    def advise_given(self, x: np.ndarray, d: np.ndarray) -> float:
        """Advise on `x` whose distances to the members (by slot) are `d`; observes `x`."""
        kernel = KERNELS.get("agent")
        spec = None if kernel is None else self.kernel_spec()
        if kernel is not None and spec is not None:
            w = self.window_
            size, slot = w.size, w.next
            p = kernel(spec[0], spec[1], w.dist, self.stat_, w.points, x, d, size, slot, *spec[2:])
            w.size = size + 1 if size < w.capacity else size
            w.next = slot + 1 if slot + 1 < w.capacity else 0
            return float(p)
        p = self._score(d)
        self._observe(x, d)
        return p

    def kernel_spec(self) -> KernelSpec | None:
        """What the compiled window kernel needs to run this agent, or None when numpy
        runs it: an agent whose scoring has a compiled twin declares it here."""
        return None

    def _score(self, d: np.ndarray) -> float:
        raise NotImplementedError

    def _observe(self, x: np.ndarray, d: np.ndarray) -> None:
        """Insert `x` (distances `d` to the members, by slot) and keep the statistics exact."""
        w = self.window_
        stat = self.stat_
        is_max = self._extreme == "max"
        size = w.size
        if size < w.capacity:
            (np.maximum if is_max else np.minimum)(stat[:size], d, out=stat[:size])
            slot = w.push_with(x, d)
            row = w.dist[slot]  # unused cells hold the neutral fill value
            stat[slot] = row.max() if is_max else row.min()
            return
        # Full window: x replaces the oldest member, in its slot.
        slot = w.next
        D = w.dist
        n_stale = 0
        if self.exact_window:
            old = D[slot]  # distances to the member leaving (row = column: D is symmetric)
            # members whose extreme was attained at the member about to be evicted
            hit = old >= stat if is_max else old <= stat
            hit[slot] = False
            n_stale = int(np.count_nonzero(hit))
        (np.maximum if is_max else np.minimum)(stat, d, out=stat)
        w.points[slot] = x
        row = D[slot]
        row[:] = d
        row[slot] = w.fill
        D[:, slot] = row
        w.next = slot + 1 if slot + 1 < w.capacity else 0
        stat[slot] = row.max() if is_max else row.min()
        if n_stale:
            stale = np.flatnonzero(hit)
            rows = D[stale]
            stat[stale] = rows.max(axis=1) if is_max else rows.min(axis=1)


class WindowGroup:
    """Window agents of one metric sharing a single distance computation per sample.

    Every agent's window is a suffix of the stream, so one buffer of the last ``L_max``
    samples holds all of them: the distances from a new sample to that buffer are computed
    once and each agent reads its own members through ``slot_map`` (agent slot -> buffer
    slot). Decisions are the same as with the agents computing their own distances.
    """

    # the compiled kernel's packed arguments (see pack) and the sample count they were
    # last in step with: never in a model file, packed again when needed
    _packed: tuple[Any, ...] | None = None
    _synced: int | None = None

    def __init__(self, agents: list[WindowAgent], X0: np.ndarray) -> None:
        self.agents = agents
        self.metric = agents[0].metric
        capacity = max(a.window_.capacity for a in agents)
        self.buffer = RingBuffer(capacity, X0.shape[1])
        self.count = 0
        for x in X0[-capacity:]:
            self._push(x)
        self.slot_maps = []
        for a in agents:
            # the agent's window holds the last `size` inputs of D0, in slots 0 … size-1
            size = a.window_.size
            self.slot_maps.append(
                np.array([(self.count - size + k) % capacity for k in range(a.window_.capacity)])
            )

    def _push(self, x: np.ndarray) -> None:
        self.buffer.push(x)
        self.count += 1

    def _modelfile_state(self) -> dict[str, Any]:
        """What a model file keeps: everything but the compiled kernels' packed arguments."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_packed", "_synced")}

    def pack(self, where: Any) -> tuple[Any, ...] | None:
        """The compiled group kernel's arguments (:func:`cbeal.kernels.window.advise_group`),
        or None if numpy must run (an agent declares no kernel: :meth:`WindowAgent.kernel_spec`).

        The agents' distance matrices, statistics and members, and the slot maps, become
        slices of four flat arrays (same values, each slice contiguous), so that the kernel
        gets four arrays rather than four tuples; a table holds each agent's kind, counters,
        flags and offsets, with `where` (the owner's fixed positions of the agents). Packed
        once: again only when the sharing was broken (a copy of the model: the first
        agent's arrays are then no slices) or the windows moved without the kernel (the
        numpy path ran: the counters are read again).
        """
        packed = self._packed
        if packed is not None and self.agents[0].stat_.base is packed[3]:
            if self._synced != self.count:
                table = packed[0]
                for k, a in enumerate(self.agents):
                    table[k, 1], table[k, 2] = a.window_.size, a.window_.next
            return packed
        found = [a.kernel_spec() for a in self.agents]
        specs = [spec for spec in found if spec is not None]
        if len(specs) < len(found):
            return None
        caps = [a.window_.capacity for a in self.agents]
        nf = self.buffer.points.shape[1]
        table = np.zeros((len(caps), 10), dtype=np.int64)
        reals = np.zeros((len(caps), 2))
        dists = np.empty(sum(c * c for c in caps))
        stats = np.empty(sum(caps))
        points = np.empty(sum(caps) * nf)
        maps = np.empty(sum(caps), dtype=np.int64)
        at_d = at_s = 0
        for k, (a, spec, cap) in enumerate(zip(self.agents, specs, caps, strict=True)):
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
            slot_map[...] = self.slot_maps[k]
            self.slot_maps[k] = slot_map
            at_d += cap * cap
            at_s += cap
        cap = self.buffer.capacity
        packed = (table, reals, dists, stats, points, maps, np.empty(cap), np.empty((cap, nf)))
        self._packed = packed
        return packed

    def advise_many(self, X: np.ndarray, out: np.ndarray, where: list[int]) -> bool:
        """Every agent of the group advises on each row of `X` in turn, into
        ``out[r, where]``, by one compiled call (:func:`cbeal.kernels.window.advise_group_many`);
        all windows slide by the rows. False, with nothing done, unless the kernels (with
        their own Euclidean distances) can run the group."""
        kernel = KERNELS.get("group_many")
        if kernel is None or self.metric != "euclidean" or "euclidean" not in KERNELS:
            return False
        packed = self.pack(where)
        if packed is None:
            return False
        table, reals, dists, stats, points, maps, d_all, _ = packed
        buf = self.buffer
        rows = np.ascontiguousarray(X, dtype=np.float64)
        kernel(rows, d_all, buf.points, buf.size, buf.next, table, reals, dists, stats, points,
               maps, out)  # fmt: skip
        n = rows.shape[0]
        for a in self.agents:  # the counters the kernel moved in its table, n steps each
            w = a.window_
            w.size = min(w.size + n, w.capacity)
            w.next = (w.next + n) % w.capacity
        buf.size = min(buf.size + n, buf.capacity)
        buf.next = (buf.next + n) % buf.capacity
        self.count += n
        self._synced = self.count
        return True

    def advise_into(self, x: np.ndarray, out: np.ndarray, where: list[int]) -> None:
        """Advice of every agent of the group on `x` into ``out[where]``; all windows slide.

        With the compiled kernels registered (:data:`~cbeal.core.window.KERNELS`) one call
        does the work of :meth:`advise` (with the distances, when the compiled ones are
        numpy's on this machine); the advice is the same.
        """
        kernel = KERNELS.get("group")
        packed = None if kernel is None else self.pack(where)
        if kernel is None or packed is None:
            out[where] = self.advise(x)
            return
        table, reals, dists, stats, points, maps, d_all, diff = packed
        buf = self.buffer
        n = buf.size
        compute = self.metric == "euclidean" and "euclidean" in KERNELS
        if compute:  # the kernel computes them
            pass
        elif self.metric == "euclidean":
            euclidean_into(buf.points[:n], x, diff[:n], d_all[:n])
        else:
            d_all[:n] = METRICS[self.metric](buf.points[:n], x)
        kernel(x, d_all, compute, buf.points, n, buf.next, table, reals, dists, stats, points,
               maps, out)  # fmt: skip
        for a in self.agents:
            w = a.window_
            size, slot = w.size, w.next
            w.size = size + 1 if size < w.capacity else size
            w.next = slot + 1 if slot + 1 < w.capacity else 0
        buf.size = n + 1 if n < buf.capacity else n
        buf.next = buf.next + 1 if buf.next + 1 < buf.capacity else 0
        self.count += 1
        self._synced = self.count

    def advise(self, x: np.ndarray) -> list[float]:
        """Advice of every agent of the group on `x`; all windows slide."""
        buf = self.buffer
        d_all = METRICS[self.metric](buf.points[: buf.size], x)
        slot_new = buf.next
        out = []
        for agent, slot_map in zip(self.agents, self.slot_maps, strict=True):
            w = agent.window_
            slot = w.next
            out.append(agent.advise_given(x, d_all[slot_map[: w.size]]))
            slot_map[slot] = slot_new
        self._push(x)
        return out


@functools.cache
def compiled_alike(
    cls: type[WindowAgent], owner: type[WindowAgent], names: tuple[str, ...]
) -> bool:
    """Whether `cls` computes as `owner`, whose kernel it would inherit: the same window
    step, extreme and methods `names` (a subclass that changes them runs on numpy)."""
    same = cls._observe is WindowAgent._observe and cls.advise_given is WindowAgent.advise_given
    return (
        same
        and cls._extreme == owner._extreme
        and all(getattr(cls, n) is getattr(owner, n) for n in names)
    )
