"""The routes' dependencies, in one place: the service of this process and who is calling.

Every route but the pages' static files needs a token (``Authorization: Bearer …``); its
role decides what the route allows. An open service (``Settings(open=True)``, a local
demo) makes every caller an admin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from cbeal.service.engine.service import Service
from cbeal.service.engine.tokens import Principal, lookup_token

__all__ = ["Admin", "Annotate", "AnyRole", "Ingest", "ServiceDep", "principal", "require"]


def get_service(request: Request) -> Service:
    """The process's :class:`Service` (set on the app by ``create_app``)."""
    service: Service = request.app.state.service
    return service


ServiceDep = Annotated[Service, Depends(get_service)]

bearer = HTTPBearer(auto_error=False, description="a token from `cbeal token create`")


def principal(
    service: ServiceDep,
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer),
) -> Principal:
    """Who calls: the principal of a valid token (401 otherwise)."""
    if service.settings.open:
        return Principal("open", "admin", None)
    if credentials is None:
        raise HTTPException(
            401,
            "send a token: Authorization: Bearer <token> (create one with `cbeal token create`)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    found = lookup_token(service.engine, credentials.credentials.strip())
    if found is None:
        raise HTTPException(401, "unknown or revoked token", headers={"WWW-Authenticate": "Bearer"})
    return found


def require(*roles: str) -> Callable[..., Any]:
    """A dependency that lets callers of `roles` (and admins) through, else 403."""

    # pure: runs on the event loop (a sync dependency costs a thread-pool round trip)
    async def check(who: Principal = Depends(principal)) -> Principal:
        if not who.may(*roles):
            raise HTTPException(
                403, f"this needs a token with role {' or '.join(roles)} (yours: {who.role})"
            )
        return who

    return check


AnyRole = Annotated[Principal, Depends(require("ingest", "annotate"))]
Ingest = Annotated[Principal, Depends(require("ingest"))]
Annotate = Annotated[Principal, Depends(require("annotate"))]
Admin = Annotated[Principal, Depends(require("admin"))]
