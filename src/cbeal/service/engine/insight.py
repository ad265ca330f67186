"""What the expert's page shows beside the numbers: a sample against the labelled pool; and
for a regression stream's dashboard, the error of every learned label against the
tolerance band (a stream's history is :mod:`~cbeal.service.engine.history`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.core.regression import regression_scores
from cbeal.service.engine.models import failure_class
from cbeal.service.engine.streams import Streams
from cbeal.service.store import reads

__all__ = ["BAND_POINTS", "POOL_GROUP", "error_band", "sample_context"]

BAND_POINTS = 500  # the latest labels the band chart draws (the scores cover every label)
POOL_GROUP = "parts measured so far"  # a regression stream's pool has no classes: one group


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
    config = runtime.config
    groups = [POOL_GROUP] if config.classes is None else config.classes
    labels = np.array([POOL_GROUP if config.classes is None else repr(v) for v in y], dtype=object)
    rng = np.random.default_rng(0)  # the same subsample at every view of the task
    strips = []
    for j in order[:top]:
        by_class = {}
        for c in groups:
            group = c if config.classes is None else repr(c)
            vals = X[labels == group, j] if X.size else np.empty(0)
            vals = vals[~np.isnan(vals)]
            if vals.size > 200:
                vals = rng.choice(vals, 200, replace=False)
            by_class[str(c)] = [round(float(v), 6) for v in vals]
        strips.append({"name": features[j], "value": rows[j]["value"], "pool": by_class})
    return {
        "features": [rows[j] for j in order],
        "strips": strips,
        "pool_size": len(y),
        "failure_class": failure_class(config),
        "classes": groups,
        "task": config.task,
        "tolerance": config.tolerance,
        "unit": config.unit,
        "show_guess": bool(config.show_guess),
    }


def error_band(streams: Streams, name: str) -> dict[str, Any]:
    """A regression stream's learned labels against its tolerance band: each label's error
    ``y − ŷ`` (ŷ: the prediction made before the model learned it) for the latest
    ``BAND_POINTS``, and over every label RMSE, MAE and the share within ``± tolerance``.

    The labels are the parts the agents chose to ask about, so the share is that of the
    hard cases, not of the line's output."""
    runtime = streams.get(name)
    config = runtime.config
    if config.classes is not None:
        raise ValueError(
            f"stream {name!r} classifies parts; the error band is for a regression stream "
            "(its history and status show the share predicted right)"
        )
    with streams.engine.connect() as conn:
        rows = [
            r for r in reads.learned_values(conn, runtime.stream_id) if r.prediction is not None
        ]
    y = np.array([float(r.label) for r in rows])
    pred = np.array([float(r.prediction) for r in rows])
    tol = float(config.tolerance or 0.0)
    scores = regression_scores(y, pred, tol)
    latest = rows[-BAND_POINTS:]
    err = (y - pred)[-BAND_POINTS:]
    return {
        "tolerance": tol,
        "unit": config.unit,
        "labels": len(rows),
        "in_band": None if not rows else scores["in_band"],
        "rmse": None if not rows else scores["rmse"],
        "mae": None if not rows else scores["mae"],
        "points": [
            {
                "t": float(r.labelled_at),
                "sample_id": r.sample_id,
                "y": float(r.label),
                "y_pred": float(r.prediction),
                "error": round(float(e), 10),
                "inside": bool(abs(e) <= tol),
            }
            for r, e in zip(latest, err.tolist(), strict=True)
        ],
    }
