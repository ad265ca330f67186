"""How the engine's exceptions become HTTP replies: a status and a JSON ``detail``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from cbeal.core import CbealError
from cbeal.service.engine.streams import NotFound, StreamBusy
from cbeal.service.engine.tasks import Conflict
from cbeal.service.store.events import LeaseLost

__all__ = ["add_error_handlers"]


def _reply(status: int, headers: dict[str, str] | None = None) -> Callable[..., Any]:
    async def handler(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=status, headers=headers)

    return handler


async def _busy(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StreamBusy)
    return JSONResponse(
        {"detail": str(exc)}, status_code=409, headers={"Retry-After": str(exc.retry_after)}
    )


def add_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(NotFound, _reply(404))
    app.add_exception_handler(Conflict, _reply(409))
    app.add_exception_handler(FileExistsError, _reply(409))
    app.add_exception_handler(ValueError, _reply(422))
    app.add_exception_handler(CbealError, _reply(422))
    app.add_exception_handler(LeaseLost, _reply(503, {"Retry-After": "1"}))
    app.add_exception_handler(StreamBusy, _busy)
