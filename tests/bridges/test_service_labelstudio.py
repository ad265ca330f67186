"""The Label Studio bridge against the bodies a real Label Studio (1.23.2) sent to a
recording server (tests/data/labelstudio_webhooks.json) and the shapes of its import and
export API; the fast twin of tests/bridges/test_labelstudio_live.py, which runs Label Studio."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cbeal.bridges.client import Client
from cbeal.bridges.labelstudio import (
    WEBHOOK,
    connect,
    label_config,
    project_tasks,
    pull,
    push,
)
from cbeal.service.app import Settings, create_app

from ..service_helpers import free_port, line, stream_config

RECORDED = json.loads(
    (Path(__file__).parents[1] / "data" / "labelstudio_webhooks.json").read_text()
)


def recorded(name: str, cbeal_task: int | None = None) -> dict[str, Any]:
    """A recorded webhook body, its task(s) pointing at `cbeal_task`."""
    body = copy.deepcopy(RECORDED[name])
    tasks = body.get("task")
    for t in tasks if isinstance(tasks, list) else [tasks] if tasks else []:
        t["data"]["cbeal_task"] = cbeal_task
    return body


Make = Callable[..., TestClient]


@pytest.fixture
def make(tmp_path: Path) -> Iterator[Make]:
    """A service with one stream of 300 samples; `undo_seconds` as asked."""
    clients: list[Any] = []

    def build(undo_seconds: float = 3600.0) -> TestClient:
        app = create_app(
            Settings(
                db=f"sqlite:///{tmp_path / f'ls{len(clients)}.db'}",
                open=True,
                undo_seconds=undo_seconds,
                retrain="sync",
            )
        )
        c = TestClient(app)
        clients.append(c.__enter__())
        s = line(seed=3)
        c.post("/api/v1/streams", json=stream_config(s))
        c.post(
            "/api/v1/streams/line1/samples",
            json={"samples": [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(300)]},
        )
        return c

    yield build
    for c in clients:
        c.__exit__(None, None, None)


@pytest.fixture
def service(make: Make) -> TestClient:
    return make()


def next_task(service: TestClient) -> int:
    return int(service.get("/api/v1/streams/line1/tasks/next?held=false").json()["task_id"])


def hook(service: TestClient, body: dict[str, Any]) -> httpx.Response:
    return service.post(WEBHOOK, json=body)


def test_push_imports_tasks_with_a_table_and_a_prediction(service: TestClient) -> None:
    seen: list[httpx.Request] = []
    there: list[dict[str, Any]] = []

    def label_studio(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.method == "GET":  # the project's tasks, as its JSON export gives them
            return httpx.Response(200, json=there)
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
    assert len(ids) == 5 and [r.method for r in seen] == ["GET", "POST"]
    export, req = seen
    assert export.url.path == "/api/projects/3/export"
    assert export.url.params["download_all_tasks"] == "true"
    assert req.url.path == "/api/projects/3/import"
    assert req.headers["Authorization"] == "Token ls-secret"
    tasks = json.loads(req.content)
    first = tasks[0]
    assert set(first["data"]) == {"part", "sample_id", "question", "cbeal_task", "cbeal_stream"}
    assert list(first["data"]["part"]) == [f"s{i}" for i in range(6)]
    pred = first["predictions"][0]
    assert pred["model_version"].startswith("cbeal v") and 0.5 <= pred["score"] <= 1
    assert pred["result"][0]["value"]["choices"][0] in ("ok", "fail")
    # leased to Label Studio: the queue hands out other tasks
    again = next_task(service)
    assert again not in ids
    # a task that is in the project already (its lease ran out, or its annotation was
    # deleted) is leased to Label Studio again but not imported twice
    r = service.get("/api/v1/streams/line1/tasks/next?held=false&lease_seconds=0.05")
    back = r.json()["task_id"]
    time.sleep(0.1)  # the short lease runs out: the task is free, first in line
    there.append({"id": 77, "data": {"cbeal_task": back, "cbeal_stream": "line1"}})
    seen.clear()
    more = push(cbeal, ls, stream="line1", project=3, limit=3)
    assert back not in more and len(more) == 3
    assert back not in [t["data"]["cbeal_task"] for t in json.loads(seen[1].content)]
    assert next_task(service) not in [back, *more]  # leased to Label Studio again


def test_recorded_events_label_relabel_skip_and_withdraw(service: TestClient) -> None:
    a = next_task(service)
    created = recorded("annotation_created", a)
    assert created["annotation"]["result"][0]["value"]["choices"] == ["fail"]
    r = hook(service, created)
    assert r.status_code == 200 and r.json()["label"] == "fail"
    assert r.json()["outcome"] == "labelled"
    # the same event again (a retry): nothing changes
    r = hook(service, created)
    assert r.status_code == 200 and r.json()["outcome"] == "unchanged"
    # updated in Label Studio within the undo window: the new label replaces the old
    r = hook(service, recorded("annotation_updated", a))
    assert r.json()["label"] == "ok" and r.json()["outcome"] == "relabelled"
    # the created event arriving late (older updated_at): stale, the label stays
    r = hook(service, created)
    assert r.json()["outcome"] == "stale" and r.json()["label"] == "ok"
    # deleted: the label is withdrawn, the task open again
    deleted = recorded("annotation_deleted")
    assert deleted["annotations"] == [{"id": created["annotation"]["id"]}]
    r = hook(service, deleted)
    assert r.status_code == 200
    assert r.json()["results"] == [
        {"annotation": 1, "task_id": a, "outcome": "withdrawn", "status": 200, "detail": None}
    ]
    view = service.get(f"/api/v1/tasks/{a}").json()
    assert view["status"] == "open" and view["label"] is None
    # deleting it again finds nothing to withdraw
    assert hook(service, deleted).json()["results"][0]["outcome"] == "unchanged"
    # skipped in Label Studio: "not now", behind the unskipped tasks
    b = next_task(service)
    r = hook(service, recorded("annotation_skipped", b))
    assert r.json()["outcome"] == "skipped" and r.json()["skips"] == 1
    assert r.json()["status"] == "open"


def test_bulk_events_answer_one_result_each(service: TestClient) -> None:
    a, b = next_task(service), next_task(service)
    bulk = recorded("annotations_created_bulk", a)  # predictions accepted in bulk
    r = hook(service, bulk)
    assert r.status_code == 200
    (res,) = r.json()["results"]
    assert res["outcome"] == "labelled" and res["task_id"] == a
    assert service.get(f"/api/v1/tasks/{a}").json()["label"] == "ok"
    # a second annotation on a task another answer holds: refused, with why
    hook(service, recorded("annotation_created_2", b))
    other = recorded("annotations_created_bulk", b)
    other["annotation"][0]["id"] = 99
    (res,) = hook(service, other).json()["results"]
    assert res["outcome"] == "refused" and res["status"] == 409 and res["task_id"] == b
    assert "another answer" in res["detail"]
    # bulk delete: annotation 4 labelled task a, 3 labelled task b
    r = hook(service, recorded("annotations_deleted_bulk"))
    assert [(x["annotation"], x["task_id"], x["outcome"]) for x in r.json()["results"]] == [
        (4, a, "withdrawn"),
        (3, b, "withdrawn"),
    ]


@pytest.mark.parametrize("name", ["tasks_created", "tasks_deleted", "project_updated"])
def test_other_recorded_events_are_acknowledged_and_ignored(service: TestClient, name: str) -> None:
    r = hook(service, recorded(name))
    assert r.status_code == 200 and r.json()["ignored"] == RECORDED[name]["action"]


def test_after_the_undo_window_changes_are_refused_and_the_label_stays(make: Make) -> None:
    service = make(undo_seconds=0)  # every label is learned at once
    a = next_task(service)
    assert hook(service, recorded("annotation_created", a)).json()["status"] == "learned"
    r = hook(service, recorded("annotation_updated", a))
    assert r.status_code == 409 and "learned already" in r.json()["detail"]
    (res,) = hook(service, recorded("annotation_deleted")).json()["results"]
    assert res["outcome"] == "refused" and res["status"] == 409
    assert "undo window" in res["detail"]
    view = service.get(f"/api/v1/tasks/{a}").json()
    assert view["status"] == "learned" and view["label"] == "fail"


def _audit_bodies() -> list[Any]:
    """The outside audit's five bodies that crashed the webhook with a 500, and others."""
    task = 1
    created = recorded("annotation_created", task)
    strings = copy.deepcopy(created)
    strings["annotation"]["result"] = ["quality", "fail"]
    huge = recorded("annotation_created", 2**70)
    listed = copy.deepcopy(created)
    listed["annotation"] = [listed["annotation"]]
    no_id = copy.deepcopy(created)
    del no_id["annotation"]["id"]
    bad_date = copy.deepcopy(created)
    bad_date["annotation"]["updated_at"] = "yesterday"
    maybe = copy.deepcopy(created)
    maybe["annotation"]["result"][0]["value"]["choices"] = ["maybe"]
    two = copy.deepcopy(created)
    two["annotation"]["result"][0]["value"]["choices"] = ["ok", "fail"]
    no_task_id = recorded("annotation_created", None)
    deleted_bad = {"action": "ANNOTATIONS_DELETED", "annotations": [{"id": "x"}]}
    return [
        {"action": "ANNOTATION_CREATED", "task": [1]},
        {**created, "annotation": "x"},
        {**created, "task": {"data": "x"}},
        strings,
        huge,
        {"task": created["task"]},  # no action
        {**created, "action": None},
        [created],  # not an object
        "x",
        listed,
        no_id,
        bad_date,
        maybe,
        two,
        no_task_id,
        {"action": "ANNOTATION_CREATED"},  # no annotation
        deleted_bad,
        {"action": "ANNOTATIONS_DELETED", "annotations": "x"},
        {**created, "annotation": {**created["annotation"], "was_cancelled": "perhaps"}},
    ]


