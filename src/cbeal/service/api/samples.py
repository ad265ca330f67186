"""Samples in, decisions out: the line's machines call this."""

from __future__ import annotations

import time

import orjson
from fastapi import APIRouter
from fastapi.responses import Response

from cbeal.service.api.routing import StrictRoute
from cbeal.service.api.streams import StreamName
from cbeal.service.deps import Ingest, ServiceDep
from cbeal.service.engine.ingest import ingest
from cbeal.service.schemas.common import errors
from cbeal.service.schemas.samples import SamplesIn, SamplesReply

__all__ = ["router"]

router = APIRouter(prefix="/api/v1/streams", tags=["samples"], route_class=StrictRoute)


@router.post(
    "/{name}/samples",
    response_model=SamplesReply,
    responses=errors(404, 409, 413, 422),
)
def post_samples(name: StreamName, body: SamplesIn, who: Ingest, service: ServiceDep) -> Response:
    """Decide at once whether to ask for each sample's label (idempotent by sample id)."""
    start = time.perf_counter()
    replies = ingest(service.streams, name, [(s.id, s.x) for s in body.samples])
    m = service.metrics
    fresh = [r for r in replies if not r["duplicate"]]
    m.samples.labels(name).inc(len(fresh))
    m.acquired.labels(name).inc(sum(r["acquire"] for r in fresh))
    m.latency.labels("samples").observe(time.perf_counter() - start)
    # the hot path: orjson straight to bytes (FastAPI's encoder would walk every value)
    return Response(
        orjson.dumps({"decisions": replies}, option=orjson.OPT_SERIALIZE_NUMPY),
        media_type="application/json",
    )
