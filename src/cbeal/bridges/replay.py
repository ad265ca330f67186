"""``cbeal replay``: stream a CSV or Parquet file into a running service, in time order.

Rows are sent in batches (idempotent by their id column, so a replay that was interrupted
can simply be run again). With ``create`` the stream is created first from the file's
first rows as its labelled set; with ``answer`` the label column plays the expert and
answers every task the service asks (a demo of the whole loop).

With a ``tolerance`` the label column holds measured values and ``create`` makes a
regression stream (its ``unit`` besides); ``answer`` sends a regression stream's labels
as numbers. ``labels`` reads the label column: the command line passes the checks
``cbeal run`` makes, so that a column of measured values without a tolerance, or of
classes with one, stops with the same message.

A historian's export (one row per part, a time column and a column per tag) is replayed
at its original pace with ``speed=1``, or ``speed`` times faster; without ``speed`` the
rows go as fast as the service takes them. The time column holds dates and times (any
format pandas reads; without a time zone they are taken as UTC) or numbers of seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.bridges.client import Client
from cbeal.core import InvalidInputError, ParameterError

__all__ = ["replay"]


def _table(
    path: Path, *, id_col: str | None, label: str | None, time_col: str | None, exclude: list[str]
) -> tuple[Any, list[str], list[str]]:
    """The rows (in time order), the feature columns (the numeric ones) and the other
    columns left out of the features (text)."""
    import pandas as pd

    from cbeal.streams.table import check_column
    from cbeal.streams.tablefile import decimal_commas, read_file

    # `cbeal run`'s reader: the separator and decimal commas detected, one-line errors
    frame, _ = read_file(path)
    for col, role, option in (
        (id_col, "id", "`id`"),
        (label, "label", "`label`"),
        (time_col, "time", "`time`"),
    ):
        if col is not None:
            check_column(col, list(frame.columns), role=role, option=option)
    frame, _ = decimal_commas(frame, skip=[c for c in (id_col,) if c])
    if time_col is not None:
        frame = frame.iloc[np.argsort(_seconds(frame, time_col), kind="stable")]
    drop = {c for c in (id_col, label, time_col, *exclude) if c}
    kept = [c for c in frame.columns if c not in drop]
    features = [c for c in kept if pd.api.types.is_numeric_dtype(frame[c])]
    ignored = [str(c) for c in kept if c not in features]
    return frame.reset_index(drop=True), features, ignored


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
    budget: str | None = None,
    budget_fraction: float | None = None,
    preset: str | None = None,
    learner: str | None = None,
    tolerance: float | None = None,
    unit: str | None = None,
    labels_per_part: int | None = None,
    second_opinion_below: float | None = None,
    labels: Callable[[Any, str, bool], Any] | None = None,
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
    """Send the rows of `path` to stream `stream`; returns counts of what happened,
    whether the labels were measured values, and the stream's status.

    `speed` replays at that many times the pace of `time_col` (1: the original pace;
    None: as fast as the service takes the rows). `clock` and `sleep` keep the pace.
    `learner` of a created stream: default logreg, or with a `tolerance` the service's
    regressor. `labels_per_part` and `second_opinion_below` of a created stream: how many
    experts answer each part (the service's defaults when None).
    `labels(frame, label, measured)` gives the label column's values, measured
    values or classes, or raises saying what to do (default: the column as it is).
    """
    new = _NewStream(
        initial=initial,
        budget=budget,
        budget_fraction=budget_fraction,
        preset=preset,
        learner=learner,
        tolerance=tolerance,
        unit=unit,
        labels_per_part=labels_per_part,
        second_opinion_below=second_opinion_below,
    )
    if speed is not None:
        if time_col is None:
            raise ParameterError("`speed` needs the `time` column that gives the pace")
        if not speed > 0:
            raise ParameterError(f"`speed` must be positive (1: the original pace), got {speed}")
    frame, features, ignored = _table(
        Path(path), id_col=id_col, label=label, time_col=time_col, exclude=exclude or []
    )
    pace = None if speed is None else _Pace(_seconds(frame, str(time_col)), speed, clock, sleep)
    client = Client(url, token, on_retry=on_retry, retry_for=retry_for)
    ids = (frame[id_col].astype(str) if id_col else frame.index.map(lambda i: f"row-{i}")).tolist()
    missing = create and stream not in client.call("GET", "/api/v1/streams")["streams"]
    if missing and label is None:
        raise ValueError("creating a stream needs the label column (label=...)")
    measured = tolerance is not None
    if not missing and label is not None and (answer or measured):
        measured = _measured(client, stream, tolerance)
    truth = None
    if label is not None:
        values = labels(frame, label, measured) if labels else frame[label]
        truth = [_number(v, label) if measured else _plain(v) for v in values]
    start = 0
    if missing and truth is not None:
        first = {"x": _rows(frame.iloc[:initial], features), "y": truth[:initial]}
        body = new.body(stream, features, measured, truth)
        client.call(
            "POST", "/api/v1/streams", json={**body, "initial": {**first, "ids": ids[:initial]}}
        )
        start = initial
    end = len(frame) if limit is None else min(len(frame), start + limit)
    sender = _Sender(client, stream, features, ids, batch, pace, progress)
    answers = None if not answer or truth is None else (truth, Path(path).name)
    sent, asked, answered = sender.send(frame, start, end, answers)
    return {
        "sent": sent,
        "asked": asked,
        "answered": answered,
        "measured": measured,
        "ignored": ignored,
        "status": client.call("GET", f"/api/v1/streams/{stream}"),
    }


@dataclass(frozen=True)
class _NewStream:
    """What a stream created by the replay is made of, checked before any row is read."""

    initial: int
    budget: str | None
    budget_fraction: float | None
    preset: str | None
    learner: str | None
    tolerance: float | None
    unit: str | None
    labels_per_part: int | None
    second_opinion_below: float | None

    def __post_init__(self) -> None:
        tolerance, below = self.tolerance, self.second_opinion_below
        if tolerance is not None and not (tolerance > 0 and np.isfinite(tolerance)):
            raise ParameterError(
                f"`tolerance` must be a number > 0, got {tolerance!r}: the half-width of the "
                "band around the measured value that counts as right, in the column's unit"
            )
        if below is not None and not 0 < below <= 1:
            raise ParameterError(
                f"`second_opinion_below` is a certainty in (0, 1], got {below!r}: "
                "a part the model was less sure of than this gets a second answer, e.g. 0.7"
            )
        if self.labels_per_part is not None and not 1 <= self.labels_per_part <= 10:
            raise ParameterError(
                f"`labels_per_part` is a whole number from 1 to 10, got {self.labels_per_part!r}"
            )
        if self.unit is not None and tolerance is None:
            raise ParameterError(
                "`unit` names the unit of measured values: give the `tolerance` too"
            )

    def body(
        self, stream: str, features: list[str], measured: bool, truth: list[Any]
    ) -> dict[str, Any]:
        """The stream's configuration (without its initial set); None: the service's."""
        what: dict[str, Any] = (
            {"task": "regression", "tolerance": self.tolerance, "unit": self.unit}
            if measured
            else {"classes": sorted(set(truth), key=str)}
        )
        given = {
            "learner": self.learner if measured else self.learner or "logreg",
            "budget": self.budget,
            "budget_fraction": self.budget_fraction,
            "preset": self.preset,
            "labels_per_part": self.labels_per_part,
            "second_opinion_below": self.second_opinion_below,
        }
        chosen = {k: v for k, v in {**what, **given}.items() if v is not None}
        return {"name": stream, "features": features, **chosen}


class _Sender:
    """Sends the rows in batches (at the pace, if any), answering the asked ones if told."""

    def __init__(
        self,
        client: Client,
        stream: str,
        features: list[str],
        ids: list[str],
        batch: int,
        pace: _Pace | None,
        progress: Callable[[int, int, int], None] | None,
    ) -> None:
        self.client, self.stream, self.features, self.ids = client, stream, features, ids
        self.batch, self.pace, self.progress = batch, pace, progress

    def send(
        self, frame: Any, start: int, end: int, answers: tuple[list[Any], str] | None
    ) -> tuple[int, int, int]:
        """Rows `start` to `end`: how many were sent, asked for and answered."""
        sent = asked = answered = 0
        by_id = dict(zip(self.ids, range(len(self.ids)), strict=True))
        lo = start
        while lo < end:
            hi = min(end, lo + self.batch)
            if self.pace is not None:
                hi = self.pace.due(lo, hi)
            rows = _rows(frame.iloc[lo:hi], self.features)
            samples = [
                {"id": self.ids[i], "x": r} for i, r in zip(range(lo, hi), rows, strict=True)
            ]
            reply = self.client.call(
                "POST", f"/api/v1/streams/{self.stream}/samples", json={"samples": samples}
            )
            sent += hi - lo
            asked += sum(d["acquire"] and not d["duplicate"] for d in reply["decisions"])
            if answers is not None:
                truth, file = answers
                answered += _answer(self.client, self.stream, truth, by_id, file)
            if self.progress is not None:
                self.progress(sent, asked, answered)
            lo = hi
        return sent, asked, answered


def _measured(client: Client, stream: str, tolerance: float | None) -> bool:
    """Whether the existing stream `stream` takes measured values (a regression stream)."""
    config = client.call("GET", f"/api/v1/streams/{stream}/config")
    measured = config.get("classes") is None
    if tolerance is not None and not measured:
        raise ParameterError(
            f"the stream {stream!r} exists and takes the classes {config['classes']}; leave "
            "out `tolerance`, or replay the measured values into a new stream"
        )
    return measured


def _answer(client: Client, stream: str, truth: list[Any], by_id: dict[str, int], file: str) -> int:
    """Answer the stream's open tasks from `truth`; stops (InvalidInputError) at a task for
    a part that is not in the file, which it gives back to the queue first."""
    n = 0
    while (task := client.call("GET", f"/api/v1/streams/{stream}/tasks/next")) is not None:
        row = by_id.get(task["sample_id"])
        if row is None:  # the file cannot answer it: an expert's (the lease goes back)
            release = {"request_id": f"replay-release-{task['task_id']}"}
            client.call("POST", f"/api/v1/tasks/{task['task_id']}/release", json=release)
            raise InvalidInputError(
                f"the stream {stream!r} asks about part {task['sample_id']!r} (task "
                f"{task['task_id']}), which is not in {file}: `answer` answers from the file "
                f"only; the {n} task(s) of its parts asked so far are answered, the rows sent "
                "are stored. Answer that task as an expert, or replay into a new stream"
            )
        value = truth[row]
        client.call(
            "POST",
            f"/api/v1/tasks/{task['task_id']}/label",
            json={"label": value, "request_id": f"replay-{task['task_id']}"},
        )
        n += 1
    return n


def _number(v: Any, label: str) -> float:
    """A measured value as a float; InvalidInputError for anything that is not one."""
    try:
        value = float(v) if not isinstance(v, (bool, np.bool_, str)) else float("nan")
    except (TypeError, ValueError):
        value = float("nan")
    if not np.isfinite(value):
        raise InvalidInputError(
            f"the label column {label!r} holds {_plain(v)!r}, not a measured value: a "
            "regression stream's labels are finite numbers such as 0.051"
        )
    return value


def _plain(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v
