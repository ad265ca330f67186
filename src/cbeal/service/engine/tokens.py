"""API tokens with roles, stored as SHA-256 hashes only.

A token is 32 random bytes (URL-safe text, prefixed ``cbeal_``); it is shown once when it
is created and only its hash is stored, so a copy of the database reveals no token. With
that much entropy a plain SHA-256 is enough: there is nothing to brute-force.

Roles: ``ingest`` (send samples, read status), ``annotate`` (take and label tasks, read
status) and ``admin`` (everything, including creating streams and exporting data).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from sqlalchemy import Engine

from cbeal.core.exceptions import ParameterError
from cbeal.service.store.tokens import insert_token, token_by_hash

__all__ = ["ROLES", "Principal", "create_token", "hash_token", "lookup_token"]

ROLES = ("ingest", "annotate", "admin")


class Principal:
    """Who is calling: the token's name and role (``open`` mode: an anonymous admin)."""

    __slots__ = ("name", "role", "token_id")

    def __init__(self, name: str, role: str, token_id: int | None) -> None:
        self.name, self.role, self.token_id = name, role, token_id

    def may(self, *roles: str) -> bool:
        return self.role == "admin" or self.role in roles

    def __repr__(self) -> str:
        return f"Principal({self.name!r}, {self.role!r})"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_token(engine: Engine, *, role: str, name: str) -> str:
    """Store a new token of `role`; returns the token text (the only time it is shown)."""
    if role not in ROLES:
        raise ParameterError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
    if not name or len(name) > 100:
        raise ParameterError("a token needs a name of 1 to 100 characters (who uses it)")
    token = "cbeal_" + secrets.token_urlsafe(32)
    with engine.begin() as conn:
        insert_token(conn, name=name, role=role, token_hash=hash_token(token))
    return token


def lookup_token(engine: Engine, token: str) -> Principal | None:
    """The principal of a valid, unrevoked token, else None."""
    if not token.startswith("cbeal_") or len(token) > 200:
        return None
    with engine.connect() as conn:
        row: Any = token_by_hash(conn, hash_token(token))
    if row is None or row.revoked_at is not None:
        return None
    return Principal(row.name, row.role, row.id)