@pytest.mark.parametrize("body", _audit_bodies())
def test_a_malformed_body_is_a_422_never_a_500(service: TestClient, body: Any) -> None:
    if isinstance(body, dict) and isinstance(body.get("task"), dict):
        data = body["task"].get("data")
        if isinstance(data, dict) and data.get("cbeal_task") == 1:
            data["cbeal_task"] = next_task(service)  # a real task, so only the body is wrong
    r = hook(service, body)
    assert r.status_code == 422, r.text
    assert "detail" in r.json()


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
PATHS: list[tuple[str, ...]] = [  # a list on the way is entered at its first item
    ("action",),
    ("task",),
    ("task", "id"),
    ("task", "data"),
    ("task", "data", "cbeal_task"),
    ("annotation",),
    ("annotation", "id"),
    ("annotation", "task"),
    ("annotation", "was_cancelled"),
    ("annotation", "updated_at"),
    ("annotation", "result"),
    ("annotation", "result", "from_name"),
    ("annotation", "result", "value"),
    ("annotation", "result", "value", "choices"),
    ("annotations",),
]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    base=st.sampled_from(["annotation_created", "annotation_updated", "annotations_created_bulk"]),
    path=st.sampled_from(PATHS),
    value=JSON,
)
def test_any_value_anywhere_in_a_recorded_body_is_never_a_500(
    service: TestClient, base: str, path: tuple[str, ...], value: Any
) -> None:
    body: Any = recorded(base, 1)
    node = body
    for key in path[:-1]:
        node = node[key]
        if isinstance(node, list):
            node = node[0]
    node[path[-1]] = value
    r = hook(service, body)
    assert r.status_code in (200, 404, 409, 422), r.text
    assert r.status_code == 200 or "detail" in r.json()


