"""API tokens with roles and stream scopes, stored as SHA-256 hashes only.

A token is 32 random bytes (URL-safe text, prefixed ``cbeal_``); it is shown once when it
is created and only its hash is stored, so a copy of the database reveals no token. With
that much entropy a plain SHA-256 is enough: there is nothing to brute-force.

Roles: ``ingest`` (send samples, read status), ``annotate`` (take and label tasks, read
status), ``review`` (settle disputed parts: ``reviews/next``, read status) and ``admin``
(everything, including creating streams and exporting data). A token may be scoped to some
streams: it then acts on those streams only. Every request looks its token up in the
database, so a revocation holds from the next request on, in every process that shares the
database. The samples route, the hot one, takes its token from a :class:`TokenCache` and
reads the token's row again inside its write transaction: the same guarantee, without a
round trip before the body.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import time
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Engine

from cbeal.core.exceptions import ParameterError
from cbeal.service.names import ROLES, STREAM_NAME, TOKEN_NAME
from cbeal.service.store import tokens as rows

__all__ = [
    "Principal",
    "TokenCache",
    "TokenRevoked",
    "create_token",
    "hash_token",
    "issue_token",
    "list_tokens",
    "lookup_token",
    "revoke_token_id",
    "revoke_tokens",
    "task_stream",
]

_STREAM = re.compile(STREAM_NAME)
_NAME = re.compile(TOKEN_NAME)
TOUCH_EVERY = 60.0  # seconds: how fresh "last used" is (one write per token per minute)

log = logging.getLogger("cbeal.service.tokens")


class Principal:
    """Who is calling: the token's name, role and scope (``open`` mode: an anonymous admin).

    `streams` is None for a token that may act on every stream.

    Examples
    --------
    >>> who = Principal("plc-lineA", "ingest", 7, streams=("lineA",))
    >>> who.may("ingest"), who.may("annotate"), who.allows("lineA"), who.allows("lineB")
    (True, False, True, False)
    >>> who.visible(["lineA", "lineB"]), who.label
    (['lineA'], 'plc-lineA#7')
    >>> Principal("ops", "admin", 1).allows("lineB")
    True
    """

    __slots__ = ("name", "role", "streams", "token_id")

    def __init__(
        self, name: str, role: str, token_id: int | None, streams: Sequence[str] | None = None
    ) -> None:
        self.name, self.role, self.token_id = name, role, token_id
        self.streams = None if streams is None else tuple(streams)

    def may(self, *roles: str) -> bool:
        return self.role == "admin" or self.role in roles

    def allows(self, stream: str) -> bool:
        """May this token act on `stream`?"""
        return self.streams is None or stream in self.streams

    @property
    def label(self) -> str:
        """The name and id, as audits record who did something (``ops#3``)."""
        return self.name if self.token_id is None else f"{self.name}#{self.token_id}"

    def visible(self, names: Iterable[str]) -> list[str]:
        """The streams of `names` this token may see."""
        return [n for n in names if self.allows(n)]

    def __repr__(self) -> str:
        scope = "" if self.streams is None else f", streams={list(self.streams)!r}"
        return f"Principal({self.name!r}, {self.role!r}{scope})"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _scope(streams: Sequence[str] | None) -> list[str] | None:
    if streams is None:
        return None
    if isinstance(streams, str):
        streams = [streams]
    scope = sorted(set(streams))
    if not scope:
        raise ParameterError("a scoped token needs at least one stream (or no scope at all)")
    bad = [s for s in scope if not _STREAM.match(s)]
    if bad:
        raise ParameterError(
            f"not a stream name: {bad[0]!r} (letters, digits, '_', '.', '-'; up to 100)"
        )
    return scope


def create_token(
    engine: Engine,
    *,
    role: str,
    name: str,
    streams: Sequence[str] | None = None,
    created_by: str | None = None,
) -> str:
    """Store a new token of `role` (scoped to `streams`, or to none: every stream); returns
    the token text (the only time it is shown)."""
    return issue_token(engine, role=role, name=name, streams=streams, created_by=created_by)[0]


def issue_token(
    engine: Engine,
    *,
    role: str,
    name: str,
    streams: Sequence[str] | None = None,
    created_by: str | None = None,
) -> tuple[str, dict[str, Any]]:
    """:func:`create_token`, also returning the stored token as :func:`list_tokens` shows it."""
    if role not in ROLES:
        raise ParameterError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ParameterError(
            f"a token's name (who uses it) is 1 to 100 letters, digits, '_', '.', '@' or '-', "
            f"the first a letter or digit; got {name!r}"
        )
    scope = _scope(streams)
    token = "cbeal_" + secrets.token_urlsafe(32)
    with engine.begin() as conn:
        token_id = rows.insert_token(
            conn,
            name=name,
            role=role,
            token_hash=hash_token(token),
            streams=scope,
            created_by=created_by,
        )
        row = rows.token_by_id(conn, token_id)
    log.info(
        "token %r (#%d, role %s, streams %s) created by %s",
        name, token_id, role, scope or "all", created_by or "the command line",
    )  # fmt: skip
    return token, row._asdict()


def lookup_token(engine: Engine, token: str) -> Principal | None:
    """The principal of a valid, unrevoked token, else None."""
    if not token.startswith("cbeal_") or len(token) > 200:
        return None
    with engine.connect() as conn:
        row: Any = rows.token_by_hash(conn, hash_token(token))
    if row is None or row.revoked_at is not None:
        return None
    at = time.time()
    if row.last_used_at is None or at - row.last_used_at >= TOUCH_EVERY:
        with engine.begin() as conn:
            rows.touch_token(conn, row.id, at)
    return Principal(row.name, row.role, row.id, row.streams)


class TokenRevoked(RuntimeError):
    """The token of a request was revoked (or deleted) while the request ran: its write
    transaction is rolled back and the caller gets a 401."""


class TokenCache:
    """The principals of tokens found valid, by hash: the ingest route's token check without
    a database round trip or a thread-pool hop.

    A cached principal is only a first check, made before the body is read; the route then
    re-reads the token's row inside its own write transaction (:func:`still_valid`) and
    refuses a revoked token there, rolling everything back. A revocation through this
    process's API also empties the cache, so the very next request is refused before its
    body is read; one from another process (``cbeal token revoke``) is refused by that
    in-transaction check, from the next request on. Unknown tokens are never cached.

    Examples
    --------
    >>> import tempfile
    >>> from cbeal.service.store.db import connect, default_url, migrate
    >>> engine = connect(default_url(tempfile.mkdtemp() + "/tokens.db"))
    >>> migrate(engine)
    >>> cache = TokenCache(engine)
    >>> token = create_token(engine, role="ingest", name="plc")
    >>> cache.get(token) is None, cache.lookup(token).name, cache.get(token).name
    (True, 'plc', 'plc')
    >>> cache.lookup("cbeal_unknown"), cache.get("cbeal_unknown")
    (None, None)
    >>> engine.dispose()
    """

    def __init__(self, engine: Engine, *, size: int = 1024) -> None:
        self.engine, self.size = engine, size
        self._known: dict[str, Principal] = {}

    def get(self, token: str) -> Principal | None:
        """The cached principal of `token` (None: not cached; ask :meth:`lookup`)."""
        return self._known.get(hash_token(token))

    def lookup(self, token: str) -> Principal | None:
        """:func:`lookup_token`, remembering a valid token (blocking: a worker thread's)."""
        who = lookup_token(self.engine, token)
        if who is not None:
            if len(self._known) >= self.size:
                self._known.clear()  # bounded; the next request of each token looks it up
            self._known[hash_token(token)] = who
        return who

    def clear(self) -> None:
        self._known.clear()

    def alive(self, who: Principal) -> bool:
        """Is `who`'s token still live, read now (blocking)? A principal from :meth:`get` is
        only as fresh as the cache: one revoked by another process is found here, and the
        cache emptied."""
        if who.token_id is None:
            return True
        with self.engine.begin() as conn:
            live = rows.token_alive(conn, who.token_id, time.time(), TOUCH_EVERY)
        if not live:
            self.clear()
        return live


def still_valid(conn: Any, who: Principal) -> None:
    """Raise :class:`TokenRevoked` unless `who`'s token is live, read in `conn`'s (write)
    transaction; records its use once a minute."""
    if who.token_id is not None and not rows.token_alive(
        conn, who.token_id, time.time(), TOUCH_EVERY
    ):
        raise TokenRevoked(f"the token {who.label} was revoked")


def list_tokens(engine: Engine, *, revoked: bool = False) -> list[dict[str, Any]]:
    """Every live token (and the revoked ones if `revoked`): never its secret or hash."""
    with engine.connect() as conn:
        found = rows.all_tokens(conn, revoked=revoked)
    return [r._asdict() for r in found]


def revoke_tokens(engine: Engine, name: str, *, by: str | None = None) -> list[int]:
    """Revoke every live token named `name` (from the next request on, in every process);
    returns their ids (empty: no live token has that name)."""
    with engine.begin() as conn:
        done = rows.revoke_by_name(conn, name, by=by)
    if done:
        log.info(
            "token %r (#%s) revoked by %s",
            name, ", #".join(map(str, done)), by or "the command line",
        )  # fmt: skip
    return done


def revoke_token_id(engine: Engine, token_id: int, *, by: str | None = None) -> str | None:
    """Revoke the live token `token_id` (whatever its name); returns its name (None: no
    live token has that id)."""
    with engine.begin() as conn:
        name = rows.revoke_by_id(conn, token_id, by=by)
    if name is not None:
        log.info("token %r (#%d) revoked by %s", name, token_id, by or "the command line")
    return name


def task_stream(engine: Engine, task_id: int) -> str | None:
    """The stream of task `task_id` (None: no such task)."""
    with engine.connect() as conn:
        return rows.stream_of_task(conn, task_id)
