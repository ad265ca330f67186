"""How the engine's exceptions become HTTP replies: a status and a JSON ``detail``.

* the engine's refusals: 404 (no such stream or task), 409 (a conflict; ``Retry-After``
  when another process serves the stream), 422 (invalid input);
* an outage — the database connection lost, the database server unreachable, every
  connection busy, a full disk — is a 503 with ``Retry-After``: the same request may
  succeed later, and the clients and bridges retry it;
* anything else is a bug: a JSON 500 whose ``error_id`` is logged with the traceback
  (logger ``cbeal.service``), so that an operator can find it.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from cbeal.core import CbealError
from cbeal.core.exceptions import DecisionError, ModelFileError, NotFittedError
from cbeal.service.engine.streams import NotFound, StreamBusy
from cbeal.service.engine.tasks import Conflict, Forbidden
from cbeal.service.store.db import Outage, outage
from cbeal.service.store.events import LeaseLost

__all__ = ["CatchAll", "add_error_handlers"]

log = logging.getLogger("cbeal.service")

Scope = dict[str, Any]


def _reply(status: int, headers: dict[str, str] | None = None) -> Callable[..., Any]:
    async def handler(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=status, headers=headers)

    return handler


async def _busy(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StreamBusy)
    return JSONResponse(
        {"detail": str(exc)}, status_code=409, headers={"Retry-After": str(exc.retry_after)}
    )


def _unavailable(found: Outage) -> tuple[int, dict[str, str], bytes]:
    body = {
        "detail": f"{found}: the service cannot serve this now; retry in "
        f"{found.retry_after} s (a sample or a label sent again is not taken twice)",
        "retry_after": found.retry_after,
    }
    return 503, {"Retry-After": str(found.retry_after)}, orjson.dumps(body)


def _failure(exc: BaseException, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    """The reply to an exception no handler took: a 503 for an outage, else a 500."""
    found = outage(exc)
    if found is not None:
        log.warning("%s %s: %s", method, path, found)
        return _unavailable(found)
    error_id = uuid.uuid4().hex[:12]
    log.error("error %s on %s %s", error_id, method, path, exc_info=exc)
    body = {
        "detail": f"the service failed unexpectedly (error {error_id}); the request may "
        "not have been carried out: check before sending it again, and give the error id "
        "to the operator, whose log holds the details",
        "error_id": error_id,
    }
    return 500, {}, orjson.dumps(body)


async def _internal(request: Request, exc: Exception) -> Response:
    """A library error that no request can cause (a stored model that does not load, a
    decision the model does not know): the service's fault, a 500 with an error id, not
    the 422 other library errors get."""
    status, headers, body = _failure(exc, request.method, request.url.path)
    return Response(body, status_code=status, headers=headers, media_type="application/json")


class CatchAll:
    """ASGI middleware: any exception the routes let escape becomes a JSON reply (a 503
    for an outage, else a 500 with an ``error_id`` logged with its traceback) instead of
    a plain-text 500 and a dropped connection."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as exc:
            status, headers, body = _failure(exc, scope.get("method", ""), scope.get("path", ""))
            if started:  # too late for a reply: the client sees the connection end
                return
            raw = [(b"content-type", b"application/json")]
            raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
            raw.append((b"content-length", str(len(body)).encode()))
            await send({"type": "http.response.start", "status": status, "headers": raw})
            await send({"type": "http.response.body", "body": body})


def add_error_handlers(app: FastAPI) -> None:
    """The engine's exceptions as replies, and the catch-all for everything else."""
    app.add_exception_handler(NotFound, _reply(404))
    app.add_exception_handler(Conflict, _reply(409))
    app.add_exception_handler(Forbidden, _reply(403))
    app.add_exception_handler(FileExistsError, _reply(409))
    app.add_exception_handler(ValueError, _reply(422))
    app.add_exception_handler(CbealError, _reply(422))
    for internal in (ModelFileError, NotFittedError, DecisionError):
        app.add_exception_handler(internal, _internal)
    app.add_exception_handler(LeaseLost, _reply(503, {"Retry-After": "1"}))
    app.add_exception_handler(StreamBusy, _busy)
    app.add_middleware(CatchAll)
