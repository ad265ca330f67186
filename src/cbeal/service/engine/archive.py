"""Retention: a stream's old unlabelled samples move to Parquet files and leave the database.

With `retain_seconds` and an `archive` folder DIR (``cbeal serve``'s retention): every
few seconds (a quarter of the retention, at least 1 s and at most a minute) each stream this
process serves is checkpointed, then its samples that are older than the retention, covered
by that checkpoint and never asked (no task: labelled samples, open tasks and pending
decisions stay) are written to

    DIR/stream=<name>/day=<YYYY-MM-DD of arrival, UTC>/part-<first seq>.parquet

and deleted from the database in one transaction that also moves the stream's archive mark
(``streams.archived_through``). A file is written whole before its rows are deleted: to a
temporary name, synced to disk, renamed, the folder synced. A process killed between the
two finds the same rows again from the same mark and writes the same file names over the
first ones (a superset of their rows), so nothing is lost and nothing is archived twice.
The event log before the older of the two kept checkpoints goes too, once it is older than
the retention: a replay starts at a checkpoint, and the samples, decisions and labels it
held are in the archive and the tasks.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cbeal.service.engine.runtime import Runtime
from cbeal.service.engine.streams import Streams
from cbeal.service.store import retention

__all__ = ["Archiver", "read_archive"]

log = logging.getLogger("cbeal.service")

_COLUMNS = (
    "sample_id",
    "seq",
    "received_at",
    "x",
    "acquire",
    "decision_id",
    "p_acquire",
    "prediction",
    "certainty",
    "model_version",
    "decision",
)
BATCH = 5_000  # samples per archive step and file, at most (a few MB in memory at a time)


class Archiver:
    """Moves old unlabelled samples of the owned streams to the archive (one thread only)."""

    def __init__(
        self,
        streams: Streams,
        folder: Path,
        retain_seconds: float,
        checkpoint: Callable[[str, Runtime], None],
    ) -> None:
        self.streams = streams
        self.folder = Path(folder)
        self.retain = float(retain_seconds)
        self.every = min(max(self.retain / 4.0, 1.0), 60.0)
        self.checkpoint = checkpoint
        self.lag: dict[str, float] = {}  # stream -> seconds its oldest waiting sample is late
        self.archived: dict[str, int] = {}  # stream -> samples in the archive
        self._last = 0.0

    def tick(self) -> None:
        """Run :meth:`step` when its interval has passed."""
        if time.monotonic() - self._last >= self.every:
            self._last = time.monotonic()
            self.step()

    def step(self, now: float | None = None) -> int:
        """Archive every owned stream's samples older than the retention; how many left."""
        moved = 0
        for name, runtime in self.streams.owned().items():
            if runtime.model is None:  # cold: no checkpoint yet to cover anything
                continue
            moved += self.archive_stream(name, runtime, time.time() if now is None else now)
        return moved

    def archive_stream(self, name: str, runtime: Runtime, now: float) -> int:
        before = now - self.retain
        engine = self.streams.engine
        with engine.connect() as conn:
            through, count, covered = retention.archive_position(conn, runtime.stream_id)
        if covered < runtime.seq:  # cover what may leave by a checkpoint first
            self.checkpoint(name, runtime)
            with engine.connect() as conn:
                through, count, covered = retention.archive_position(conn, runtime.stream_id)
        moved = 0
        while True:
            with engine.connect() as conn:
                rows = retention.archived_rows(
                    conn, runtime.stream_id, through, covered, before, BATCH
                )
            if not rows:
                break
            write_files(self.folder, name, rows)
            last = int(rows[-1].seq)
            with engine.begin() as conn:
                gone = retention.remove_archived(conn, runtime.stream_id, through, last, before)
            if gone == 0:  # another process moved the mark: it archives this stream
                break
            through, moved, count = last, moved + gone, count + gone
        with engine.begin() as conn:
            retention.prune_events(conn, runtime.stream_id, before)
            oldest = retention.oldest_waiting(conn, runtime.stream_id, through)
        self.lag[name] = 0.0 if oldest is None else max(0.0, before - float(oldest))
        self.archived[name] = count
        return moved


# ---------------------------------------------------------------------- files
def _day(t: float) -> str:
    return dt.datetime.fromtimestamp(t, tz=dt.timezone.utc).strftime("%Y-%m-%d")


def write_files(folder: Path, name: str, rows: list[Any]) -> list[Path]:
    """Write `rows` (in seq order; JSON columns as text) as one file per arrival day; the
    files written."""
    import orjson
    import pyarrow as pa

    by_day: dict[str, list[Any]] = {}
    for r in rows:
        by_day.setdefault(_day(float(r.received_at)), []).append(r)
    out = []
    for day, part in by_day.items():
        table = pa.table(
            {
                "sample_id": pa.array([r.sample_id for r in part], pa.string()),
                "seq": pa.array([int(r.seq) for r in part], pa.int64()),
                "received_at": pa.array([float(r.received_at) for r in part], pa.float64()),
                "x": pa.array([orjson.loads(r.x) for r in part], pa.list_(pa.float64())),
                "acquire": pa.array([bool(r.acquire) for r in part], pa.bool_()),
                "decision_id": pa.array([r.decision_id for r in part], pa.string()),
                "p_acquire": pa.array([float(r.p_acquire) for r in part], pa.float64()),
                "prediction": pa.array([r.prediction for r in part], pa.string()),
                "certainty": pa.array([r.certainty for r in part], pa.float64()),
                "model_version": pa.array([int(r.model_version) for r in part], pa.int64()),
                "decision": pa.array([r.decision for r in part], pa.string()),
            }
        )
        path = folder / f"stream={name}" / f"day={day}" / f"part-{int(part[0].seq):012d}.parquet"
        _write_durably(path, table)
        out.append(path)
    pa.default_memory_pool().release_unused()  # Arrow's own allocator keeps freed memory
    return out


def _write_durably(path: Path, table: Any) -> None:
    """Write `table` to `path` so that it is whole on disk before this returns."""
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    # a name of its own: two writers of the same file (a test's step beside the loop's, or
    # the old and the new owner of a stream) never share a temporary file
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    pq.write_table(table, tmp)
    _fsync(tmp)
    os.replace(tmp, path)
    _fsync(path.parent)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_archive(folder: Path, name: str) -> Any:
    """Every archived sample of stream `name` in seq order (a pandas DataFrame; ``x`` holds
    the feature values in the stream's order, ``prediction`` and ``decision`` JSON text)."""
    import pandas as pd
    import pyarrow.parquet as pq

    files = sorted((Path(folder) / f"stream={name}").glob("day=*/part-*.parquet"))
    if not files:
        return pd.DataFrame(columns=_COLUMNS)
    frame = pd.concat([pq.read_table(f).to_pandas() for f in files], ignore_index=True)
    return frame.drop_duplicates("seq").sort_values("seq", ignore_index=True)
