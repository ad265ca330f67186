"""A stream's event log: appends fenced by the stream's last sequence number and its lease,
and reading the log back for a replay."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, select

from cbeal.service.store.bulk import insert_rows, json_text, run
from cbeal.service.store.tables import events

__all__ = ["LeaseLost", "append_events", "now", "read_events"]


class LeaseLost(RuntimeError):
    """Another process owns the stream now, or wrote to it: this process must reload it."""


def now() -> float:
    """UTC seconds since the epoch."""
    return time.time()


# straight to the driver: every ingest and label runs it (see store.bulk)
_FENCE = (
    "UPDATE streams SET last_seq = {m}, lease_until = {m} "
    "WHERE id = {m} AND last_seq = {m} AND owner = {m}"
)
_EVENT_COLUMNS = ("stream_id", "seq", "kind", "payload", "created_at")


def append_events(
    conn: Connection,
    stream_id: int,
    owner: str,
    last_seq: int,
    kinds_payloads: list[tuple[str, dict[str, Any]]],
    lease_seconds: float,
) -> int:
    """Append events after `last_seq`; the stream row must still say `last_seq` and `owner`.

    This is the fencing check: a process that lost its lease (or any stale copy of a
    stream) fails here and writes nothing. Returns the new last sequence number.
    """
    t = now()
    new = last_seq + len(kinds_payloads)
    sql = _FENCE.format(m="?" if conn.dialect.paramstyle == "qmark" else "%s")
    _, count = run(conn, sql, (new, t + lease_seconds, stream_id, last_seq, owner))
    if count != 1:
        raise LeaseLost(f"stream {stream_id} moved on without this process")
    insert_rows(
        conn,
        events,
        _EVENT_COLUMNS,
        [
            (stream_id, last_seq + 1 + i, kind, json_text(payload), t)
            for i, (kind, payload) in enumerate(kinds_payloads)
        ],
    )
    return new


def read_events(conn: Connection, stream_id: int, after: int) -> list[Any]:
    return list(
        conn.execute(
            select(events.c.seq, events.c.kind, events.c.payload)
            .where(events.c.stream_id == stream_id, events.c.seq > after)
            .order_by(events.c.seq)
        )
    )
