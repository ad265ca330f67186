"""A stream's history for the dashboard's charts, kept up to date incrementally.

The rows behind the charts (the last ``LAST`` samples: arrival, asked, model version,
agent weights; every task beyond D0: its times, label and whether the model predicted it)
are held in memory with the stream and brought up to date on each call by reading only
what changed: the samples after the last one read, the tasks created since, and the tasks
still open or waiting to be learned. The bins are then computed with vectorised numpy, so
a repeated call costs milliseconds however long the stream (the first call reads the
window once).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from cbeal.catalog import labels_allowed
from cbeal.service.engine.models import failure_class
from cbeal.service.engine.streams import Streams
from cbeal.service.store import reads
from cbeal.service.store.events import now

__all__ = ["LAST", "MAX_POINTS", "History", "history"]

LAST = 20_000  # the samples the charts cover (the latest ones)
MAX_POINTS = 500  # bins per call, at most
_FINAL = ("learned", "cannot_tell", "expired")  # task states that never change again
_MAX_PENDING = 5_000  # more open tasks than this: read every task again instead


class History:
    """The rows of one stream's charts, read incrementally (hold :attr:`lock`)."""

    def __init__(self, last: int = LAST) -> None:
        self.last = last
        self.lock = threading.Lock()
        self.seq = 0  # the last sample read (D0 is at 0 and not charted)
        self.t = np.empty(0)
        self.acq = np.empty(0, dtype=bool)
        self.ver = np.empty(0, dtype=np.int64)
        self.weights: np.ndarray | None = None  # rows of agent weights (NaN: none)
        self.shares: np.ndarray | None = None  # asked samples: each agent's share (else NaN)
        self.tasks: dict[int, tuple[Any, ...]] = {}  # id -> the row
        self.max_task = 0

    # ------------------------------------------------------------------ reading
    def refresh(self, streams: Streams, stream_id: int) -> None:
        """Read the samples and tasks that changed since the last call."""
        with streams.engine.connect() as conn:
            fresh = reads.samples_since(conn, stream_id, self.seq, self.last)
            pending = [i for i, r in self.tasks.items() if r[3] not in _FINAL]
            if len(pending) > _MAX_PENDING:
                self.tasks, self.max_task, pending = {}, 0, []
            changed = reads.tasks_since(conn, stream_id, self.max_task, pending)
        if fresh:
            self._add_samples(fresh)
        for r in changed:
            row = (r.created_at, r.labelled_at, r.learned_at, r.status, r.label, r.correct)
            self.tasks[int(r.id)] = row
            self.max_task = max(self.max_task, int(r.id))

    def _add_samples(self, rows: list[Any]) -> None:
        self.seq = int(rows[-1].seq)
        w = [r.decision.get("weights") or None for r in rows]
        k = max((len(x) for x in w if x), default=0)
        new_w = np.full((len(rows), k), np.nan)
        for i, x in enumerate(w):
            if x and len(x) == k:
                new_w[i] = x
        new_s = np.full((len(rows), k), np.nan)
        for i, r in enumerate(rows):
            new_s[i] = _share(r.decision, k) if r.acquire else np.nan
        old_w, old_s = self.weights, self.shares
        if old_w is not None and old_w.shape[1] != k:  # the agents changed: keep the new
            old_w = np.full((len(self.t), k), np.nan)
            old_s = np.full((len(self.t), k), np.nan)
        self.t = np.concatenate([self.t, [r.received_at for r in rows]])[-self.last :]
        self.acq = np.concatenate([self.acq, [bool(r.acquire) for r in rows]])[-self.last :]
        self.ver = np.concatenate([self.ver, [r.model_version for r in rows]])[-self.last :]
        both = new_w if old_w is None else np.concatenate([old_w, new_w])
        self.weights = both[-self.last :]
        both = new_s if old_s is None else np.concatenate([old_s, new_s])
        self.shares = both[-self.last :]

    # ------------------------------------------------------------------ bins
    def bins(
        self, points: int, end: float, status: dict[str, Any], spend: Any, fail: str
    ) -> list[dict[str, Any]]:
        t = self.t
        edges = np.linspace(float(t[0]), end, points + 1)
        a, z = edges[:-1], edges[1:]
        order = np.sort(t)
        seen = np.searchsorted(order, z, side="left")  # samples before each bin's end
        inside = np.diff(np.concatenate([[np.searchsorted(order, a[0], side="left")], seen]))
        which = np.searchsorted(z, t, side="right")  # the bin of each sample
        keep = (which < points) & (t >= a[0])  # (before the first bin or at the end: none)
        asked = np.bincount(which[keep], weights=self.acq[keep], minlength=points)
        asked_before = np.cumsum(asked) + float(np.sum(self.acq[t < a[0]]))
        versions = np.maximum.accumulate(self.ver)
        weights = _weights_by_bin(self.weights, which, keep, points)
        drivers = _drivers_by_bin(self.shares, seen)
        first_seq = int(status.get("samples_seen", 0)) - len(t)  # stream position of t[0]
        tasks = _TaskColumns(self.tasks.values(), fail)
        out = []
        for b in range(points):
            n = int(seen[b])
            version = int(versions[n - 1]) if n else None
            if b == points - 1 and "model_version" in status:
                version = int(status["model_version"])  # retrains since the last sample
            out.append(
                {
                    "t": float(z[b]),
                    "samples": int(inside[b]),
                    "samples_total": n,
                    "asked": int(asked[b]),
                    "asked_total": int(asked_before[b]),
                    "weights": weights[b],
                    "drivers": drivers[b],
                    **tasks.bin(float(a[b]), float(z[b])),
                    "model_version": version,
                    "budget_allowed": _allowed(spend, first_seq + n),
                }
            )
        return out


