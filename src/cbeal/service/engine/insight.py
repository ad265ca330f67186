"""What the expert's page shows beside the numbers: a sample against the labelled pool, and a
stream's history for the dashboard."""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.catalog import labels_allowed
from cbeal.service.engine.models import failure_class
from cbeal.service.engine.streams import Streams
from cbeal.service.store import reads
from cbeal.service.store.events import now

__all__ = ["history", "sample_context"]


def _pool(streams: Streams, stream_id: int) -> tuple[np.ndarray, list[Any]]:
    """Raw rows and labels of every labelled sample (D0 and the answered tasks)."""
    with streams.engine.connect() as conn:
        rows = reads.pool_rows(conn, stream_id)
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
    """Time series of the stream in `points` bins from its `last`-th latest sample to now.

    The last bin ends now and holds the values the stream's status shows (model version,
    prequential accuracy over every learned label), so the charts end where the tiles are,
    also while the line is idle.
    """
    runtime = streams.get(name)
    with runtime.lock:
        status = runtime.status()
    with streams.engine.connect() as conn:
        srows, trows = reads.history_rows(conn, runtime.stream_id, last)
    out: dict[str, Any] = {
        "failure_class": failure_class(runtime.config),
        "agents": list(runtime.model.agent_names) if runtime.model else [],
        "budget": status.get("budget"),
        "bins": [],
    }
    if not srows:
        return out
    t = np.array([r.received_at for r in srows])
    end = max(float(t[-1]), now(), *(r.learned_at or 0.0 for r in trows)) + 1e-6
    edges = np.linspace(float(t[0]), end, points + 1)
    versions = np.maximum.accumulate(np.array([r.model_version for r in srows]))
    spend = runtime.model.budget_ if runtime.model is not None else None
    first_seq = int(status.get("samples_seen", 0)) - len(srows)  # stream position of srows[0]
    cols = _task_columns(trows)
    for b in range(points):
        a, z = edges[b], edges[b + 1]
        inside = (t >= a) & (t < z)
        seen = int((t < z).sum())
        version = int(versions[seen - 1]) if seen else None
        if b == points - 1 and "model_version" in status:
            version = int(status["model_version"])  # retrains since the last sample count
        out["bins"].append(
            {
                "t": float(z),
                **_sample_bin(srows, inside, t < z),
                **_task_bin(trows, cols, a, z, repr(out["failure_class"])),
                "model_version": version,
                "budget_allowed": _allowed(spend, first_seq + seen),
            }
        )
    return out


def _allowed(spend: Any, t: int) -> int | None:
    """Labels the budget allows after `t` stream samples (None: no model yet)."""
    if spend is None:
        return None
    return labels_allowed(spend, max(t, 0)) if t > 0 else 0


def _sample_bin(srows: list[Any], inside: np.ndarray, before: np.ndarray) -> dict[str, Any]:
    acq = np.array([r.acquire for r in srows])
    weights = [
        r.decision["weights"]
        for r, m in zip(srows, inside, strict=True)
        if m and r.decision.get("weights")
    ]
    return {
        "samples": int(inside.sum()),
        "samples_total": int(before.sum()),
        "asked": int((inside & acq).sum()),
        "asked_total": int((acq & before).sum()),
        "weights": np.mean(weights, axis=0).round(4).tolist() if weights else None,
    }


def _task_columns(trows: list[Any]) -> dict[str, Any]:
    labelled = [r.labelled_at if r.labelled_at is not None else np.inf for r in trows]
    return {
        "labelled_at": np.array(labelled, dtype=float),
        "created": np.array([r.created_at for r in trows], dtype=float),
        "answered": sorted(r.labelled_at for r in trows if r.labelled_at is not None),
    }


def _task_bin(
    trows: list[Any], cols: dict[str, Any], a: float, z: float, fail: str
) -> dict[str, Any]:
    done = [r for r in trows if r.labelled_at is not None and a <= r.labelled_at < z]
    learned = [
        r for r in trows if r.correct is not None and r.learned_at is not None and r.learned_at < z
    ]
    gaps = np.diff([x for x in cols["answered"] if a <= x < z])
    queue = int(np.sum((cols["created"] < z) & (cols["labelled_at"] >= z))) if trows else 0
    return {
        "failures_labelled": sum(repr(r.label) == fail for r in done),
        "labels": len(done),
        "prequential_accuracy": round(float(np.mean([r.correct for r in learned])), 4)
        if learned
        else None,
        "queue": queue,
        "label_delay_s": float(np.median([r.labelled_at - r.created_at for r in done]))
        if done
        else None,
        "seconds_per_label": float(np.median(gaps[gaps < 600])) if (gaps < 600).any() else None,
    }
