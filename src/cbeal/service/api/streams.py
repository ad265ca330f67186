"""Streams: create, list, status, configuration, history, exports."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse, Response

from cbeal.service.api.routing import StrictRoute
from cbeal.service.deps import Admin, AnyRole, ServiceDep
from cbeal.service.engine.agreement import stream_agreement
from cbeal.service.engine.history import MAX_POINTS, history
from cbeal.service.engine.insight import error_band
from cbeal.service.engine.status import stream_config, stream_status
from cbeal.service.names import STREAM_NAME
from cbeal.service.schemas.common import errors
from cbeal.service.schemas.experts import AgreementOut, ExpertSettingsIn
from cbeal.service.schemas.stream_replies import BandOut
from cbeal.service.schemas.streams import (
    HistoryOut,
    StreamConfig,
    StreamConfigOut,
    StreamListOut,
    StreamStatusOut,
)

__all__ = ["StreamName", "router"]

StreamName = Annotated[str, Path(pattern=STREAM_NAME)]

router = APIRouter(prefix="/api/v1/streams", tags=["streams"], route_class=StrictRoute)


@router.post("", status_code=201, response_model=StreamStatusOut, responses=errors(409, 413, 422))
def create_stream(config: StreamConfig, who: Admin, service: ServiceDep) -> dict[str, Any]:
    """Create a stream (a line or machine): its features, classes (or, for measured values,
    task regression with a tolerance), preset and budget."""
    service.streams.create(config)
    return stream_status(service, config.name)


@router.get("", response_model=StreamListOut, responses=errors())
def list_streams(who: AnyRole, service: ServiceDep) -> dict[str, Any]:
    return {"streams": who.visible(service.streams.names())}  # a scoped token: its own


@router.get(
    "/{name}",
    operation_id="get_stream",
    response_model=StreamStatusOut,
    responses=errors(404, 409, 422),
)
def status(name: StreamName, who: AnyRole, service: ServiceDep) -> dict[str, Any]:
    """The stream's state: samples, labels, budget, weights, queue, model version."""
    return stream_status(service, name)


@router.get(
    "/{name}/config",
    operation_id="get_stream_config",
    response_model=StreamConfigOut,
    responses=errors(404, 409, 422),
)
def config(name: StreamName, who: AnyRole, service: ServiceDep) -> dict[str, Any]:
    """The stream's configuration, its agents in plain words and how they are weighed."""
    return stream_config(service, name)


@router.patch(
    "/{name}/config",
    operation_id="change_stream_config",
    response_model=StreamConfigOut,
    responses=errors(404, 409, 413, 422),
)
def change_config(
    name: StreamName, body: ExpertSettingsIn, who: Admin, service: ServiceDep
) -> dict[str, Any]:
    """Change how many experts answer each part: `labels_per_part`, `second_opinion_below`
    (null: none). Parts asked before follow the new settings from their next answer on."""
    service.streams.change(name, body.model_dump(include=body.model_fields_set))
    return stream_config(service, name)


@router.get(
    "/{name}/agreement",
    operation_id="get_agreement",
    response_model=AgreementOut,
    responses=errors(404, 409, 422),
)
def agreement(name: StreamName, who: AnyRole, service: ServiceDep) -> dict[str, Any]:
    """How far the experts agree: Krippendorff's α over the multiply-answered parts, the
    parts agreed, disputed and settled, and each labeller's answers and agreement with the
    final labels."""
    return stream_agreement(service.streams, name)


@router.get(
    "/{name}/history",
    operation_id="get_stream_history",
    response_model=HistoryOut,
    responses=errors(404, 409, 422),
)
def stream_history(
    name: StreamName,
    who: AnyRole,
    service: ServiceDep,
    points: Annotated[int, Query(ge=2, le=MAX_POINTS)] = 60,
) -> dict[str, Any]:
    """The stream over time, in `points` bins: the dashboard's charts."""
    return history(service.streams, name, points)


@router.get(
    "/{name}/band",
    operation_id="get_error_band",
    response_model=BandOut,
    responses=errors(404, 409, 422),
)
def band(name: StreamName, who: AnyRole, service: ServiceDep) -> dict[str, Any]:
    """A regression stream: each learned label's error against the tolerance band, with
    RMSE, MAE and the share within the band (422 for a classification stream)."""
    return error_band(service.streams, name)


_FILES = {
    "content": {
        "text/csv": {"schema": {"type": "string"}},
        "application/vnd.apache.parquet": {"schema": {"type": "string", "format": "binary"}},
    },
    "description": "every sample with its decision and label",
}
# cbeal's model file (a sealed archive of JSON, arrays and skops blobs, read by
# `CbeAL.load`): opaque bytes to a client, not a zip to unpack
MODEL_FILE = "application/octet-stream"


@router.get(
    "/{name}/export",
    operation_id="export_stream",
    tags=["export"],
    response_class=Response,
    responses={200: _FILES, **errors(404, 409, 422)},
)
def export(
    name: StreamName,
    who: Admin,
    service: ServiceDep,
    format: Annotated[str, Query(pattern="^(csv|parquet)$")] = "csv",
    rows: Annotated[
        Literal["samples", "answers"],
        Query(description="samples: one row per sample; answers: one row per expert's answer"),
    ] = "samples",
    archive: Annotated[
        bool,
        Query(description="also the samples the service's retention moved to the archive"),
    ] = False,
) -> Response:
    from cbeal.service.engine.export import export_answers, export_table

    if rows == "answers":
        data, media = export_answers(service, name, format)
    else:
        data, media = export_table(service, name, format, archive=archive)
    return Response(
        data,
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="{name}.{format}"'},
    )


@router.get(
    "/{name}/model",
    operation_id="get_model_file",
    tags=["export"],
    response_class=Response,
    responses={
        200: {
            "content": {MODEL_FILE: {"schema": {"type": "string", "format": "binary"}}},
            "description": "the model file (load it with CbeAL.from_bytes or CbeAL.load)",
        },
        **errors(404, 409, 422),
    },
)
def model_file(name: StreamName, who: Admin, service: ServiceDep) -> Response:
    """The stream's model in cbeal's safe model-file format (``CbeAL.load``)."""
    runtime = service.streams.get(name)
    with runtime.lock:
        if runtime.model is None:
            return JSONResponse(
                {"detail": "the stream is still in its cold start: no model yet"},
                status_code=409,
            )
        data = runtime.model.to_bytes()
    return Response(
        data,
        media_type=MODEL_FILE,
        headers={"Content-Disposition": f'attachment; filename="{name}.cbeal"'},
    )