def _weights_by_bin(
    weights: np.ndarray | None, which: np.ndarray, keep: np.ndarray, points: int
) -> list[list[float] | None]:
    """The mean agent weights of each bin's samples (None: none had weights)."""
    if weights is None or weights.shape[1] == 0:
        return [None] * points
    has = keep & ~np.isnan(weights).any(axis=1)
    counts = np.bincount(which[has], minlength=points)
    sums = np.stack(
        [
            np.bincount(which[has], weights=weights[has, j], minlength=points)
            for j in range(weights.shape[1])
        ],
        axis=1,
    )
    return [(sums[b] / counts[b]).round(4).tolist() if counts[b] else None for b in range(points)]


def _share(decision: dict[str, Any], k: int) -> np.ndarray:
    """Each agent's share of an asked sample's weighted advice (under score fusion: of its
    fused score); NaN where the decision has none to share."""
    w, a = decision.get("weights"), decision.get("advice")
    if not w or not a or len(w) != k or len(a) != k:
        return np.full(k, np.nan)
    part = np.asarray(w, dtype=float) * np.asarray(a, dtype=float)
    total = float(part.sum())
    return part / total if total > 0 else np.full(k, np.nan)


def _drivers_by_bin(shares: np.ndarray | None, seen: np.ndarray) -> list[list[float] | None]:
    """Which agents drove the asks: each agent's mean share over the samples asked up to
    each bin's end (None: nothing asked yet)."""
    if shares is None or shares.shape[1] == 0:
        return [None] * len(seen)
    valid = ~np.isnan(shares).any(axis=1)
    total = np.cumsum(np.where(valid[:, None], shares, 0.0), axis=0)
    count = np.cumsum(valid)
    out: list[list[float] | None] = []
    for n in seen:
        c = int(count[n - 1]) if n else 0
        out.append((total[n - 1] / c).round(4).tolist() if c else None)
    return out


class _TaskColumns:
    """The tasks as sorted columns, for per-bin counts by binary search."""

    def __init__(self, rows: Any, fail: str) -> None:
        rows = list(rows)
        answered = [r for r in rows if r[1] is not None]
        answered.sort(key=lambda r: r[1])
        self.at = np.array([r[1] for r in answered], dtype=float)
        self.delay = np.array([r[1] - r[0] for r in answered], dtype=float)
        self.failure = np.array([repr(r[4]) == fail for r in answered], dtype=bool)
        self.created = np.sort(np.array([r[0] for r in rows], dtype=float))
        learned = sorted((r[2], bool(r[5])) for r in rows if r[5] is not None and r[2] is not None)
        self.learned_at = np.array([x for x, _ in learned], dtype=float)
        self.right = np.cumsum([c for _, c in learned]) if learned else np.empty(0)

    def bin(self, a: float, z: float) -> dict[str, Any]:
        i, j = np.searchsorted(self.at, [a, z], side="left")
        gaps = np.diff(self.at[i:j])
        gaps = gaps[gaps < 600]
        n = int(np.searchsorted(self.learned_at, z, side="left"))
        queue = int(np.searchsorted(self.created, z, side="left")) - int(j)
        return {
            "failures_labelled": int(self.failure[i:j].sum()),
            "labels": int(j - i),
            "prequential_accuracy": round(float(self.right[n - 1] / n), 4) if n else None,
            "queue": max(queue, 0),
            "label_delay_s": float(np.median(self.delay[i:j])) if j > i else None,
            "seconds_per_label": float(np.median(gaps)) if gaps.size else None,
        }


def _allowed(spend: Any, t: int) -> int | None:
    """Labels the budget allows after `t` stream samples (None: no model yet)."""
    if spend is None:
        return None
    return labels_allowed(spend, max(t, 0)) if t > 0 else 0


def history(streams: Streams, name: str, points: int = 60) -> dict[str, Any]:
    """Time series of the stream in `points` bins (at most ``MAX_POINTS``) from its
    ``LAST``-th latest sample to now.

    The last bin ends now and holds the values the stream's status shows (model version,
    prequential accuracy over every learned label), so the charts end where the tiles are,
    also while the line is idle.
    """
    points = max(2, min(int(points), MAX_POINTS))
    runtime = streams.get(name)
    with runtime.lock:
        status = runtime.status()
        spend = runtime.model.budget_ if runtime.model is not None else None
        agents = list(runtime.model.agent_names) if runtime.model else []
        if runtime.history is None:
            runtime.history = History()
        kept: History = runtime.history
    out: dict[str, Any] = {
        "failure_class": failure_class(runtime.config),
        "agents": agents,
        "budget": status.get("budget"),
        "bins": [],
    }
    with kept.lock:  # one refresh at a time; ingest goes on meanwhile
        kept.refresh(streams, runtime.stream_id)
        if not len(kept.t):
            return out
        learned = [r[2] for r in kept.tasks.values() if r[2] is not None]
        end = max(float(kept.t[-1]), now(), *learned) + 1e-6
        out["bins"] = kept.bins(points, end, status, spend, repr(out["failure_class"]))
    return out
