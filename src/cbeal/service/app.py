"""The HTTP API of ``cbeal serve`` (FastAPI): streams, samples, tasks, exports, health, metrics."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from cbeal._version import __version__
from cbeal.core import CbealError
from cbeal.service import store
from cbeal.service.background import Background
from cbeal.service.db import connect, default_url, migrate
from cbeal.service.limits import BodyLimit
from cbeal.service.metrics import Metrics
from cbeal.service.streams import NotFound, StreamBusy, Streams
from cbeal.service.tasks import Conflict, TaskOps
from cbeal.service.tokens import Principal, lookup_token

__all__ = ["Settings", "create_app"]

STATIC = Path(__file__).parent / "static"


@dataclass
class Settings:
    """How a service process runs (the ``cbeal serve`` options)."""

    db: str = field(default_factory=default_url)
    open: bool = False  # no tokens: a local demo only
    undo_seconds: float = 60.0
    lease_seconds: float = 15.0
    task_lease_seconds: float = 300.0
    checkpoint_every: int = 5000
    max_body_bytes: int = 16 * 1024 * 1024
    max_samples: int = 10_000
    owner: str = field(
        default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    )
    retrain: str = "background"  # or "sync" (on the request path: reproducible) or "off"
    sqlite_sync: str = "NORMAL"  # "FULL": also survive a power cut (slower commits)


class Service:
    """Everything one process holds: the database, its streams, the task queue, metrics."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = connect(settings.db, sqlite_sync=settings.sqlite_sync)
        migrate(self.engine)
        self.streams = Streams(
            self.engine, owner=settings.owner, lease_seconds=settings.lease_seconds
        )
        self.tasks = TaskOps(
            self.streams,
            undo_seconds=settings.undo_seconds,
            lease_seconds=settings.task_lease_seconds,
        )
        self.background = Background(
            self.streams,
            self.tasks,
            checkpoint_every=settings.checkpoint_every,
            retrain=settings.retrain,
        )
        self.metrics = Metrics()
        if settings.retrain == "sync":
            self.tasks.after_learning = self.background.refit_now

    def start(self) -> None:
        # loading a checkpoint needs skops, whose first import takes about 2 s (it lists
        # every scikit-learn estimator): pay that before serving, not in the first request
        # after a restart
        import skops.io  # noqa: F401

        self.background.start()

    def stop(self) -> None:
        self.background.stop()
        self.streams.release()
        self.engine.dispose()


def create_app(settings: Settings | None = None) -> FastAPI:
    """The FastAPI application of one service process."""
    settings = settings or Settings()
    service = Service(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.start()
        yield
        service.stop()

    app = FastAPI(
        title="cbeal annotation service",
        version=__version__,
        lifespan=lifespan,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,  # served below, with a token
        description="Stream-based active learning on a line: machines send samples, "
        "cbeal decides at once which ones an expert should label, the expert labels "
        "them later, the model learns. Every request needs a bearer token.",
    )
    app.state.service = service
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    _errors(app)

    bearer = HTTPBearer(auto_error=False, description="a token from `cbeal token create`")

    def principal(credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Principal:
        if settings.open:
            return Principal("open", "admin", None)
        if credentials is None:
            raise HTTPException(
                401,
                "send a token: Authorization: Bearer <token> (create one "
                "with `cbeal token create --role ...`)",
                headers={"WWW-Authenticate": "Bearer"},
            )
        found = lookup_token(service.engine, credentials.credentials.strip())
        if found is None:
            raise HTTPException(
                401, "unknown or revoked token", headers={"WWW-Authenticate": "Bearer"}
            )
        return found

    def role(*roles: str) -> Callable[..., Any]:
        # pure: runs on the event loop (a sync dependency costs a thread-pool round trip)
        async def check(who: Principal = Depends(principal)) -> Principal:
            if not who.may(*roles):
                raise HTTPException(
                    403, f"this needs a token with role {' or '.join(roles)} (yours: {who.role})"
                )
            return who

        return check

    app.state.role = role
    from cbeal.service.routes import add_routes

    add_routes(app, service, role)

    from fastapi.responses import RedirectResponse
    from fastapi.staticfiles import StaticFiles

    app.mount("/ui", StaticFiles(directory=STATIC, html=True), name="ui")

    @app.get("/", include_in_schema=False)
    def home() -> RedirectResponse:  # the pages hold no data: they ask for a token first
        return RedirectResponse("/ui/")

    @app.get("/openapi.json", include_in_schema=False)
    def openapi(who: Principal = Depends(principal)) -> dict[str, Any]:
        return app.openapi()

    return app


def _errors(app: FastAPI) -> None:
    def reply(status: int, headers: dict[str, str] | None = None) -> Callable[..., Any]:
        async def handler(request: Request, exc: Exception) -> JSONResponse:
            return JSONResponse({"detail": str(exc)}, status_code=status, headers=headers)

        return handler

    app.add_exception_handler(NotFound, reply(404))
    app.add_exception_handler(Conflict, reply(409))
    app.add_exception_handler(FileExistsError, reply(409))
    app.add_exception_handler(ValueError, reply(422))
    app.add_exception_handler(CbealError, reply(422))
    app.add_exception_handler(store.LeaseLost, reply(503, {"Retry-After": "1"}))

    async def busy(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StreamBusy)
        return JSONResponse(
            {"detail": str(exc)}, status_code=409, headers={"Retry-After": str(exc.retry_after)}
        )

    app.add_exception_handler(StreamBusy, busy)


def metrics_response(service: Service) -> Response:
    return Response(service.metrics.render(service), media_type="text/plain; version=0.0.4")
