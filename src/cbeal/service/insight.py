"""What the expert's page shows beside the numbers: a sample against the labelled pool, and a
stream's history for the dashboard."""

from __future__ import annotations

from typing import Any

import numpy as np
from sqlalchemy import select

from cbeal.service.schema import samples, tasks
from cbeal.service.streams import Streams

__all__ = ["failure_class", "history", "sample_context"]

POOL_STATES = ("initial", "labelled", "learned")


def failure_class(config: Any) -> Any:
    """The class shown in red everywhere: the configured one, else D0's rarest, else the last."""
    if getattr(config, "failure_class", None) is not None:
        return config.failure_class
    if config.initial is not None:
        counts = {
            repr(c): sum(repr(y) == repr(c) for y in config.initial.y) for c in config.classes
        }
        present = [c for c in config.classes if counts[repr(c)] > 0]
        if len(present) >= 2:
            return min(reversed(present), key=lambda c: counts[repr(c)])
    return config.classes[-1]


def _pool(streams: Streams, stream_id: int) -> tuple[np.ndarray, list[Any]]:
    """Raw rows and labels of every labelled sample (D0 and the answered tasks)."""
    q = (
        select(samples.c.x, tasks.c.label)
        .select_from(samples.join(tasks, tasks.c.sample_pk == samples.c.id))
        .where(samples.c.stream_id == stream_id, tasks.c.status.in_(POOL_STATES))
    )
    with streams.engine.connect() as conn:
        rows = conn.execute(q).all()
    X = np.array([[np.nan if v is None else v for v in r.x] for r in rows], dtype=float)
    return X.reshape(len(rows), -1), [r.label for r in rows]


def sample_context(streams: Streams, view: dict[str, Any], top: int = 8) -> dict[str, Any]:
    """Each feature of a task's sample against the labelled pool: percentile, z-score and
    whether it is unusual; strips of the most unusual features (pool values by class)."""
    runtime = streams.get(view["stream"])
    features = runtime.config.features
    X, y = _pool(streams, runtime.stream_id)
    x = np.array([np.nan if v is None else v for v in view["x"]], dtype=float)
    rows = []
    for j, name in enumerate(features):
        col = X[:, j] if X.size else np.empty(0)
        col = col[~np.isnan(col)]
        v = x[j]
        item: dict[str, Any] = {
            "name": name,
            "value": None if np.isnan(v) else float(v),
            "percentile": None,
            "z": None,
            "unusual": False,
        }
        if not np.isnan(v) and col.size >= 2:
            pct = 100.0 * (np.mean(col < v) + 0.5 * np.mean(col == v))
            std = float(col.std())
            z = (v - float(col.mean())) / std if std > 0 else 0.0
            item.update(
                percentile=round(pct, 1),
                z=round(z, 2),
                unusual=bool(abs(z) >= 2.0 or pct <= 2.5 or pct >= 97.5),
            )
        rows.append(item)
    order = sorted(range(len(rows)), key=lambda j: -abs(rows[j]["z"] or 0.0))
    labels = np.array([repr(v) for v in y], dtype=object)
    rng = np.random.default_rng(0)  # the same subsample at every view of the task
    strips = []
    for j in order[:top]:
        by_class = {}
        for c in runtime.config.classes:
            vals = X[labels == repr(c), j] if X.size else np.empty(0)
            vals = vals[~np.isnan(vals)]
            if vals.size > 200:
                vals = rng.choice(vals, 200, replace=False)
            by_class[str(c)] = [round(float(v), 6) for v in vals]
        strips.append({"name": features[j], "value": rows[j]["value"], "pool": by_class})
    return {
        "features": [rows[j] for j in order],
        "strips": strips,
        "pool_size": len(y),
        "failure_class": failure_class(runtime.config),
        "classes": runtime.config.classes,
    }


def history(streams: Streams, name: str, points: int = 60, last: int = 20_000) -> dict[str, Any]:
    """Time series of the stream in `points` bins over its last `last` samples."""
    runtime = streams.get(name)
    sid = runtime.stream_id
    with streams.engine.connect() as conn:
        srows = conn.execute(
            select(
                samples.c.received_at,
                samples.c.acquire,
                samples.c.model_version,
                samples.c.decision,
            )
            .where(samples.c.stream_id == sid, samples.c.seq > 0)
            .order_by(samples.c.seq.desc())
            .limit(last)
        ).all()[::-1]
        trows = conn.execute(
            select(
                tasks.c.created_at,
                tasks.c.labelled_at,
                tasks.c.learned_at,
                tasks.c.status,
                tasks.c.label,
                tasks.c.correct,
            ).where(tasks.c.stream_id == sid, tasks.c.status != "initial")
        ).all()
    fail = repr(failure_class(runtime.config))
    out: dict[str, Any] = {
        "failure_class": failure_class(runtime.config),
        "agents": list(runtime.model.agent_names) if runtime.model else [],
        "budget": runtime.status().get("budget"),
        "bins": [],
    }
    if not srows:
        return out
    t = np.array([r.received_at for r in srows])
    lo, hi = float(t[0]), float(t[-1]) + 1e-6
    edges = np.linspace(lo, hi, points + 1)
    acq = np.array([r.acquire for r in srows])
    labelled_at = (
        np.array([r.labelled_at if r.labelled_at is not None else np.inf for r in trows])
        if trows
        else np.empty(0)
    )
    created = np.array([r.created_at for r in trows]) if trows else np.empty(0)
    answered = sorted(r.labelled_at for r in trows if r.labelled_at is not None)
    for b in range(points):
        a, z = edges[b], edges[b + 1]
        inside = (t >= a) & (t < z)
        weights = [
            r.decision["weights"]
            for r, m in zip(srows, inside, strict=True)
            if m and "weights" in r.decision
        ]
        done = [r for r in trows if r.labelled_at is not None and a <= r.labelled_at < z]
        learned = [
            r
            for r in trows
            if r.correct is not None and r.learned_at is not None and r.learned_at < z
        ]
        gaps = np.diff([x for x in answered if a <= x < z])
        out["bins"].append(
            {
                "t": float(z),
                "samples": int(inside.sum()),
                "samples_total": int((t < z).sum()),
                "asked": int((inside & acq).sum()),
                "asked_total": int((acq & (t < z)).sum()),
                "failures_labelled": sum(repr(r.label) == fail for r in done),
                "labels": len(done),
                "weights": np.mean(weights, axis=0).round(4).tolist() if weights else None,
                "prequential_accuracy": round(float(np.mean([r.correct for r in learned])), 4)
                if learned
                else None,
                "queue": int(np.sum((created < z) & (labelled_at >= z))) if trows else 0,
                "label_delay_s": float(np.median([r.labelled_at - r.created_at for r in done]))
                if done
                else None,
                "seconds_per_label": float(np.median(gaps[gaps < 600]))
                if (gaps < 600).any()
                else None,
                "model_version": max(
                    (r.model_version for r, m in zip(srows, inside, strict=True) if m), default=None
                ),
            }
        )
    return out
