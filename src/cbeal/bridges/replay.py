"""``cbeal replay``: stream a CSV or Parquet file into a running service, in time order.

Rows are sent in batches (idempotent by their id column, so a replay that was interrupted
can simply be run again). With ``create`` the stream is created first from the file's
first rows as its labelled set; with ``answer`` the label column plays the expert and
answers every task the service asks (a demo of the whole loop).

A historian's export (one row per part, a time column and a column per tag) is replayed
at its original pace with ``speed=1``, or ``speed`` times faster; without ``speed`` the
rows go as fast as the service takes them. The time column holds dates and times (any
format pandas reads; without a time zone they are taken as UTC) or numbers of seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.bridges.client import Client
from cbeal.core import InvalidInputError, ParameterError

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
        frame = frame.iloc[np.argsort(_seconds(frame, time_col), kind="stable")]
    drop = {c for c in (id_col, label, time_col, *exclude) if c}
    features = [
        c for c in frame.columns if c not in drop and pd.api.types.is_numeric_dtype(frame[c])
    ]
    return frame.reset_index(drop=True), features


def _seconds(frame: Any, time_col: str) -> Any:
    """The time column as seconds from its first row (numbers are taken as seconds)."""
    import pandas as pd

    column = frame[time_col]
    if pd.api.types.is_numeric_dtype(column):
        seconds = column.to_numpy(dtype=float)
    else:
        try:
            stamps = pd.to_datetime(column, utc=True, format="mixed")
        except (ValueError, TypeError) as exc:
            raise InvalidInputError(
                f"the time column {time_col!r} holds neither dates nor numbers of seconds "
                f"({' '.join(str(exc).split())[:150]}); name the right one with `time`"
            ) from None
        seconds = (stamps - stamps.iloc[0]).dt.total_seconds().to_numpy()
    if len(seconds) and np.isnan(seconds).any():
        row = int(np.flatnonzero(np.isnan(seconds))[0])
        raise InvalidInputError(f"the time column {time_col!r} is empty in row {row}")
    return seconds - (seconds[0] if len(seconds) else 0.0)


class _Pace:
    """When each row is due: at `speed` times the pace of the time column."""

    def __init__(
        self,
        offsets: Any,
        speed: float,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
    ) -> None:
        self.offsets, self.speed, self.clock, self.sleep = offsets, speed, clock, sleep
        self.start: float | None = None

    def due(self, lo: int, hi: int) -> int:
        """Wait until row `lo` is due; then the end of the rows due by now (at most `hi`)."""
        if self.start is None:  # the first row sent is due at once
            self.start = self.clock() - self.offsets[lo] / self.speed
        wait = self.start + self.offsets[lo] / self.speed - self.clock()
        if wait > 0:
            self.sleep(wait)
        now = (self.clock() - self.start) * self.speed  # in the file's seconds
        end = lo + 1
        while end < hi and self.offsets[end] <= now:
            end += 1
        return end


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
    speed: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any]:
    """Send the rows of `path` to stream `stream`; returns counts of what happened.

    `speed` replays at that many times the pace of `time_col` (1: the original pace;
    None: as fast as the service takes the rows). `clock` and `sleep` keep the pace.
    """
    if speed is not None:
        if time_col is None:
            raise ParameterError("`speed` needs the `time` column that gives the pace")
        if not speed > 0:
            raise ParameterError(f"`speed` must be positive (1: the original pace), got {speed}")
    frame, features = _table(
        Path(path), id_col=id_col, label=label, time_col=time_col, exclude=exclude or []
    )
    pace = None if speed is None else _Pace(_seconds(frame, str(time_col)), speed, clock, sleep)
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
    lo = start
    while lo < end:
        hi = min(end, lo + batch)
        if pace is not None:
            hi = pace.due(lo, hi)
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
        lo = hi
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
