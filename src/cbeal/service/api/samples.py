"""Samples in, decisions out: the line's machines call this.

The route is declared to FastAPI (its OpenAPI entry, and every reply but the plain
success); :class:`cbeal.service.fastpath.FastSamples` answers its plain success without
FastAPI's per-request machinery, calling this module's :func:`decide`.
"""

from __future__ import annotations

import time
from typing import Any

import orjson
from fastapi import APIRouter
from fastapi.responses import Response

from cbeal.service.api.routing import StrictRoute
from cbeal.service.api.streams import StreamName
from cbeal.service.deps import Ingest, ServiceDep, revoked
from cbeal.service.engine.ingest import ingest
from cbeal.service.engine.tokens import Principal, TokenRevoked, still_valid
from cbeal.service.schemas.common import errors
from cbeal.service.schemas.samples import SamplesIn, SamplesReply

__all__ = ["decide", "router"]

router = APIRouter(prefix="/api/v1/streams", tags=["samples"], route_class=StrictRoute)


def decide(service: Any, name: str, body: SamplesIn, who: Principal) -> bytes:
    """The reply's body: the decisions on `body`'s samples (blocking: a worker thread's).

    The token was checked from a cache: its row is read again in the write transaction,
    and a revoked token is refused there (a 401), the transaction rolled back. A refusal
    before that transaction (no such stream) is a 401 too if the token is revoked.
    """
    start = time.perf_counter()
    items = [(s.id, s.x) for s in body.samples]
    try:
        replies = ingest(service.streams, name, items, guard=lambda conn: still_valid(conn, who))
    except TokenRevoked:
        service.tokens.clear()
        raise revoked() from None
    except Exception:
        if not service.tokens.alive(who):
            raise revoked() from None
        raise
    m = service.metrics
    fresh = [r for r in replies if not r["duplicate"]]
    m.samples.labels(name).inc(len(fresh))
    m.acquired.labels(name).inc(sum(r["acquire"] for r in fresh))
    m.latency.labels("samples").observe(time.perf_counter() - start)
    # orjson straight to bytes (FastAPI's encoder would walk every value)
    return orjson.dumps({"decisions": replies}, option=orjson.OPT_SERIALIZE_NUMPY)


@router.post(
    "/{name}/samples",
    response_model=SamplesReply,
    responses=errors(404, 409, 413, 422),
)
def post_samples(name: StreamName, body: SamplesIn, who: Ingest, service: ServiceDep) -> Response:
    """Decide at once whether to ask for each sample's label (idempotent by sample id)."""
    return Response(decide(service, name, body, who), media_type="application/json")
