"""The routes' dependencies, in one place: the service of this process and who is calling.

Every route but the pages' static files needs a token (``Authorization: Bearer …``),
checked by :class:`~cbeal.service.middleware.Authenticate` before the body is read; its
role decides what the route allows, its scope which streams. An open service
(``Settings(open=True)``, a local demo) makes every caller an unscoped admin.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BeforeValidator

from cbeal.service.engine.service import Service
from cbeal.service.engine.tokens import Principal, task_stream
from cbeal.service.names import Role

__all__ = [
    "Admin",
    "Annotate",
    "Answer",
    "AnyRole",
    "Ingest",
    "Operator",
    "Review",
    "ServiceDep",
    "TaskId",
    "TokenId",
    "id_of",
    "in_scope",
    "principal",
    "require",
    "revoked",
]

# an id as the service writes it: ASCII digits, no sign, no leading zero, at most 2**62
_ID = re.compile(r"[1-9][0-9]{0,18}")
MAX_ID = 2**62


def id_of(text: str) -> int | None:
    """The id `text` spells, or None unless it is written as the service writes ids.

    The one parser of path ids: the scope check and the routes read an id the same way, so
    no spelling (``84.0``, ``+84``, ``٨٤``, ``084``) can mean a task to one and not the other.

    >>> [id_of(t) for t in ("84", "84.0", "+84", " 84", "084", "0x54", "84e0", "٨٤")]
    [84, None, None, None, None, None, None, None]
    """
    if not _ID.fullmatch(text):
        return None
    found = int(text)
    return found if found <= MAX_ID else None


def _strict_id(value: Any) -> Any:
    if isinstance(value, str) and id_of(value) is None:
        raise ValueError(f"an id is a whole number from 1 to 2**62 in digits, got {value!r}")
    return value


# a path id read by id_of (an id in digits); the route's ge and le bound it
TaskId = Annotated[
    int,
    BeforeValidator(_strict_id),
    Path(ge=1, le=MAX_ID, description="the task's id, in digits (no sign, no leading 0)"),
]
TokenId = Annotated[
    int,
    BeforeValidator(_strict_id),
    Path(ge=1, le=MAX_ID, description="the token's id, in digits (GET /api/v1/tokens)"),
]


async def get_service(request: Request) -> Service:  # async: no thread-pool hop
    """The process's :class:`Service` (set on the app by ``create_app``)."""
    service: Service = request.app.state.service
    return service


ServiceDep = Annotated[Service, Depends(get_service)]

# declares the scheme in the OpenAPI document; the check itself ran in the middleware
bearer = HTTPBearer(auto_error=False, description="a token from `cbeal token create`")


def revoked() -> HTTPException:
    """The 401 of a token that is unknown or revoked."""
    return HTTPException(401, "unknown or revoked token", headers={"WWW-Authenticate": "Bearer"})


async def principal(
    request: Request,
    service: ServiceDep,
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer),
) -> Principal:
    """Who calls: the principal the middleware found for the token (401 otherwise).

    A principal the middleware took from the token cache (the samples route's) is confirmed
    in the database first: every dependency and check of the route needs this one, so a
    token revoked by another process gets its 401 before any 403, 404 or 422 that would
    tell it which streams exist.
    """
    who = getattr(request.state, "principal", None)
    if not isinstance(who, Principal):  # pragma: no cover - the middleware always sets it
        raise revoked()
    if getattr(request.state, "provisional", False):
        if not await run_in_threadpool(service.tokens.alive, who):
            raise revoked()
        request.state.provisional = False
    return who


def require(*roles: Role) -> Callable[..., Any]:
    """A dependency that lets callers of `roles` (and admins) through, else 403."""

    # pure: runs on the event loop (a sync dependency costs a thread-pool round trip)
    async def check(who: Principal = Depends(principal)) -> Principal:
        if not who.may(*roles):
            raise HTTPException(
                403, f"this needs a token with role {' or '.join(roles)} (yours: {who.role})"
            )
        return who

    return check


_admin = require("admin")


async def operator(who: Principal = Depends(_admin)) -> Principal:
    """An admin token scoped to no stream: it may manage tokens (a scoped admin could
    otherwise give itself every stream)."""
    if who.streams is not None:
        raise HTTPException(403, _scoped(who, "manage tokens"))
    return who


# routes about no one stream that a scoped token may call (the list shows its streams only)
SHARED = frozenset({("GET", "/api/v1/streams"), ("GET", "/api/v1/me"), ("GET", "/healthz")})


async def in_scope(
    request: Request, service: ServiceDep, who: Principal = Depends(principal)
) -> None:
    """403 if a scoped token calls about a stream outside its scope.

    Attached to every router of the service (by ``create_app``): the stream is the path's
    ``name``, or the stream of the path's ``task_id``. A scoped token may call a route
    about no stream only if it is one of `SHARED`.
    """
    if who.streams is None:
        return
    params = request.path_params
    stream: str | None
    if "name" in params:
        stream = str(params["name"])
    elif "task_id" in params:
        task_id = id_of(str(params["task_id"]))
        if task_id is None:
            return  # the route refuses the same spelling (TaskId): a 422, no task reached
        stream = await run_in_threadpool(task_stream, service.engine, task_id)
        if stream is None:
            return  # the route answers 404
    elif (request.method, request.url.path) in SHARED:
        return
    else:
        raise HTTPException(403, _scoped(who, "call this route, which is about no one stream"))
    if stream is not None and not who.allows(stream):
        raise HTTPException(
            403,
            f"the token {who.name!r} is scoped to the streams {', '.join(who.streams)}; "
            f"{stream!r} is not one of them",
        )


def _scoped(who: Principal, what: str) -> str:
    streams = ", ".join(who.streams or ())
    return (
        f"the token {who.name!r} is scoped to the streams {streams}; "
        f"to {what}, use a token of no scope"
    )


AnyRole = Annotated[Principal, Depends(require("ingest", "annotate", "review"))]
Ingest = Annotated[Principal, Depends(require("ingest"))]
Annotate = Annotated[Principal, Depends(require("annotate"))]
Review = Annotated[Principal, Depends(require("review"))]
#: answering a task: a labeller's answer, or a reviewer's settlement of a disputed part
Answer = Annotated[Principal, Depends(require("annotate", "review"))]
Admin = Annotated[Principal, Depends(_admin)]
Operator = Annotated[Principal, Depends(operator)]
