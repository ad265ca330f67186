"""No unhandled 500 and strict parsing (issue 21, items 5 and 11): every request the outside
audit answered with a plain-text 500 gets a 4xx with a JSON body, on SQLite and on
PostgreSQL; what no handler expects becomes a JSON 500 whose error id is logged with its
traceback; features are JSON numbers or null, labels one of the stream's classes with
their JSON type."""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cbeal.bridges.labelstudio import WEBHOOK
from cbeal.service.app import Settings, create_app
from cbeal.service.engine.tokens import create_token

from ..service_helpers import line, stream_config

RECORDED = json.loads(
    (Path(__file__).parents[1] / "data" / "labelstudio_webhooks.json").read_text()
)


def app_of(db: str) -> Any:
    return create_app(Settings(db=db, undo_seconds=3600.0, retrain="sync"))


@pytest.fixture
def service(db: str) -> Iterator[tuple[TestClient, dict[str, str], int]]:
    """A service (with tokens) whose stream has 200 samples; the id of an open task."""
    app = app_of(db)
    token = create_token(app.state.service.engine, role="admin", name="me")
    auth = {"Authorization": f"Bearer {token}"}
    with TestClient(app) as c:
        s = line(seed=1)
        assert c.post("/api/v1/streams", json=stream_config(s), headers=auth).status_code == 201
        samples = [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(200)]
        c.post("/api/v1/streams/line1/samples", json={"samples": samples}, headers=auth)
        task = c.get("/api/v1/streams/line1/tasks/next", headers=auth).json()["task_id"]
        yield c, auth, task


def raw(text: str) -> bytes:
    """A JSON body exactly as written (lone surrogates cannot be encoded by a client's
    JSON encoder, but can be sent)."""
    return text.encode()


def audit_cases(task: int) -> list[tuple[str, str, Any]]:
    """(what, path, body) of every request that got a 500 in the audit (finding 6)."""
    created = copy.deepcopy(RECORDED["annotation_created"])
    created["task"]["data"]["cbeal_task"] = task
    strings = copy.deepcopy(created)
    strings["annotation"]["result"] = ["quality", "fail"]
    huge = copy.deepcopy(created)
    huge["task"]["data"]["cbeal_task"] = 2**70
    label = f"/api/v1/tasks/{task}/label"
    samples = "/api/v1/streams/line1/samples"
    row = "[1, 2, 3, 4, 5, 6]"
    return [
        ("webhook: task a list", WEBHOOK, {"action": "ANNOTATION_CREATED", "task": [1]}),
        ("webhook: annotation a string", WEBHOOK, {**created, "annotation": "x"}),
        ("webhook: task data a string", WEBHOOK, {**created, "task": {"data": "x"}}),
        ("webhook: result items strings", WEBHOOK, strings),
        ("webhook: cbeal_task 2**70", WEBHOOK, huge),
        ("label: lone surrogate", label, raw('{"label": "f\\ud800", "request_id": "s1"}')),
        ("label: lone low surrogate", label, raw('{"label": "\\udc00", "request_id": "s2"}')),
        ("request id: NUL", label, raw('{"label": "ok", "request_id": "r\\u0000"}')),
        ("sample id: NUL", samples, raw(f'{{"samples": [{{"id": "a\\u0000", "x": {row}}}]}}')),
        ("sample id: surrogate", samples, raw(f'{{"samples": [{{"id": "\\ud800", "x": {row}}}]}}')),
        (
            "feature name: surrogate",
            samples,
            raw('{"samples": [{"id": "b", "x": {"\\ud800": 1}}]}'),
        ),
        (
            "webhook: surrogate in a field cbeal does not read",
            WEBHOOK,
            raw('{"action": "PROJECT_UPDATED", "project": {"title": "\\ud800"}}'),
        ),
        (
            "stream: surrogate class",
            "/api/v1/streams",
            raw(
                json.dumps(stream_config(line(seed=1), name="line2")).replace(
                    '"fail"', '"f\\ud800"'
                )
            ),
        ),
        (
            "stream: NUL name",
            "/api/v1/streams",
            raw(
                json.dumps(stream_config(line(seed=1), name="line3")).replace(
                    '"line3"', '"l\\u0000"'
                )
            ),
        ),
    ]


