"""Operations: health, metrics and who am I."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from cbeal.service.api.routing import StrictRoute
from cbeal.service.deps import AnyRole, ServiceDep
from cbeal.service.schemas.common import HealthOut, MeOut, errors

__all__ = ["router"]

router = APIRouter(tags=["operations"], route_class=StrictRoute)


@router.get("/healthz", response_model=HealthOut, responses=errors())
def healthz(who: AnyRole, service: ServiceDep) -> dict[str, Any]:
    return {"status": "ok", "streams_served": len(service.streams.owned())}


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {
            "content": {"text/plain": {"schema": {"type": "string"}}},
            "description": "Prometheus text format",
        },
        **errors(),
    },
)
def metrics(who: AnyRole, service: ServiceDep) -> Response:
    return Response(service.metrics.render(service), media_type="text/plain; version=0.0.4")


@router.get("/api/v1/me", operation_id="get_me", response_model=MeOut, responses=errors())
def me(who: AnyRole, service: ServiceDep) -> dict[str, Any]:
    return {"name": who.name, "role": who.role, "undo_seconds": service.settings.undo_seconds}
