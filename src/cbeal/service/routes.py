"""The routes of API v1 (see the README's service section for the contract)."""

from __future__ import annotations

import time
from typing import Annotated, Any

import orjson
from fastapi import Depends, FastAPI, Path, Query
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Integer, func, select

from cbeal.service.config import Label, Row, StreamConfig
from cbeal.service.ingest import ingest
from cbeal.service.insight import history, sample_context
from cbeal.service.labelstudio import webhook_answer
from cbeal.service.schema import samples, tasks
from cbeal.service.tokens import Principal

__all__ = ["add_routes"]

StreamName = Annotated[str, Path(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")]
TaskId = Annotated[int, Path(ge=1, le=2**62)]
RequestId = Annotated[str, Field(min_length=1, max_length=100)]


class SampleIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=200, description="your id of the part (idempotent)")
    x: Row


class SamplesIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    samples: list[SampleIn] = Field(min_length=1, max_length=10_000)


class LabelIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    label: Label
    request_id: RequestId


class AnswerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    request_id: RequestId


def add_routes(app: FastAPI, service: Any, role: Any) -> None:
    """Register the API on `app`."""
    any_role = Depends(role("ingest", "annotate"))
    ingest_role = Depends(role("ingest"))
    annotate_role = Depends(role("annotate"))
    admin = Depends(role("admin"))
    m = service.metrics

    @app.get("/healthz", tags=["operations"])
    def healthz(who: Principal = any_role) -> dict[str, Any]:
        return {"status": "ok", "streams_served": len(service.streams.owned())}

    @app.get("/metrics", tags=["operations"])
    def metrics(who: Principal = any_role) -> Response:
        return Response(m.render(service), media_type="text/plain; version=0.0.4")

    @app.post("/api/v1/streams", status_code=201, tags=["streams"])
    def create_stream(config: StreamConfig, who: Principal = admin) -> dict[str, Any]:
        service.streams.create(config)
        return status(config.name, who)

    @app.get("/api/v1/streams", tags=["streams"])
    def list_streams(who: Principal = any_role) -> dict[str, Any]:
        return {"streams": service.streams.names()}

    @app.get("/api/v1/streams/{name}", tags=["streams"])
    def status(name: StreamName, who: Principal = any_role) -> dict[str, Any]:
        runtime = service.streams.get(name)
        with runtime.lock:
            out = {"name": name, **runtime.status()}
        with service.engine.connect() as conn:
            learned = conn.execute(
                select(func.count(), func.sum(func.cast(tasks.c.correct, Integer))).where(
                    tasks.c.stream_id == runtime.stream_id, tasks.c.correct.is_not(None)
                )
            ).one()
            received = conn.execute(
                select(func.count()).where(
                    tasks.c.stream_id == runtime.stream_id,
                    tasks.c.status.in_(("labelled", "learned")),
                )
            ).scalar_one()
            n_samples = conn.execute(
                select(func.count()).where(
                    samples.c.stream_id == runtime.stream_id, samples.c.seq > 0
                )
            ).scalar_one()
        n, right = learned
        out.update(
            samples_received=int(n_samples),
            labels_received=int(received),
            prequential_accuracy=None if not n else round(int(right or 0) / n, 4),
            prequential_labels=int(n),
            queue=service.tasks.queue(name),
            model_training=service.background.training.get(name),
            last_retrain=service.background.last_retrain.get(name),
        )
        return out

    @app.post("/api/v1/streams/{name}/samples", tags=["samples"], response_model=None)
    def post_samples(name: StreamName, body: SamplesIn, who: Principal = ingest_role) -> Response:
        start = time.perf_counter()
        replies = ingest(service.streams, name, [(s.id, s.x) for s in body.samples])
        fresh = [r for r in replies if not r["duplicate"]]
        m.samples.labels(name).inc(len(fresh))
        m.acquired.labels(name).inc(sum(r["acquire"] for r in fresh))
        m.latency.labels("samples").observe(time.perf_counter() - start)
        # the hot path: orjson straight to bytes (FastAPI's encoder walks every value first)
        return Response(
            orjson.dumps({"decisions": replies}, option=orjson.OPT_SERIALIZE_NUMPY),
            media_type="application/json",
        )

    @app.get("/api/v1/streams/{name}/tasks/next", tags=["tasks"], response_model=None)
    def next_task(
        name: StreamName,
        lease_seconds: Annotated[float | None, Query(gt=0, le=30 * 86400)] = None,
        held: bool = True,
        who: Principal = annotate_role,
    ) -> Any:
        task = service.tasks.lease_next(name, f"{who.name}#{who.token_id}", lease_seconds, held)
        if task is None:
            return Response(status_code=204)
        return task

    @app.get("/api/v1/me", tags=["operations"])
    def me(who: Principal = any_role) -> dict[str, Any]:
        return {"name": who.name, "role": who.role, "undo_seconds": service.settings.undo_seconds}

    @app.get("/api/v1/tasks/{task_id}/context", tags=["tasks"])
    def task_context(
        task_id: TaskId, top: Annotated[int, Query(ge=1, le=50)] = 8, who: Principal = annotate_role
    ) -> dict[str, Any]:
        return sample_context(service.streams, service.tasks.view(task_id), top)

    @app.get("/api/v1/streams/{name}/history", tags=["streams"])
    def stream_history(
        name: StreamName,
        points: Annotated[int, Query(ge=2, le=500)] = 60,
        who: Principal = any_role,
    ) -> dict[str, Any]:
        return history(service.streams, name, points)

    @app.get("/api/v1/streams/{name}/config", tags=["streams"])
    def stream_config(name: StreamName, who: Principal = any_role) -> dict[str, Any]:
        config = service.streams.get(name).config
        return config.model_dump(mode="json", exclude={"initial", "history"})

    @app.post("/api/v1/integrations/label-studio/webhook", tags=["integrations"])
    def label_studio_webhook(
        event: dict[str, Any], who: Principal = annotate_role
    ) -> dict[str, Any]:
        answer = webhook_answer(event)
        if answer is None:
            return {"ignored": str(event.get("action"))}
        task_id, kind, choice = answer
        if kind == "skip":
            return service.tasks.skip(task_id)
        view = service.tasks.view(task_id)
        classes = service.streams.get(view["stream"]).config.classes
        label = next((c for c in classes if str(c) == str(choice)), None)
        if label is None:
            raise ValueError(f"the Label Studio choice {choice!r} is not one of {classes}")
        rid = f"label-studio-{(event.get('annotation') or {}).get('id')}-{choice}"[:100]
        if kind == "relabel" and view["status"] == "labelled" and view["label"] != label:
            service.tasks.undo(task_id)
        return service.tasks.label(task_id, label, rid, f"label-studio:{who.name}")

    @app.get("/api/v1/tasks/{task_id}", tags=["tasks"])
    def get_task(task_id: TaskId, who: Principal = annotate_role) -> dict[str, Any]:
        return service.tasks.view(task_id)

    @app.post("/api/v1/tasks/{task_id}/label", tags=["tasks"])
    def label(task_id: TaskId, body: LabelIn, who: Principal = annotate_role) -> dict[str, Any]:
        out = service.tasks.label(task_id, body.label, body.request_id, who.name)
        m.labels.labels(out["stream"]).inc()
        return out

    @app.post("/api/v1/tasks/{task_id}/skip", tags=["tasks"])
    def skip(task_id: TaskId, body: AnswerIn, who: Principal = annotate_role) -> dict[str, Any]:
        return service.tasks.skip(task_id)

    @app.post("/api/v1/tasks/{task_id}/cannot-tell", tags=["tasks"])
    def cannot_tell(
        task_id: TaskId, body: AnswerIn, who: Principal = annotate_role
    ) -> dict[str, Any]:
        return service.tasks.cannot_tell(task_id, body.request_id, who.name)

    @app.post("/api/v1/tasks/{task_id}/undo", tags=["tasks"])
    def undo(task_id: TaskId, body: AnswerIn, who: Principal = annotate_role) -> dict[str, Any]:
        return service.tasks.undo(task_id)

    @app.get("/api/v1/streams/{name}/export", tags=["export"], response_model=None)
    def export(
        name: StreamName,
        format: Annotated[str, Query(pattern="^(csv|parquet)$")] = "csv",
        who: Principal = admin,
    ) -> Response:
        from cbeal.service.export import export_table

        data, media = export_table(service, name, format)
        return Response(
            data,
            media_type=media,
            headers={"Content-Disposition": f'attachment; filename="{name}.{format}"'},
        )

    @app.get("/api/v1/streams/{name}/model", tags=["export"], response_model=None)
    def model_file(name: StreamName, who: Principal = admin) -> Response:
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
            media_type="application/zip",
            headers={"Content-Disposition": f'attachment; filename="{name}.cbeal"'},
        )
