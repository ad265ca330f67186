"""The Label Studio bridge for a regression stream: a ``<Number>`` box, tasks that carry the
prediction and its interval, and numeric answers through the webhook and pull.

The answer's shape is Label Studio's ``Number`` result, ``{"from_name", "to_name", "type":
"number", "value": {"number": <the typed value>}}`` (Label Studio 1.23's Number tag and its
SDK's ``NumberValue``); the events around it are the recorded bodies of
tests/data/labelstudio_webhooks.json, with their result made a number. The twin against a
running Label Studio is in tests/bridges/test_labelstudio_live.py.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cbeal.bridges.client import Client
from cbeal.bridges.labelstudio import CONTROL, label_config, pull, push
from cbeal.service.app import Settings, create_app

from ..service.test_service_regression import TOL, post, regression_config
from ..service_helpers import line, stream_config
from .test_service_labelstudio import RECORDED, hook, recorded


def number(value: Any) -> dict[str, Any]:
    """A Number control's result, as Label Studio sends it."""
    return {"from_name": CONTROL, "to_name": "part", "type": "number", "value": {"number": value}}


def with_number(name: str, cbeal_task: int, value: Any) -> dict[str, Any]:
    """A recorded event about one annotation whose answer is the typed number `value`."""
    body = recorded(name, cbeal_task)
    body["annotation"]["result"] = [number(value)]
    return body


@pytest.fixture
def service(tmp_path: Path) -> Iterator[TestClient]:
    """A regression stream (torque, ±2.5 Nm) with 300 parts seen, and a class stream."""
    app = create_app(Settings(db=f"sqlite:///{tmp_path / 'ls.db'}", open=True, undo_seconds=3600.0))
    with TestClient(app) as c:
        assert c.post("/api/v1/streams", json=regression_config()).status_code == 201
        post(c, 30, 330)
        s = line(seed=3)
        assert c.post("/api/v1/streams", json=stream_config(s)).status_code == 201
        c.post(
            "/api/v1/streams/line1/samples",
            json={"samples": [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(100)]},
        )
        yield c


def next_task(c: TestClient, stream: str = "press-7") -> int:
    return int(c.get(f"/api/v1/streams/{stream}/tasks/next?held=false").json()["task_id"])


def cbeal_client(c: TestClient) -> Client:
    client = Client("http://test", None)
    client.http = c  # the service's own test client
    return client


def test_the_configuration_asks_for_a_number_with_its_unit_and_tolerance() -> None:
    root = ET.fromstring(label_config(None, tolerance=TOL, unit="Nm"))
    box = root.find("Number")
    assert box is not None and box.get("name") == CONTROL and box.get("toName") == "part"
    assert box.get("step") is None  # Label Studio would refuse decimals off its step
    headers = [h.get("value") for h in root.findall("Header")]
    assert (
        headers[-1] == "Measured value in Nm (a prediction within ± 2.5 Nm of it counts as right)"
    )
    assert [t.get("value") for t in root.findall("Text")] == ["$question", "$prediction"]
    assert root.find("Choices") is None
    # no unit: the header says so without one; an odd unit is quoted, never breaks the XML
    assert "within ± 0.05 of it" in label_config(None, tolerance=0.05)
    odd = ET.fromstring(label_config(None, tolerance=1.0, unit='µm "x" <y>'))
    assert 'µm "x" <y>' in str(odd.findall("Header")[-1].get("value"))


def test_push_carries_the_prediction_and_its_interval_not_a_prefilled_number(
    service: TestClient,
) -> None:
    imported: list[Any] = []

    def label_studio(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json=[])
        imported.extend(json.loads(request.content))
        return httpx.Response(201, json={"task_count": len(imported)})

    ls = httpx.Client(base_url="http://ls", transport=httpx.MockTransport(label_studio))
    ids = push(cbeal_client(service), ls, stream="press-7", project=2, limit=3)
    assert len(ids) == 3 == len(imported)
    for task_id, ls_task in zip(ids, imported, strict=True):
        d = service.get(f"/api/v1/tasks/{task_id}").json()["decision"]
        data = ls_task["data"]
        assert data["cbeal_task"] == task_id and data["cbeal_stream"] == "press-7"
        assert (data["y_pred"], data["interval"], data["spread"]) == (
            d["y_pred"],
            d["interval"],
            d["spread"],
        )
        assert (data["tolerance"], data["unit"], data["certainty"]) == (TOL, "Nm", d["certainty"])
        lo, hi = d["interval"]
        assert data["prediction"] == (
            f"cbeal predicts {d['y_pred']:.1f} Nm (95 % interval {lo:.1f} to {hi:.1f} Nm; "
            f"P(within ± 2.5 Nm) = {d['certainty']:.2f})"
        )
        assert "predictions" not in ls_task  # a pre-filled box could be submitted unmeasured


