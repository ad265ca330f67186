"""A stream's event log: appends fenced by the stream's last sequence number and its lease,
and reading the log back for a replay."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, bindparam, select, update

from cbeal.service.store.bulk import insert_rows, json_text
from cbeal.service.store.tables import events, streams

__all__ = ["LeaseLost", "append_events", "now", "read_events"]


class LeaseLost(RuntimeError):
    """Another process owns the stream now, or wrote to it: this process must reload it."""


def now() -> float:
    """UTC seconds since the epoch."""
    return time.time()


# built once (every ingest and label runs them); the b_ names stay clear of column names
_FENCE = (
    update(streams)
    .where(
        streams.c.id == bindparam("b_id"),
        streams.c.last_seq == bindparam("b_seq"),
        streams.c.owner == bindparam("b_owner"),
    )
    .values(last_seq=bindparam("b_new"), lease_until=bindparam("b_until"))
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
    res = conn.execute(
        _FENCE,
        {
            "b_id": stream_id,
            "b_seq": last_seq,
            "b_owner": owner,
            "b_new": new,
            "b_until": t + lease_seconds,
        },
    )
    if res.rowcount != 1:
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
