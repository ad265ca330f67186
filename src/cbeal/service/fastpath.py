"""The samples route's fast path: an ASGI middleware answering its plain success.

:class:`FastSamples` answers ``POST /api/v1/streams/{name}/samples`` without FastAPI's
per-request machinery (routing through every router, solving six dependencies, the
exception middleware): about half of a single-sample request's CPU time, measured
(``benchmarks/results/service_floor.md``). It checks what the route's dependencies check,
with the same functions, and hands anything else — a body that is not valid JSON or not a
valid request, a role or scope that does not allow the call — to the route unchanged, so
that every refusal is FastAPI's own. It is middleware, not a route: its layer sits above
``api`` (whose :func:`~cbeal.service.api.samples.decide` it calls) and below ``app``.
"""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

import anyio.to_thread
from fastapi import Request
from pydantic import ValidationError

from cbeal.service.api.routing import strict_json
from cbeal.service.api.samples import decide
from cbeal.service.engine.tokens import Principal
from cbeal.service.names import STREAM_NAME
from cbeal.service.schemas.samples import SamplesIn

__all__ = ["FastSamples"]

_PATH = re.compile(f"^/api/v1/streams/({STREAM_NAME[1:-1]})/samples$")
_JSON = (b"application/json", b"application/json; charset=utf-8")


class FastSamples:
    """ASGI middleware (the innermost): a valid ``POST …/samples`` answered directly.

    It runs after :class:`~cbeal.service.middleware.Authenticate` (the token, before the
    body) and :class:`~cbeal.service.middleware.BodyLimit`. The call is taken only if the
    principal may ingest into the path's stream (``require("ingest")`` and ``in_scope``)
    and the body parses with :func:`strict_json` and validates as :class:`SamplesIn`;
    otherwise the request, body included, goes on to the FastAPI route. An engine error is
    answered by the application's exception handler for it, as the route's would be.
    """

    def __init__(self, app: Any, *, service: Any, handlers: dict[Any, Any]) -> None:
        self.app, self.service, self.handlers = app, service, handlers

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        found = _PATH.match(scope["path"]) if scope["type"] == "http" else None
        who = scope.get("state", {}).get("principal")
        if (
            found is None
            or scope["method"] != "POST"
            or scope.get("query_string")
            or not isinstance(who, Principal)
            or not (who.may("ingest") and who.allows(found.group(1)))
            or _content_type(scope) not in _JSON
        ):
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        raw = b"".join(chunks)
        try:
            body = SamplesIn.model_validate(strict_json(raw))
        except (json.JSONDecodeError, ValidationError):  # the route says what is wrong
            pending = [{"type": "http.request", "body": raw, "more_body": False}]

            async def again() -> dict[str, Any]:  # the body once more, then the client's
                return pending.pop() if pending else await receive()

            await self.app(scope, again, send)
            return
        try:
            reply = await anyio.to_thread.run_sync(decide, self.service, found.group(1), body, who)
        except Exception as exc:
            handler = next(
                (self.handlers[t] for t in type(exc).__mro__ if t in self.handlers), None
            )
            if handler is None:
                raise  # CatchAll: a 503 for an outage, else a 500 with an error id
            response = handler(Request(scope, receive), exc)
            if inspect.isawaitable(response):
                response = await response
            await response(scope, receive, send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(reply)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": reply})


def _content_type(scope: dict[str, Any]) -> bytes | None:
    for key, value in scope["headers"]:
        if key == b"content-type":
            return bytes(value).lower()
    return None
