"""The OpenAPI document describes every reply: each route declares its response model (or
its content type), and the errors it may answer; real replies validate against them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cbeal.catalog import AGENTS, preset_entry
from cbeal.service.app import Settings, create_app
from cbeal.service.schemas.samples import SamplesReply
from cbeal.service.schemas.streams import HistoryOut, StreamConfigOut, StreamStatusOut
from cbeal.service.schemas.tasks import ContextOut, TaskOut

from ..service_helpers import line, stream_config


@pytest.fixture
def service(tmp_path: Path) -> Any:
    app = create_app(
        Settings(db=f"sqlite:///{tmp_path / 'o.db'}", open=True, undo_seconds=0, retrain="sync")
    )
    with TestClient(app) as c:
        yield c


def test_every_route_declares_its_reply_and_its_errors(service: TestClient) -> None:
    doc = service.get("/openapi.json").json()
    routes = [(p, m, op) for p, ops in doc["paths"].items() for m, op in ops.items()]
    assert len(routes) >= 19
    for path, method, op in routes:
        responses = op["responses"]
        ok = [c for c in responses if c.startswith("2")]
        assert ok, (path, method)
        for code in ok:
            if code == "204":
                continue
            content = responses[code].get("content") or {}
            assert content, f"{method} {path} {code} declares no reply"
            for media, spec in content.items():
                if media == "application/json":
                    assert spec.get("schema"), f"{method} {path} {code}: no reply schema"
        always = {"401", "403", "500", "503"}  # a token refused, a bug, an outage
        assert always <= set(responses), f"{method} {path}: not all of {always} declared"
        if op.get("parameters") or op.get("requestBody"):
            assert "422" in responses, f"{method} {path}: 422 not declared"
        if op.get("requestBody"):
            assert "413" in responses, f"{method} {path}: 413 not declared"
        for code in set(responses) - {"200", "201", "204"}:
            if code.startswith(("4", "5")):
                schema = responses[code]["content"]["application/json"]["schema"]
                assert schema["$ref"].endswith("/ErrorOut"), (path, method, code)
        for code in ("409", "503"):
            if code in responses:
                assert "Retry-After" in responses[code]["headers"], (path, method, code)
    metrics = doc["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
    assert "text/plain" in metrics and "application/json" not in metrics
    detail = doc["components"]["schemas"]["ErrorOut"]["properties"]["detail"]["anyOf"]
    assert {"type": "string"} in detail and any(d.get("type") == "array" for d in detail)


def test_error_replies_match_the_error_model(service: TestClient) -> None:
    """Both shapes of 422 (a sentence, a list of problems) and the other errors validate
    as ErrorOut, the model every error status declares."""
    from cbeal.service.schemas.common import ErrorOut

    s = line(seed=5)
    service.post("/api/v1/streams", json=stream_config(s))
    replies = [
        service.post("/api/v1/streams/line1/samples", json={"samples": [{"id": "a", "x": [1]}]}),
        service.post("/api/v1/streams/line1/samples", json={"samples": "x"}),
        service.get("/api/v1/streams/nope"),
        service.post("/api/v1/streams", json=stream_config(s)),
    ]
    assert [r.status_code for r in replies] == [422, 422, 404, 409]
    assert isinstance(replies[0].json()["detail"], str)
    assert isinstance(replies[1].json()["detail"], list)
    for r in replies:
        ErrorOut.model_validate(r.json())


def test_real_replies_match_their_models(service: TestClient) -> None:
    s = line(seed=5)
    assert StreamStatusOut.model_validate(
        service.post("/api/v1/streams", json=stream_config(s)).json()
    )
    reply = service.post(
        "/api/v1/streams/line1/samples",
        json={"samples": [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(200)]},
    ).json()
    SamplesReply.model_validate(reply)
    task = TaskOut.model_validate(service.get("/api/v1/streams/line1/tasks/next").json())
    assert task.decision.acquire and task.asked_by is not None
    ContextOut.model_validate(service.get(f"/api/v1/tasks/{task.task_id}/context").json())
    labelled = service.post(
        f"/api/v1/tasks/{task.task_id}/label", json={"label": "ok", "request_id": "r1"}
    ).json()
    assert TaskOut.model_validate(labelled).status == "learned"
    config = StreamConfigOut.model_validate(service.get("/api/v1/streams/line1/config").json())
    agents = preset_entry().agents
    assert [a.name for a in config.agent_info] == list(agents)
    assert [a.label for a in config.agent_info] == [AGENTS[a].label for a in agents]
    history = HistoryOut.model_validate(service.get("/api/v1/streams/line1/history").json())
    status = StreamStatusOut.model_validate(service.get("/api/v1/streams/line1").json())
    assert history.bins[-1].model_version == status.model_version  # charts end at the tiles


def test_operation_ids_are_short_and_files_have_schemas(service: TestClient) -> None:
    # issue 29: a generated client's methods are named by the operation ids, and every
    # reply that is not JSON says what it is
    doc = service.get("/openapi.json").json()
    ops = {
        (m, p): op for p, ms in doc["paths"].items() for m, op in ms.items() if isinstance(op, dict)
    }
    ids = [op["operationId"] for op in ops.values()]
    assert len(set(ids)) == len(ids)
    for name in ids:
        assert name.replace("_", "").isalpha() and "api_v1" not in name, name
    assert ops[("get", "/api/v1/streams")]["operationId"] == "list_streams"
    assert ops[("get", "/api/v1/streams/{name}")]["operationId"] == "get_stream"
    for (method, path), op in ops.items():
        for code, reply in op["responses"].items():
            for media, spec in (reply.get("content") or {}).items():
                assert spec.get("schema"), f"{method} {path} {code} {media}: no schema"
    model = ops[("get", "/api/v1/streams/{name}/model")]["responses"]["200"]["content"]
    assert model == {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
    export = ops[("get", "/api/v1/streams/{name}/export")]["responses"]["200"]["content"]
    assert export["text/csv"]["schema"] == {"type": "string"}
    metrics = ops[("get", "/metrics")]["responses"]["200"]["content"]
    assert metrics["text/plain"]["schema"] == {"type": "string"}