def test_a_malformed_body_changes_nothing(service: TestClient) -> None:
    a = next_task(service)
    body = recorded("annotation_created", a)
    body["annotation"]["result"][0]["value"]["choices"] = ["maybe"]
    assert hook(service, body).status_code == 422
    assert service.get(f"/api/v1/tasks/{a}").json()["status"] == "open"


def test_pull_gives_each_annotation_once_with_the_webhook(service: TestClient) -> None:
    a, b, c = next_task(service), next_task(service), next_task(service)
    ann = RECORDED["annotation_updated"]["annotation"]

    def annotation(id_: int, choice: str, updated_at: str, **kw: Any) -> dict[str, Any]:
        result = [{**ann["result"][0], "value": {"choices": [choice]}}]
        return {**ann, "id": id_, "result": result, "updated_at": updated_at, **kw}

    export = [  # the project's annotated tasks, as Label Studio's JSON export gives them
        {"id": 1, "data": {"cbeal_task": a, "cbeal_stream": "line1"}, "annotations": []},
        {"id": 2, "data": {"cbeal_task": b, "cbeal_stream": "line1"}, "annotations": []},
        {"id": 3, "data": {"cbeal_task": c, "cbeal_stream": "line1"}, "annotations": []},
        {"id": 4, "data": {"cbeal_task": c, "cbeal_stream": "other"}, "annotations": []},
    ]
    export[0]["annotations"] = [annotation(11, "fail", "2026-11-25T10:00:00.000000Z")]
    export[1]["annotations"] = [annotation(12, "ok", "2026-11-25T10:00:00.000000Z")]
    export[2]["annotations"] = [annotation(13, "ok", "2026-11-25T10:00:00Z", was_cancelled=True)]
    export[3]["annotations"] = [annotation(14, "ok", "2026-11-25T10:00:00.000000Z")]

    def label_studio(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/api/projects/5/export"
        assert request.url.params["download_all_tasks"] == "false"
        return httpx.Response(200, json=export)

    ls = httpx.Client(base_url="http://ls", transport=httpx.MockTransport(label_studio))
    cbeal = Client("http://test", None)
    cbeal.http = service
    # the webhook brought annotation 11 already
    event = recorded("annotation_created", a)
    event["annotation"] = export[0]["annotations"][0]
    assert hook(service, event).json()["outcome"] == "labelled"
    first = pull(cbeal, ls, stream="line1", project=5)
    assert first == {"outcomes": {"unchanged": 1, "labelled": 1}, "refused": []}
    assert pull(cbeal, ls, stream="line1", project=5)["outcomes"] == {"unchanged": 2}
    # skips are not pulled; the other stream's task is not this stream's
    assert service.get(f"/api/v1/tasks/{c}").json()["skips"] == 0
    # changed in Label Studio while cbeal was down: the next pull relabels
    export[1]["annotations"] = [annotation(12, "fail", "2026-11-25T11:00:00.000000Z")]
    assert pull(cbeal, ls, stream="line1", project=5)["outcomes"] == {
        "unchanged": 1,
        "relabelled": 1,
    }
    assert service.get(f"/api/v1/tasks/{b}").json()["label"] == "fail"
    status = service.get("/api/v1/streams/line1").json()
    assert status["queue"]["waiting_to_learn"] == 2  # a and b, each labelled once


def test_pull_says_in_one_line_when_label_studio_is_unreachable() -> None:
    nowhere = f"http://127.0.0.1:{free_port()}"
    out = subprocess.run(
        [sys.executable, "-m", "cbeal", "labelstudio", "pull", "--stream", "line1",
         "--ls-url", nowhere, "--project", "1"],
        capture_output=True, text=True, env={**os.environ, "LABEL_STUDIO_TOKEN": "t"},
        check=False,
    )  # fmt: skip
    assert out.returncode == 1
    assert out.stderr.strip() == (
        f"cbeal: error: cannot reach Label Studio at {nowhere} (ConnectError); check --ls-url"
    )


def test_a_personal_access_token_is_exchanged_and_renewed_when_it_expires() -> None:
    seen: list[tuple[str, str | None]] = []
    given = iter(["access-1", "access-2"])

    def label_studio(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.path, request.headers.get("Authorization")))
        if request.url.path == "/api/token/refresh/":
            assert json.loads(request.content) == {"refresh": "a.b.c"}
            return httpx.Response(200, json={"access": next(given)})
        if request.headers["Authorization"] == "Bearer access-1" and len(seen) > 2:
            return httpx.Response(401, json={"detail": "Token is expired"})
        return httpx.Response(200, json=[])

    ls = connect("http://ls", "a.b.c", transport=httpx.MockTransport(label_studio))
    assert project_tasks(ls, 1, annotated=True) == []
    assert project_tasks(ls, 1, annotated=True) == []  # access-1 expired meanwhile
    assert seen == [
        ("/api/token/refresh/", None),
        ("/api/projects/1/export", "Bearer access-1"),
        ("/api/projects/1/export", "Bearer access-1"),
        ("/api/token/refresh/", None),
        ("/api/projects/1/export", "Bearer access-2"),
    ]
    legacy = connect("http://ls", "0123abcd")
    assert legacy.headers["Authorization"] == "Token 0123abcd"