def test_every_request_that_got_a_500_in_the_audit_gets_a_4xx_with_json(
    service: tuple[TestClient, dict[str, str], int],
) -> None:
    c, auth, task = service
    for what, path, body in audit_cases(task):
        if isinstance(body, bytes):
            r = c.post(path, content=body, headers={**auth, "Content-Type": "application/json"})
        else:
            r = c.post(path, json=body, headers=auth)
        assert 400 <= r.status_code < 500, (what, r.status_code, r.text)
        assert r.headers["content-type"].startswith("application/json"), what
        assert r.json()["detail"], what
    # nothing was stored, nothing reloaded: the task is still open, the stream serves on
    assert c.get(f"/api/v1/tasks/{task}", headers=auth).json()["status"] == "open"
    r = c.post(
        f"/api/v1/tasks/{task}/label", json={"label": "ok", "request_id": "fine"}, headers=auth
    )
    assert r.status_code == 200 and r.json()["status"] == "labelled"


def test_nul_and_surrogates_say_what_is_wrong(
    service: tuple[TestClient, dict[str, str], int],
) -> None:
    c, auth, task = service
    json_headers = {**auth, "Content-Type": "application/json"}
    r = c.post(
        f"/api/v1/tasks/{task}/label",
        content=raw('{"label": "ok", "request_id": "r\\u0000"}'),
        headers=json_headers,
    )
    assert r.status_code == 422 and "NUL" in r.text
    r = c.post(
        f"/api/v1/tasks/{task}/label",
        content=raw('{"label": "f\\ud800", "request_id": "r"}'),
        headers=json_headers,
    )
    assert r.status_code == 422 and "surrogate" in r.text
    # an escaped backslash before "u0000" is plain text, not NUL
    r = c.post(
        f"/api/v1/tasks/{task}/label",
        content=raw('{"label": "ok", "request_id": "r\\\\u0000"}'),
        headers=json_headers,
    )
    assert r.status_code == 200 and r.json()["status"] == "labelled"