def test_a_typed_number_labels_relabels_and_is_withdrawn(service: TestClient) -> None:
    a = next_task(service)
    created = with_number("annotation_created", a, 41.25)
    r = hook(service, created)
    assert r.status_code == 200, r.text
    assert (r.json()["outcome"], r.json()["label"]) == ("labelled", 41.25)
    assert hook(service, created).json()["outcome"] == "unchanged"  # a retry
    r = hook(service, with_number("annotation_updated", a, 40))  # a whole number is a value too
    assert (r.json()["outcome"], r.json()["label"]) == ("relabelled", 40.0)
    r = hook(service, recorded("annotation_deleted"))
    assert r.json()["results"][0]["outcome"] == "withdrawn"
    view = service.get(f"/api/v1/tasks/{a}").json()
    assert view["status"] == "open" and view["label"] is None
    # skipped: "not now", as for classes
    r = hook(service, recorded("annotation_skipped", next_task(service)))
    assert r.json()["outcome"] == "skipped"


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ({"type": "choices", "value": {"choices": ["ok"]}}, "takes measured values"),
        ({"type": "number", "value": {"number": 1e300}}, "not a plausible measured value"),
        ({"type": "number", "value": {"number": "41.2"}}, "valid number"),
        ({"type": "number", "value": {"number": True}}, "valid number"),
        ({"type": "number", "value": {}}, "no 'quality' number"),
    ],
)
def test_a_wrong_answer_for_a_regression_task_is_a_422_that_changes_nothing(
    service: TestClient, answer: dict[str, Any], says: str
) -> None:
    a = next_task(service)
    body = recorded("annotation_created", a)
    body["annotation"]["result"] = [{"from_name": CONTROL, "to_name": "part", **answer}]
    r = hook(service, body)
    assert r.status_code == 422 and says in r.text, r.text
    assert service.get(f"/api/v1/tasks/{a}").json()["status"] == "open"


def test_a_number_for_a_class_stream_is_refused(service: TestClient) -> None:
    a = next_task(service, "line1")
    r = hook(service, with_number("annotation_created", a, 1.0))
    assert r.status_code == 422 and "typed the number 1.0" in r.json()["detail"]
    assert service.get(f"/api/v1/tasks/{a}").json()["status"] == "open"


def test_pull_gives_each_typed_number_once(service: TestClient) -> None:
    a, b = next_task(service), next_task(service)
    ann = RECORDED["annotation_updated"]["annotation"]

    def annotation(id_: int, value: float, at: str) -> dict[str, Any]:
        return {**ann, "id": id_, "result": [number(value)], "updated_at": at}

    export = [
        {"id": 1, "data": {"cbeal_task": a, "cbeal_stream": "press-7"}, "annotations": []},
        {"id": 2, "data": {"cbeal_task": b, "cbeal_stream": "press-7"}, "annotations": []},
    ]
    export[0]["annotations"] = [annotation(21, 38.5, "2026-11-25T10:00:00.000000Z")]
    export[1]["annotations"] = [annotation(22, 1e300, "2026-11-25T10:00:00.000000Z")]
    ls = httpx.Client(
        base_url="http://ls",
        transport=httpx.MockTransport(lambda request: httpx.Response(200, json=export)),
    )
    first = pull(cbeal_client(service), ls, stream="press-7", project=2)
    assert first["outcomes"] == {"labelled": 1, "refused": 1}
    (refused,) = first["refused"]
    assert refused["task_id"] == b and "not a plausible measured value" in refused["detail"]
    assert service.get(f"/api/v1/tasks/{a}").json()["label"] == 38.5
    # fixed in Label Studio: the next pull takes it, the first stays as it was
    export[1]["annotations"] = [annotation(22, 37.25, "2026-11-25T11:00:00.000000Z")]
    again = pull(cbeal_client(service), ls, stream="press-7", project=2)
    assert again == {"outcomes": {"unchanged": 1, "labelled": 1}, "refused": []}
    labels = [service.get(f"/api/v1/tasks/{t}").json()["label"] for t in (a, b)]
    assert labels == [38.5, 37.25] and not any(math.isnan(v) for v in labels)
