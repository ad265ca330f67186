"""Stream leases: which service process owns (and may write to) a stream."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, or_, select, update

from cbeal.service.store.events import now
from cbeal.service.store.tables import streams

__all__ = ["acquire_lease", "owner_is_dead", "release_leases", "renew_leases", "take_over"]


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
