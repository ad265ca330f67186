"""The FastAPI application of ``cbeal serve``: routers per resource, the dependencies in
:mod:`~cbeal.service.deps`, the engine in :mod:`~cbeal.service.engine`, all SQL in
:mod:`~cbeal.service.store`."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI
from fastapi.responses import RedirectResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles

from cbeal._version import __version__
from cbeal.service.api import ROUTERS
from cbeal.service.api import tokens as token_routes
from cbeal.service.deps import in_scope, principal
from cbeal.service.engine.service import Service
from cbeal.service.engine.tokens import Principal
from cbeal.service.errors import add_error_handlers
from cbeal.service.fastpath import FastSamples
from cbeal.service.middleware import Authenticate, BodyLimit, SecurityHeaders
from cbeal.service.settings import Settings

__all__ = ["Settings", "create_app"]

STATIC = Path(__file__).parent / "static"
PAGES = ("/ui", "/")  # static files, and the redirect to them: no token, no data

# the routes that take data get Settings.max_body_bytes; every other one a short answer
DATA_ROUTES = re.compile(
    r"^/api/v1/(streams|streams/[^/]+/samples|integrations/label-studio/webhook)/?$"
)
SMALL_BODY = 64 * 1024
# the routes that re-check their token in their write transaction: a cached token will do
SAMPLES = re.compile(r"^/api/v1/streams/[^/]+/samples/?$")


def body_limit(method: str, path: str) -> int:
    """The largest body a route takes (the data routes: no limit of their own)."""
    return 2**62 if DATA_ROUTES.match(path) else SMALL_BODY


def rechecked(method: str, path: str) -> bool:
    """Does the route re-check its token in its own write transaction (ingest)?"""
    return method == "POST" and SAMPLES.match(path) is not None


def _operation_id(route: APIRoute) -> str:
    """A route's operation id is its name (`list_streams`, not FastAPI's
    `list_streams_api_v1_streams_get`): the method names of a generated client."""
    return route.name


def create_app(settings: Settings | None = None) -> FastAPI:
    """The FastAPI application of one service process (connects and migrates the database)."""
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
        openapi_url=None,  # served below, with a token
        generate_unique_id_function=_operation_id,
        docs_url=None,
        redoc_url=None,
        description="Stream-based active learning on a line: machines send samples, "
        "cbeal decides at once which ones an expert should label, the expert labels "
        "them later, the model learns. Every request needs a bearer token.",
    )
    app.state.service = service
    # the last added is the outermost: the security headers on every reply; then the error
    # handlers (a database lost while a token is looked up is an outage too); then the
    # token, before any body is read; then the body's size; then the samples' fast path
    app.add_middleware(FastSamples, service=service, handlers=app.exception_handlers)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes, limit_for=body_limit)
    app.add_middleware(
        Authenticate,
        lookup=service.tokens.lookup,
        cached=service.tokens.get,
        cached_for=rechecked,
        public=PAGES,
        anyone=Principal("open", "admin", None) if settings.open else None,
    )
    add_error_handlers(app)
    app.add_middleware(SecurityHeaders, pages=PAGES)
    for router in ROUTERS:
        app.include_router(router, dependencies=[Depends(in_scope)])
    app.include_router(token_routes.router)  # an unscoped admin's: no stream to check
    app.mount("/ui", StaticFiles(directory=STATIC, html=True), name="ui")

    @app.get("/", include_in_schema=False)
    def home() -> RedirectResponse:  # the pages hold no data: they ask for a token first
        return RedirectResponse("/ui/")

    @app.get("/openapi.json", include_in_schema=False)
    def openapi(who: Principal = Depends(principal)) -> dict[str, Any]:
        return app.openapi()

    return app
