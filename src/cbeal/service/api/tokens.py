"""API tokens: create, list and revoke (an admin token of no scope)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query

from cbeal.service.api.routing import StrictRoute
from cbeal.service.deps import Operator, ServiceDep, TokenId
from cbeal.service.engine.tokens import issue_token, list_tokens, revoke_token_id, revoke_tokens
from cbeal.service.schemas.common import errors
from cbeal.service.schemas.tokens import RevokedOut, TokenIn, TokenListOut, TokenOut

__all__ = ["router"]

router = APIRouter(prefix="/api/v1/tokens", tags=["tokens"], route_class=StrictRoute)

# lenient: a name from before names were restricted can still be revoked by it (or by id)
TokenName = Annotated[str, Path(min_length=1, max_length=100)]


@router.get("", operation_id="list_tokens", response_model=TokenListOut, responses=errors(422))
def tokens(
    who: Operator, service: ServiceDep, revoked: Annotated[bool, Query()] = False
) -> dict[str, Any]:
    """Every live token (with `revoked`, the revoked ones too): never a secret or a hash."""
    return {"tokens": list_tokens(service.engine, revoked=revoked)}


@router.post(
    "",
    operation_id="create_token",
    status_code=201,
    response_model=TokenOut,
    responses=errors(413, 422),
)
def create(body: TokenIn, who: Operator, service: ServiceDep) -> dict[str, Any]:
    """Create a token; the reply holds it, the only time it is shown."""
    token, row = issue_token(
        service.engine, role=body.role, name=body.name, streams=body.streams, created_by=who.label
    )
    return {**row, "token": token}


@router.post(
    "/{name}/revoke",
    operation_id="revoke_tokens",
    response_model=RevokedOut,
    responses=errors(404, 422),
)
def revoke(name: TokenName, who: Operator, service: ServiceDep) -> dict[str, Any]:
    """Revoke every live token of this name: refused from the next request on, in every
    process of the service."""
    done = revoke_tokens(service.engine, name, by=who.label)
    service.tokens.clear()  # the next request of a revoked token is refused before its body
    if not done:
        raise HTTPException(404, f"no live token is named {name!r} (GET /api/v1/tokens lists them)")
    return {"name": name, "revoked": done}


@router.post("/by-id/{token_id}/revoke", response_model=RevokedOut, responses=errors(404, 422))
def revoke_id(token_id: TokenId, who: Operator, service: ServiceDep) -> dict[str, Any]:
    """Revoke the live token of this id, whatever its name (a name no path can hold)."""
    name = revoke_token_id(service.engine, token_id, by=who.label)
    service.tokens.clear()
    if name is None:
        raise HTTPException(404, f"no live token has the id {token_id} (GET /api/v1/tokens)")
    return {"name": name, "revoked": [token_id]}
