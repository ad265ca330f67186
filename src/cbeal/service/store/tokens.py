"""API tokens in SQL: stored as SHA-256 hashes only, with their role, scope and history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update

from cbeal.service.store.bulk import run
from cbeal.service.store.events import now
from cbeal.service.store.tables import streams, tasks, tokens

__all__ = [
    "all_tokens",
    "insert_token",
    "revoke_by_id",
    "revoke_by_name",
    "stream_of_task",
    "token_alive",
    "token_by_hash",
    "token_by_id",
    "touch_token",
]

# built once: every request runs it
_BY_HASH = select(
    tokens.c.id,
    tokens.c.name,
    tokens.c.role,
    tokens.c.revoked_at,
    tokens.c.streams,
    tokens.c.last_used_at,
).where(tokens.c.token_hash == bindparam("token_hash"))

_STREAM_OF_TASK = (
    select(streams.c.name)
    .select_from(tasks.join(streams, tasks.c.stream_id == streams.c.id))
    .where(tasks.c.id == bindparam("task_id"))
)

# what a listing shows: everything but the hash
LISTED = ("id", "name", "role", "streams", "created_at", "created_by", "last_used_at")
REVOKED = ("revoked_at", "revoked_by")


def insert_token(
    conn: Connection,
    *,
    name: str,
    role: str,
    token_hash: str,
    streams: Sequence[str] | None,
    created_by: str | None,
) -> int:
    """Store a token; returns its id."""
    row = conn.execute(
        insert(tokens)
        .values(
            name=name,
            role=role,
            token_hash=token_hash,
            created_at=now(),
            streams=None if streams is None else list(streams),
            created_by=created_by,
        )
        .returning(tokens.c.id)
    ).one()
    return int(row.id)


def token_by_hash(conn: Connection, token_hash: str) -> Any:
    """The token row (id, name, role, revoked_at, streams, last_used_at), or None."""
    return conn.execute(_BY_HASH, {"token_hash": token_hash}).first()


def token_alive(conn: Connection, token_id: int, at: float, every: float) -> bool:
    """Is token `token_id` still unrevoked, read in `conn`'s transaction? Records its use
    at `at` if the last record is `every` seconds old. One statement, straight to the driver
    (the hot path)."""
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    found, _ = run(
        conn, f"SELECT revoked_at, last_used_at FROM tokens WHERE id = {mark}", (token_id,)
    )
    if not found or found[0][0] is not None:
        return False
    row = found[0]
    if row[1] is None or at - row[1] >= every:
        touch_token(conn, token_id, at)
    return True


def touch_token(conn: Connection, token_id: int, at: float) -> None:
    """Record that the token was used at `at`."""
    conn.execute(update(tokens).where(tokens.c.id == token_id).values(last_used_at=at))


def token_by_id(conn: Connection, token_id: int) -> Any:
    """The token `token_id` as a listing shows it."""
    return conn.execute(
        select(*(tokens.c[c] for c in LISTED + REVOKED)).where(tokens.c.id == token_id)
    ).one()


def all_tokens(conn: Connection, *, revoked: bool) -> list[Any]:
    """Every token (without its hash), oldest first; the revoked ones too if `revoked`."""
    query = select(*(tokens.c[c] for c in LISTED + REVOKED)).order_by(tokens.c.id)
    if not revoked:
        query = query.where(tokens.c.revoked_at.is_(None))
    return list(conn.execute(query).all())


def revoke_by_name(conn: Connection, name: str, *, by: str | None) -> list[int]:
    """Revoke every live token named `name`; returns their ids."""
    return sorted(int(r.id) for r in _revoke(conn, tokens.c.name == name, by))


def revoke_by_id(conn: Connection, token_id: int, *, by: str | None) -> str | None:
    """Revoke the live token `token_id`; returns its name (None: no live token of that id)."""
    found = _revoke(conn, tokens.c.id == token_id, by)
    return str(found[0].name) if found else None


def _revoke(conn: Connection, match: Any, by: str | None) -> list[Any]:
    """Revoke the live tokens `match` selects; their ids and names."""
    return list(
        conn.execute(
            update(tokens)
            .where(match, tokens.c.revoked_at.is_(None))
            .values(revoked_at=now(), revoked_by=by)
            .returning(tokens.c.id, tokens.c.name)
        ).all()
    )


def stream_of_task(conn: Connection, task_id: int) -> str | None:
    """The name of the stream a task belongs to (None: no such task)."""
    found = conn.execute(_STREAM_OF_TASK, {"task_id": task_id}).scalar()
    return None if found is None else str(found)
