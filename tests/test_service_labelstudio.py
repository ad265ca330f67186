"""The Label Studio bridge, against the request and response shapes of Label Studio's documented
API (import endpoint, webhook events) — not a running Label Studio."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cbeal.bridges.client import Client
from cbeal.bridges.labelstudio import label_config, push
from cbeal.service.app import Settings, create_app

from .service_helpers import line, stream_config


def event(
    action: str,
    task_id: int,
    choice: str | None,
    *,
    cancelled: bool = False,
    annotation_id: int = 7,
) -> dict[str, Any]:
    """A webhook event as Label Studio sends it (the fields the bridge reads, and others)."""
    result = (
        []
        if choice is None
        else [
            {
                "id": "a1B2c3",
                "from_name": "quality",
                "to_name": "part",
                "type": "choices",
                "origin": "manual",
                "value": {"choices": [choice]},
            }
        ]
    )
    return {
        "action": action,
        "project": {"id": 3, "title": "press-3", "task_number": 12},
        "task": {
            "id": 901,
            "project": 3,
            "is_labeled": True,
            "data": {
                "sample_id": "p1",
                "cbeal_task": task_id,
                "cbeal_stream": "line1",
                "part": {"s0": 0.1},
                "question": "…",
            },
        },
        "annotation": {
            "id": annotation_id,
            "task": 901,
            "project": 3,
            "completed_by": 2,
            "was_cancelled": cancelled,
            "ground_truth": False,
            "result": result,
            "lead_time": 4.2,
            "created_at": "2026-11-23T10:00:00.000000Z",
        },
    }


@pytest.fixture
def service(tmp_path: Path) -> Any:
    app = create_app(
        Settings(
            db=f"sqlite:///{tmp_path / 'ls.db'}", open=True, undo_seconds=3600.0, retrain="sync"
        )
    )
    with TestClient(app) as c:
        s = line(seed=3)
        c.post("/api/v1/streams", json=stream_config(s))
        c.post(
            "/api/v1/streams/line1/samples",
            json={"samples": [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(300)]},
        )
        yield c


def test_push_imports_tasks_with_a_table_and_a_prediction(service: TestClient) -> None:
    seen: list[httpx.Request] = []

    def label_studio(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        n = len(json.loads(request.content))
        return httpx.Response(
            201,
            json={"task_count": n, "annotation_count": 0, "prediction_count": n, "duration": 0.1},
        )

    ls = httpx.Client(
        base_url="http://label-studio:8080",
        transport=httpx.MockTransport(label_studio),
        headers={"Authorization": "Token ls-secret"},
    )
    cbeal = Client("http://test", None)
    cbeal.http = service  # the service's own test client
    ids = push(cbeal, ls, stream="line1", project=3, limit=5)
    assert len(ids) == 5 and len(seen) == 1
    req = seen[0]
    assert req.method == "POST" and req.url.path == "/api/projects/3/import"
    assert req.headers["Authorization"] == "Token ls-secret"
    tasks = json.loads(req.content)
    first = tasks[0]
    assert set(first["data"]) == {"part", "sample_id", "question", "cbeal_task", "cbeal_stream"}
    assert list(first["data"]["part"]) == [f"s{i}" for i in range(6)]
    pred = first["predictions"][0]
    assert pred["model_version"].startswith("cbeal v") and 0.5 <= pred["score"] <= 1
    assert pred["result"][0]["value"]["choices"][0] in ("ok", "fail")
    # leased to Label Studio: the queue hands out other tasks
    again = service.get("/api/v1/streams/line1/tasks/next?held=false").json()
    assert again["task_id"] not in ids


def test_webhooks_label_relabel_and_skip(service: TestClient) -> None:
    a = service.get("/api/v1/streams/line1/tasks/next").json()["task_id"]
    hook = "/api/v1/integrations/label-studio/webhook"
    r = service.post(hook, json=event("ANNOTATION_CREATED", a, "fail"))
    assert r.status_code == 200 and r.json()["label"] == "fail"
    assert service.post(hook, json=event("ANNOTATION_CREATED", a, "fail")).status_code == 200
    r = service.post(hook, json=event("ANNOTATION_UPDATED", a, "ok"))
    assert r.json()["label"] == "ok" and r.json()["status"] == "labelled"
    b = service.get("/api/v1/streams/line1/tasks/next").json()["task_id"]
    r = service.post(hook, json=event("ANNOTATION_CREATED", b, None, cancelled=True))
    assert r.json()["skips"] == 1 and r.json()["status"] == "open"
    assert service.post(hook, json={"action": "PROJECT_UPDATED"}).json() == {
        "ignored": "PROJECT_UPDATED"
    }
    r = service.post(hook, json=event("ANNOTATION_CREATED", b, "maybe"))
    assert r.status_code == 422 and "not one of" in r.text
    bad = event("ANNOTATION_CREATED", b, "ok")
    del bad["task"]["data"]["cbeal_task"]
    assert service.post(hook, json=bad).status_code == 422


def test_the_labelling_configuration_is_valid_xml() -> None:
    root = ET.fromstring(label_config(["ok", "fail", 'a "quoted" class']))
    choices = root.find("Choices")
    assert choices is not None and choices.get("name") == "quality"
    assert [c.get("value") for c in choices] == ["ok", "fail", 'a "quoted" class']
    assert root.find("Table").get("value") == "$part"  # type: ignore[union-attr]
