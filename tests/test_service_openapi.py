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

from .service_helpers import line, stream_config


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
        assert {"401", "403"} <= set(responses), f"{method} {path}: token errors not declared"
        for code in set(responses) - {"200", "201", "204", "422"}:
            if code.startswith(("4", "5")):
                schema = responses[code]["content"]["application/json"]["schema"]
                assert schema["$ref"].endswith("/ErrorOut"), (path, method, code)
    metrics = doc["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
    assert "text/plain" in metrics and "application/json" not in metrics


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