def test_creating_a_stream_that_another_process_just_created_is_a_409(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes create the same stream at once: both pass the existence check, one
    inserts first; the other's insert meets the unique name (the audit's 500)."""
    from cbeal.service.store import streams as stream_rows

    s = line(seed=1)
    first, second = app_of(db), app_of(db)
    token = create_token(first.state.service.engine, role="admin", name="me")
    auth = {"Authorization": f"Bearer {token}"}
    with TestClient(first) as a, TestClient(second) as b:
        assert a.post("/api/v1/streams", json=stream_config(s), headers=auth).status_code == 201
        monkeypatch.setattr(stream_rows, "stream_exists", lambda conn, name: False)
        r = b.post("/api/v1/streams", json=stream_config(s), headers=auth)
        assert r.status_code == 409 and "exists already" in r.json()["detail"], r.text
        assert b.get("/api/v1/streams", headers=auth).json()["streams"] == ["line1"]


def test_two_processes_creating_one_stream_at_once_get_201_and_409(db: str) -> None:
    """The audit's race for real: two services on one database, two threads released
    together, five streams; each stream is created once, the other request gets 409."""
    import threading

    s = line(seed=1)
    first, second = app_of(db), app_of(db)
    token = create_token(first.state.service.engine, role="admin", name="me")
    auth = {"Authorization": f"Bearer {token}"}
    with TestClient(first) as a, TestClient(second) as b:
        for k in range(5):
            start = threading.Barrier(2)
            got: list[int] = []

            def create(c: TestClient, start: Any = start, got: Any = got, k: int = k) -> None:
                start.wait()
                got.append(
                    c.post(
                        "/api/v1/streams", json=stream_config(s, name=f"l{k}"), headers=auth
                    ).status_code
                )

            threads = [threading.Thread(target=create, args=(c,)) for c in (a, b)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(got) == [201, 409], (k, got)
        assert a.get("/api/v1/streams", headers=auth).json()["streams"] == [
            f"l{k}" for k in range(5)
        ]


def test_an_unexpected_error_is_a_json_500_with_an_error_id_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(Settings(db=f"sqlite:///{tmp_path / 'e.db'}", open=True))
    with TestClient(app) as c:

        def broken() -> list[str]:
            raise KeyError("a bug")

        monkeypatch.setattr(app.state.service.streams, "names", broken)
        with caplog.at_level(logging.ERROR, logger="cbeal.service"):
            r = c.get("/api/v1/streams")
        assert r.status_code == 500 and r.headers["content-type"] == "application/json"
        error_id = r.json()["error_id"]
        assert error_id in r.json()["detail"]
        logged = [x for x in caplog.records if error_id in x.getMessage()]
        assert logged and logged[0].exc_info is not None
        assert "a bug" in caplog.text and "Traceback" in caplog.text
        monkeypatch.undo()
        assert c.get("/api/v1/streams").status_code == 200  # the service goes on
        # a library error no request can cause (a stored model that does not load) is the
        # service's fault too: a 500, not the 422 of a refused input
        from cbeal.core.exceptions import ModelFileError

        def unreadable() -> list[str]:
            raise ModelFileError("the checkpoint's seal does not match")

        monkeypatch.setattr(app.state.service.streams, "names", unreadable)
        r = c.get("/api/v1/streams")
        assert r.status_code == 500 and r.json()["error_id"]


# ---------------------------------------------------------------------- strict parsing
@pytest.fixture
def plain(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(
        Settings(db=f"sqlite:///{tmp_path / 's.db'}", open=True, undo_seconds=0, retrain="sync")
    )
    with TestClient(app) as c:
        yield c


def test_features_are_json_numbers_or_null_only(plain: TestClient) -> None:
    c, s = plain, line(seed=2)
    assert c.post("/api/v1/streams", json=stream_config(s)).status_code == 201
    good = [1.5, None, 3, 4.0, 5, 6]
    for bad in ("1.5", True, "NaN", [1.0], {"v": 1}):
        for x in ([bad, *good[1:]], {f"s{i}": bad if i == 0 else 1.0 for i in range(6)}):
            r = c.post("/api/v1/streams/line1/samples", json={"samples": [{"id": "a", "x": x}]})
            assert r.status_code == 422, (bad, r.text)
    for literal in ("NaN", "Infinity", "-Infinity", "1e999"):
        body = f'{{"samples": [{{"id": "a", "x": [{literal}, 2, 3, 4, 5, 6]}}]}}'
        r = c.post(
            "/api/v1/streams/line1/samples",
            content=body.encode(),
            headers={"Content-Type": "application/json"},
        )
        assert r.status_code == 422 and "JSON" in r.text, (literal, r.text)
    r = c.post("/api/v1/streams/line1/samples", json={"samples": [{"id": "a", "x": good}]})
    assert r.status_code == 200 and r.json()["decisions"][0]["sample_id"] == "a"
    # booleans are not numbers anywhere: the seed, the budget
    for field, value in (("seed", True), ("budget", True), ("cold_start", False)):
        r = c.post("/api/v1/streams", json=stream_config(s, name="line9", **{field: value}))
        assert r.status_code == 422, (field, r.text)


@pytest.mark.parametrize(
    ("classes", "wrong"),
    [
        (["ok", "fail"], [1, True, None, "OK", ["ok"]]),
        ([0, 1], [False, True, "0", 0.0, 1.0]),
        ([True, False], [1, 0, "true", "True"]),
    ],
    ids=["text", "int", "bool"],
)
def test_labels_are_exactly_one_of_the_classes_with_their_type(
    plain: TestClient, classes: list[Any], wrong: list[Any]
) -> None:
    c, s = plain, line(seed=2)
    y0 = [classes[int(v)] for v in s.y0]
    cfg = stream_config(s, classes=classes, initial={"x": s.X0.tolist(), "y": y0})
    assert c.post("/api/v1/streams", json=cfg).status_code == 201, classes
    config = c.get("/api/v1/streams/line1/config").json()
    assert config["classes"] == classes  # kept with their type: [true, false] stays so
    assert [type(v) for v in config["classes"]] == [type(v) for v in classes]
    samples = [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(150)]
    c.post("/api/v1/streams/line1/samples", json={"samples": samples})
    task = c.get("/api/v1/streams/line1/tasks/next").json()["task_id"]
    for label in wrong:
        r = c.post(f"/api/v1/tasks/{task}/label", json={"label": label, "request_id": "r"})
        assert r.status_code == 422, (label, r.text)
    r = c.post(f"/api/v1/tasks/{task}/label", json={"label": classes[1], "request_id": "r"})
    assert r.status_code == 200 and r.json()["label"] == classes[1]
    assert type(r.json()["label"]) is type(classes[1])
    # initial labels and classes of mixed types are refused too
    mixed = stream_config(s, name="line2", classes=[0, True])
    assert c.post("/api/v1/streams", json=mixed).status_code == 422