def test_the_labelling_configuration_is_valid_xml() -> None:
    root = ET.fromstring(label_config(["ok", "fail", 'a "quoted" class']))
    choices = root.find("Choices")
    assert choices is not None and choices.get("name") == "quality"
    assert [c.get("value") for c in choices] == ["ok", "fail", 'a "quoted" class']
    assert root.find("Table").get("value") == "$part"  # type: ignore[union-attr]


def test_several_annotations_of_one_task_are_several_answers(tmp_path: Path) -> None:
    # issue 30: a stream that asks two experts per part; each Label Studio annotation is one
    # answer (by its annotator), a disagreement goes to review, and an annotation of the
    # disputed task from a webhook whose token may review (here: an admin) settles it
    app = create_app(
        Settings(db=f"sqlite:///{tmp_path / 'ls2.db'}", open=True, undo_seconds=3600.0)
    )
    with TestClient(app) as service:
        s = line(seed=3)
        service.post("/api/v1/streams", json=stream_config(s, labels_per_part=2))
        rows = [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(300)]
        service.post("/api/v1/streams/line1/samples", json={"samples": rows})
        a = next_task(service)
        first = recorded("annotation_created", a)  # annotation 1 by user 1: fail
        r = hook(service, first)
        assert r.json()["outcome"] == "labelled" and r.json()["status"] == "open"
        assert r.json()["answers_given"] == 1 and r.json()["label"] is None
        assert hook(service, first).json()["outcome"] == "unchanged"  # a retry
        # annotation 1 updated to ok: its answer replaced, still one answer
        r = hook(service, recorded("annotation_updated", a))
        assert r.json()["outcome"] == "relabelled" and r.json()["answers_given"] == 1
        # annotation 3 by user 2 says fail: two answers that differ, the part is disputed
        second = recorded("annotation_created_2", a)
        second["annotation"]["completed_by"] = 2
        second["annotation"]["result"][0]["value"]["choices"] = ["fail"]
        r = hook(service, second)
        assert r.json()["status"] == "disputed", r.text
        view = service.get(f"/api/v1/tasks/{a}").json()
        assert {(x["by"], x["label"]) for x in view["answers"]} == {
            ("label-studio:user-1", "ok"),
            ("label-studio:user-2", "fail"),
        }
        # annotation 3 deleted in Label Studio: its answer withdrawn, the part open again
        deleted = recorded("annotation_deleted")
        deleted["annotations"] = [{"id": 3}]
        (res,) = hook(service, deleted).json()["results"]
        assert (res["task_id"], res["outcome"]) == (a, "withdrawn")
        assert service.get(f"/api/v1/tasks/{a}").json()["status"] == "open"
        assert hook(service, second).json()["status"] == "disputed"  # sent again
        # the review's result is the settled label
        review = recorded("annotation_created_2", a)
        review["annotation"].update(id=99, completed_by=7)
        r = hook(service, review)
        assert r.json()["status"] == "labelled" and r.json()["label"] == "ok", r.text
        kinds = {(x["by"], x["kind"]) for x in service.get(f"/api/v1/tasks/{a}").json()["answers"]}
        assert ("label-studio:user-7", "settle") in kinds
        rep = service.get("/api/v1/streams/line1/agreement").json()
        assert rep["parts"] == {"agreed": 0, "disputed": 0, "settled": 1}
