"""``cbeal replay``: stream a CSV or Parquet file into a running service, in time order.

Rows are sent in batches (idempotent by their id column, so a replay that was interrupted
can simply be run again). With ``create`` the stream is created first from the file's
first rows as its labelled set; with ``answer`` the label column plays the expert and
answers every task the service asks (a demo of the whole loop).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.bridges.client import Client

__all__ = ["replay"]


def _table(
    path: Path, *, id_col: str | None, label: str | None, time_col: str | None, exclude: list[str]
) -> tuple[Any, list[str]]:
    import pandas as pd

    frame = pd.read_parquet(path) if path.suffix in (".parquet", ".pq") else pd.read_csv(path)
    for col in (id_col, label, time_col):
        if col is not None and col not in frame.columns:
            raise ValueError(f"no column {col!r} in {path.name}; columns: {list(frame.columns)}")
    if time_col is not None:
        frame = frame.sort_values(time_col, kind="stable")
    drop = {c for c in (id_col, label, time_col, *exclude) if c}
    features = [
        c for c in frame.columns if c not in drop and pd.api.types.is_numeric_dtype(frame[c])
    ]
    return frame.reset_index(drop=True), features


def _rows(frame: Any, features: list[str]) -> list[list[float | None]]:
    values = frame[features].to_numpy(dtype=float)
    return [[None if np.isnan(v) else float(v) for v in row] for row in values]


def replay(
    path: str | Path,
    *,
    stream: str,
    url: str,
    token: str | None,
    id_col: str | None = None,
    label: str | None = None,
    time_col: str | None = None,
    batch: int = 100,
    create: bool = False,
    initial: int = 20,
    budget: str = "5%",
    learner: str = "logreg",
    answer: bool = False,
    limit: int | None = None,
    exclude: list[str] | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    on_retry: Callable[[Exception, float], None] | None = None,
    retry_for: float | None = 30.0,
) -> dict[str, Any]:
    """Send the rows of `path` to stream `stream`; returns counts of what happened."""
    frame, features = _table(
        Path(path), id_col=id_col, label=label, time_col=time_col, exclude=exclude or []
    )
    client = Client(url, token, on_retry=on_retry, retry_for=retry_for)
    ids = (frame[id_col].astype(str) if id_col else frame.index.map(lambda i: f"row-{i}")).tolist()
    truth = frame[label].tolist() if label else None
    start = 0
    if create and stream not in client.call("GET", "/api/v1/streams")["streams"]:
        if truth is None:
            raise ValueError("creating a stream needs the label column (label=...)")
        classes = sorted({_plain(v) for v in truth}, key=str)
        head = frame.iloc[:initial]
        client.call(
            "POST",
            "/api/v1/streams",
            json={
                "name": stream,
                "features": features,
                "classes": classes,
                "budget": budget,
                "learner": learner,
                "initial": {
                    "x": _rows(head, features),
                    "y": [_plain(v) for v in truth[:initial]],
                    "ids": ids[:initial],
                },
            },
        )
        start = initial
    end = len(frame) if limit is None else min(len(frame), start + limit)
    sent = asked = answered = 0
    by_id = dict(zip(ids, range(len(ids)), strict=True))
    for lo in range(start, end, batch):
        hi = min(end, lo + batch)
        rows = _rows(frame.iloc[lo:hi], features)
        reply = client.call(
            "POST",
            f"/api/v1/streams/{stream}/samples",
            json={
                "samples": [
                    {"id": ids[i], "x": r} for i, r in zip(range(lo, hi), rows, strict=True)
                ]
            },
        )
        sent += hi - lo
        asked += sum(d["acquire"] and not d["duplicate"] for d in reply["decisions"])
        if answer and truth is not None:
            answered += _answer(client, stream, truth, by_id)
        if progress is not None:
            progress(sent, asked, answered)
    return {
        "sent": sent,
        "asked": asked,
        "answered": answered,
        "status": client.call("GET", f"/api/v1/streams/{stream}"),
    }


def _answer(client: Client, stream: str, truth: list[Any], by_id: dict[str, int]) -> int:
    n = 0
    while (task := client.call("GET", f"/api/v1/streams/{stream}/tasks/next")) is not None:
        value = _plain(truth[by_id[task["sample_id"]]])
        client.call(
            "POST",
            f"/api/v1/tasks/{task['task_id']}/label",
            json={"label": value, "request_id": f"replay-{task['task_id']}"},
        )
        n += 1
    return n


def _plain(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v
