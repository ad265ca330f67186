"""ASGI middleware around the application, outermost first:

* :class:`SecurityHeaders` puts the browser's security headers on every reply;
* :class:`Authenticate` checks the token from the headers *before any body is read*: a
  request without a valid token gets its 401 without the service receiving a byte of its
  body, whatever it declares or sends;
* :class:`BodyLimit` refuses oversized bodies (413) before the application reads them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio.to_thread

__all__ = ["CSP", "Authenticate", "BodyLimit", "SecurityHeaders", "replay"]

Scope = dict[str, Any]


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return bytes(value)
    return None


def _under(path: str, prefixes: tuple[str, ...]) -> bool:
    """Is `path` one of `prefixes` or below one (``"/"`` matches itself only)?"""
    return any(path == p or (p != "/" and path.startswith(p + "/")) for p in prefixes)


def replay(body: bytes, receive: Any) -> Any:
    """A `receive` that hands on `body` (read already) whole, then asks `receive`."""
    sent = False

    async def again() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return again


async def _reply(
    send: Any, status: int, detail: str, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Authenticate:
    """ASGI middleware: the caller's token, from the ``Authorization`` header only.

    `lookup` maps a token to its principal (None: unknown or revoked); it runs in a worker
    thread (it asks the database). On the routes `cached_for(method, path)` names (the
    ones that re-check their token inside their own write transaction), `cached` is asked
    first, on the event loop: a principal it knows skips the database and the thread hop.
    The principal is put in the request's state (``request.state.principal``), and whether
    it came from the cache (``request.state.provisional``: to be confirmed before any
    reply but the route's success, see :func:`~cbeal.service.deps.principal`). Paths under
    `public` (the pages' static files; ``"/"`` itself only) need no token; `anyone` (an
    open service: a local demo) is the principal of every request. A refused request is
    answered at once, without reading its body, and its connection is closed (the rest of
    the body is never received).
    """

    def __init__(
        self,
        app: Any,
        *,
        lookup: Callable[[str], Any | None],
        cached: Callable[[str], Any | None] | None = None,
        cached_for: Callable[[str, str], bool] = lambda method, path: False,
        public: tuple[str, ...] = (),
        anyone: Any | None = None,
    ) -> None:
        self.app, self.lookup, self.public, self.anyone = app, lookup, public, anyone
        self.cached, self.cached_for = cached, cached_for

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or _under(scope["path"], self.public):
            await self.app(scope, receive, send)
            return
        who = self.anyone
        if who is None:
            raw = _header(scope, b"authorization") or b""
            scheme, _, token = raw.decode("latin-1").strip().partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                await self._refuse(
                    send,
                    "send a token: Authorization: Bearer <token> "
                    "(create one with `cbeal token create`)",
                )
                return
            token = token.strip()
            if self.cached is not None and self.cached_for(scope["method"], scope["path"]):
                who = self.cached(token)
            provisional = who is not None
            if who is None:
                who = await anyio.to_thread.run_sync(self.lookup, token)
            if who is None:
                await self._refuse(send, "unknown or revoked token")
                return
            # a cached principal is checked again before any reply but the route's success
            scope.setdefault("state", {})["provisional"] = provisional
        scope.setdefault("state", {})["principal"] = who
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(send: Any, detail: str) -> None:
        await _reply(
            send,
            401,
            detail,
            ((b"www-authenticate", b"Bearer"), (b"connection", b"close")),
        )


# the pages load scripts, styles and images from the service only, and call only it
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
_SECURITY = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class SecurityHeaders:
    """ASGI middleware: the browser's security headers on every reply, pages and API.

    A Content-Security-Policy without inline script that lets the pages talk to this
    service only (``connect-src 'self'``) and never be framed (``frame-ancestors 'none'``,
    ``X-Frame-Options: DENY``), ``X-Content-Type-Options: nosniff``, and
    ``Referrer-Policy: no-referrer``. API replies (everything but `pages`) are also
    ``Cache-Control: no-store``: they hold the plant's data, and a new token once.
    """

    def __init__(self, app: Any, *, pages: tuple[str, ...] = ()) -> None:
        self.app, self.pages = app, pages

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        store = not _under(scope["path"], self.pages)

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                have = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in _SECURITY if k not in have]
                if store and b"cache-control" not in have:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class BodyLimit:
    """ASGI middleware: a request body larger than its route's limit gets a 413 reply.

    `max_bytes` is the limit of the routes that take data (samples, a stream's initial
    set); `limit_for(method, path)`, if given, names each route's limit (smaller for routes
    that take a short answer). A declared ``Content-Length`` is checked at once; a chunked
    body is read up to the limit and then handed on, so the application never holds more.
    """

    def __init__(
        self, app: Any, max_bytes: int, *, limit_for: Callable[[str, str], int] | None = None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        if self.limit_for is not None:
            limit = min(limit, self.limit_for(scope["method"], scope["path"]))
        length = _header(scope, b"content-length")
        if length is not None:
            try:
                too_big = int(length) > limit
            except ValueError:
                too_big = True
            if too_big:
                await self._refuse(send, limit)
                return
            await self.app(scope, receive, send)
            return
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > limit:
                await self._refuse(send, limit)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        await self.app(scope, replay(b"".join(chunks), receive), send)

    async def _refuse(self, send: Any, limit: int) -> None:
        hint = (
            "send fewer samples per request"
            if limit >= self.max_bytes
            else "this route takes a short JSON body only"
        )
        await _reply(send, 413, f"request body over {limit} bytes; {hint}")
