"""API tokens in SQL: stored as SHA-256 hashes only."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, insert, select

from cbeal.service.store.events import now
from cbeal.service.store.tables import tokens

__all__ = ["insert_token", "token_by_hash"]

# built once: every request runs it
_BY_HASH = select(tokens.c.id, tokens.c.name, tokens.c.role, tokens.c.revoked_at).where(
    tokens.c.token_hash == bindparam("token_hash")
)


def insert_token(conn: Connection, *, name: str, role: str, token_hash: str) -> None:
    conn.execute(
        insert(tokens).values(name=name, role=role, token_hash=token_hash, created_at=now())
    )


def token_by_hash(conn: Connection, token_hash: str) -> Any:
    """The token row (id, name, role, revoked_at) with this hash, or None."""
    return conn.execute(_BY_HASH, {"token_hash": token_hash}).first()
