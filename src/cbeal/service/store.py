"""The SQL the service runs: event appends fenced by the stream's last sequence number and
its lease, leases, checkpoints and the event log for replay."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, and_, bindparam, delete, insert, or_, select, update

from cbeal.service.schema import checkpoints, events, streams

__all__ = [
    "LeaseLost",
    "acquire_lease",
    "append_events",
    "latest_checkpoint",
    "now",
    "read_events",
    "release_leases",
    "renew_leases",
    "save_checkpoint",
]


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
_NEW_EVENTS = insert(events)


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
    conn.execute(
        _NEW_EVENTS,
        [
            {
                "stream_id": stream_id,
                "seq": last_seq + 1 + i,
                "kind": kind,
                "payload": payload,
                "created_at": t,
            }
            for i, (kind, payload) in enumerate(kinds_payloads)
        ],
    )
    return new


def acquire_lease(conn: Connection, name: str, owner: str, lease_seconds: float) -> Any:
    """Take (or keep) the lease of stream `name`; returns its row, or None if another
    process holds a live lease."""
    t = now()
    res = conn.execute(
        update(streams)
        .where(
            streams.c.name == name,
            or_(streams.c.owner.is_(None), streams.c.owner == owner, streams.c.lease_until < t),
        )
        .values(owner=owner, lease_until=t + lease_seconds)
    )
    if res.rowcount != 1:
        return None
    return conn.execute(select(streams).where(streams.c.name == name)).first()


def take_over(conn: Connection, name: str, dead: str, owner: str, lease_seconds: float) -> Any:
    """Take the lease held by `dead` (a process known to have died); returns the row or None."""
    res = conn.execute(
        update(streams)
        .where(streams.c.name == name, streams.c.owner == dead)
        .values(owner=owner, lease_until=now() + lease_seconds)
    )
    if res.rowcount != 1:
        return None
    return conn.execute(select(streams).where(streams.c.name == name)).first()


def owner_is_dead(owner: str | None) -> bool:
    """True for an owner ``host:pid:…`` on this host whose process no longer runs.

    A restarted service then takes its streams back at once instead of waiting for the
    lease to expire; an owner on another host (or an unknown one) waits for the lease.
    """
    import os
    import socket

    parts = (owner or "").split(":")
    if len(parts) < 2 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    try:
        os.kill(int(parts[1]), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def renew_leases(conn: Connection, owner: str, ids: list[int], lease_seconds: float) -> set[int]:
    """Extend this process's leases; returns the ids it still owns."""
    if not ids:
        return set()
    conn.execute(
        update(streams)
        .where(streams.c.owner == owner, streams.c.id.in_(ids))
        .values(lease_until=now() + lease_seconds)
    )
    rows = conn.execute(
        select(streams.c.id).where(streams.c.owner == owner, streams.c.id.in_(ids))
    ).all()
    return {r.id for r in rows}


def release_leases(conn: Connection, owner: str) -> None:
    conn.execute(
        update(streams).where(streams.c.owner == owner).values(owner=None, lease_until=None)
    )


def latest_checkpoint(conn: Connection, stream_id: int) -> Any:
    return conn.execute(
        select(checkpoints.c.seq, checkpoints.c.model)
        .where(checkpoints.c.stream_id == stream_id)
        .order_by(checkpoints.c.seq.desc())
        .limit(1)
    ).first()


def save_checkpoint(conn: Connection, stream_id: int, seq: int, data: bytes) -> None:
    """Store the model after event `seq`; keep this one and the one before it."""
    conn.execute(
        insert(checkpoints).values(stream_id=stream_id, seq=seq, model=data, created_at=now())
    )
    keep = conn.execute(
        select(checkpoints.c.seq)
        .where(checkpoints.c.stream_id == stream_id)
        .order_by(checkpoints.c.seq.desc())
        .limit(2)
    ).all()
    oldest_kept = min(r.seq for r in keep)
    conn.execute(
        delete(checkpoints).where(
            and_(checkpoints.c.stream_id == stream_id, checkpoints.c.seq < oldest_kept)
        )
    )


def read_events(conn: Connection, stream_id: int, after: int) -> list[Any]:
    return list(
        conn.execute(
            select(events.c.seq, events.c.kind, events.c.payload)
            .where(events.c.stream_id == stream_id, events.c.seq > after)
            .order_by(events.c.seq)
        )
    )
