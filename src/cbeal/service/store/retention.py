"""Retention's SQL: which unlabelled samples may leave, removing them once archived, the event
log a checkpoint covers, and the database's size.

A sample may leave when it is older than the retention, a checkpoint covers it (its sequence
number is at or below the latest checkpoint's), and no task refers to it (it was not asked:
labelled samples, open tasks and pending decisions all have a task row). Samples arrive in
sequence order with rising arrival times, so the samples that may leave are, per stream, every
task-less sample up to a sequence number: the archive records how far it got
(``streams.archived_through``), which makes a repeated step after a crash find the same rows.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Text, and_, cast, delete, exists, func, select, text, update

from cbeal.service.store.tables import checkpoints, events, samples, streams, tasks

__all__ = [
    "archive_position",
    "archived_rows",
    "database_bytes",
    "oldest_waiting",
    "prune_events",
    "remove_archived",
]

_NO_TASK = ~exists().where(tasks.c.sample_pk == samples.c.id)


def archive_position(conn: Connection, stream_id: int) -> tuple[int, int, int]:
    """(archived through seq, samples archived, latest checkpoint seq or 0) of a stream."""
    through, count = conn.execute(
        select(streams.c.archived_through, streams.c.archived).where(streams.c.id == stream_id)
    ).one()
    covered = conn.execute(
        select(func.max(checkpoints.c.seq)).where(checkpoints.c.stream_id == stream_id)
    ).scalar_one()
    return int(through), int(count), int(covered or 0)


def archived_rows(
    conn: Connection, stream_id: int, after: int, upto: int, before: float, limit: int
) -> list[Any]:
    """The next samples that may leave: no task, seq in (`after`, `upto`], received before
    `before`; in sequence order, at most `limit`. ``x``, ``prediction`` and ``decision``
    come as JSON text."""
    return list(
        conn.execute(
            select(  # the JSON columns as their text: written to the archive as it is
                samples.c.sample_id,
                samples.c.seq,
                cast(samples.c.x, Text).label("x"),
                samples.c.received_at,
                samples.c.decision_id,
                samples.c.acquire,
                samples.c.p_acquire,
                cast(samples.c.prediction, Text).label("prediction"),
                samples.c.certainty,
                samples.c.model_version,
                cast(samples.c.decision, Text).label("decision"),
            )
            .where(
                samples.c.stream_id == stream_id,
                samples.c.seq > after,
                samples.c.seq <= upto,
                samples.c.received_at < before,
                _NO_TASK,
            )
            .order_by(samples.c.seq)
            .limit(limit)
        )
    )


def remove_archived(
    conn: Connection, stream_id: int, after: int, through: int, before: float
) -> int:
    """Delete the samples :func:`archived_rows` found in (`after`, `through`] (written to
    the archive) and move the stream's mark; 0 when another process moved it first. The
    number deleted."""
    moved = conn.execute(
        update(streams)
        .where(streams.c.id == stream_id, streams.c.archived_through == after)
        .values(archived_through=through)
    ).rowcount
    if moved != 1:
        return 0
    gone = conn.execute(
        delete(samples).where(
            samples.c.stream_id == stream_id,
            samples.c.seq > after,
            samples.c.seq <= through,
            samples.c.received_at < before,
            _NO_TASK,
        )
    ).rowcount
    conn.execute(
        update(streams).where(streams.c.id == stream_id).values(archived=streams.c.archived + gone)
    )
    return int(gone)


def prune_events(conn: Connection, stream_id: int, before: float) -> int:
    """Delete the events older than `before` that both kept checkpoints cover (a replay
    starts at the latest, or the one before it); the number deleted."""
    kept = conn.execute(
        select(func.min(checkpoints.c.seq)).where(checkpoints.c.stream_id == stream_id)
    ).scalar_one()
    if kept is None:
        return 0
    return int(
        conn.execute(
            delete(events).where(
                and_(
                    events.c.stream_id == stream_id,
                    events.c.seq <= int(kept),
                    events.c.created_at < before,
                )
            )
        ).rowcount
    )


def oldest_waiting(conn: Connection, stream_id: int, after: int) -> float | None:
    """When the oldest task-less sample after `after` arrived (None: none)."""
    return conn.execute(  # arrival times rise with seq: the first one is the oldest
        select(samples.c.received_at)
        .where(samples.c.stream_id == stream_id, samples.c.seq > after, _NO_TASK)
        .order_by(samples.c.seq)
        .limit(1)
    ).scalar()


def database_bytes(conn: Connection) -> int:
    """The database's size on disk: SQLite's pages in use and free plus its write-ahead log
    is the file size; PostgreSQL's ``pg_database_size``."""
    if conn.dialect.name == "sqlite":
        pages = conn.execute(text("PRAGMA page_count")).scalar_one()
        size = conn.execute(text("PRAGMA page_size")).scalar_one()
        return int(pages) * int(size)
    return int(conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one())
