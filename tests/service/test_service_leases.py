"""Leases that mean something (issue 21, item 7, finding 8 and 13): only the holder answers
a leased task, only who labelled undoes, an admin's override is recorded, a lease is
bounded in time and in number, it can be released, and a lost race is a 409 that leaves
the stream loaded."""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cbeal.bridges.labelstudio import WEBHOOK
from cbeal.service.app import Settings, create_app
from cbeal.service.engine.tasks import Actor, Conflict
from cbeal.service.engine.tokens import create_token
from cbeal.service.store.events import read_events

from ..service_helpers import line, stream_config

NEXT = "/api/v1/streams/line1/tasks/next"


class Line:
    """A service with a stream of 300 samples and three tokens: two experts and an admin."""

    def __init__(self, db: str, **settings: Any) -> None:
        settings.setdefault("undo_seconds", 3600.0)
        self.app = create_app(Settings(db=db, retrain="sync", **settings))
        engine = self.app.state.service.engine
        self.auth = {
            who: {"Authorization": f"Bearer {create_token(engine, role=role, name=who)}"}
            for who, role in (("ann", "annotate"), ("bob", "annotate"), ("boss", "admin"))
        }
        self.c = TestClient(self.app).__enter__()
        s = line(seed=6)
        self.post("boss", "/api/v1/streams", stream_config(s))
        samples = [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(300)]
        self.post("boss", "/api/v1/streams/line1/samples", {"samples": samples})

    def post(self, who: str, path: str, body: Any) -> Any:
        return self.c.post(path, json=body, headers=self.auth[who])

    def get(self, who: str, path: str) -> Any:
        return self.c.get(path, headers=self.auth[who])

    def answer(self, who: str, task: int, what: str, label: str = "ok") -> Any:
        body: dict[str, Any] = {"request_id": f"{who}-{what}-{task}-{time.monotonic()}"}
        if what == "label":
            body["label"] = label
        return self.post(who, f"/api/v1/tasks/{task}/{what}", body)

    def close(self) -> None:
        self.c.__exit__(None, None, None)


@pytest.fixture
def plant(db: str) -> Iterator[Line]:
    p = Line(db)
    yield p
    p.close()


def test_only_the_holder_answers_a_leased_task(plant: Line) -> None:
    task = plant.get("ann", NEXT).json()["task_id"]
    for what in ("label", "skip", "cannot-tell", "release"):
        r = plant.answer("bob", task, what)
        assert r.status_code == 409 and "leased to someone else" in r.json()["detail"], what
    assert plant.get("bob", NEXT).json()["task_id"] != task  # bob gets another task
    r = plant.answer("ann", task, "label", "fail")
    assert r.status_code == 200 and r.json()["status"] == "labelled"
    # only who labelled may undo; an undo that changes nothing is a 409
    r = plant.answer("bob", task, "undo")
    assert r.status_code == 409 and "labelled by someone else" in r.json()["detail"]
    r = plant.answer("ann", task, "undo")
    assert r.status_code == 200 and r.json()["status"] == "open"
    assert r.json()["lease_until"] > time.time()  # leased back to ann, to label again
    r = plant.answer("ann", task, "undo")
    assert r.status_code == 409 and "no answer to undo" in r.json()["detail"]
    assert plant.answer("bob", task, "label").status_code == 409  # still ann's
    assert plant.answer("ann", task, "label").status_code == 200


def test_an_admin_override_is_recorded(plant: Line, caplog: pytest.LogCaptureFixture) -> None:
    service = plant.app.state.service
    task = plant.get("ann", NEXT).json()["task_id"]
    with caplog.at_level("WARNING", logger="cbeal.audit"):
        r = plant.answer("boss", task, "label", "fail")
    assert r.status_code == 200 and r.json()["label"] == "fail"
    with service.engine.connect() as conn:
        log = read_events(conn, service.streams.get("line1").stream_id, 0)
    overrides = [e.payload for e in log if e.kind == "override"]
    assert len(overrides) == 1
    assert overrides[0]["task_id"] == task and overrides[0]["by"] == "boss"
    assert overrides[0]["action"] == "label" and overrides[0]["holder"].startswith("ann#")
    assert "boss overrode" in caplog.text
    # the admin holds the label now: ann cannot undo it, the admin can
    assert plant.answer("ann", task, "undo").status_code == 409
    assert plant.answer("boss", task, "undo").status_code == 200
    # an admin answering a free task (or its own) overrides nothing
    other = plant.get("boss", NEXT).json()["task_id"]
    assert plant.answer("boss", other, "skip").status_code == 200
    with service.engine.connect() as conn:
        log = read_events(conn, service.streams.get("line1").stream_id, 0)
    assert sum(e.kind == "override" for e in log) == 1
    # a replay passes over the override events: the stream reloads exactly
    runtime = service.streams.get("line1")
    service.streams.drop("line1", runtime)
    assert service.streams.get("line1").seq == runtime.seq


def test_a_label_after_expiry_only_if_nobody_else_holds_the_task(plant: Line) -> None:
    short = f"{NEXT}?lease_seconds=0.3"
    mine = plant.get("ann", short).json()["task_id"]
    time.sleep(0.4)
    assert plant.answer("ann", mine, "label").status_code == 200  # ran out, nobody took it
    taken = plant.get("ann", short).json()["task_id"]
    time.sleep(0.4)
    assert plant.get("bob", NEXT).json()["task_id"] == taken  # free again: bob leases it
    r = plant.answer("ann", taken, "label")
    assert r.status_code == 409 and "leased to someone else" in r.json()["detail"]
    assert plant.answer("bob", taken, "label").status_code == 200


def test_leases_are_bounded_and_can_be_released(tmp_path: Path) -> None:
    plant = Line(f"sqlite:///{tmp_path / 'l.db'}", max_open_leases=3, max_lease_seconds=600)
    try:
        r = plant.get("ann", f"{NEXT}?lease_seconds=601")
        assert r.status_code == 422 and "at most 600" in r.json()["detail"]
        bulk = f"{NEXT}?held=false&lease_seconds=600"
        held = [plant.get("ann", bulk).json()["task_id"] for _ in range(3)]
        assert len(set(held)) == 3
        r = plant.get("ann", bulk)
        assert r.status_code == 409 and "holds 3 task leases" in r.json()["detail"]
        assert plant.get("bob", bulk).status_code == 200  # per token
        assert plant.answer("bob", held[0], "release").status_code == 409  # not bob's
        r = plant.answer("ann", held[0], "release")
        assert r.status_code == 200 and r.json()["lease_until"] is None
        r = plant.answer("ann", held[0], "release")  # nothing left to release
        assert r.status_code == 409 and "not leased" in r.json()["detail"]
        assert plant.get("ann", bulk).status_code == 200  # room for one more
        assert plant.get("bob", NEXT).json()["task_id"] not in held[1:]
    finally:
        plant.close()


def test_a_lost_race_is_a_409_and_the_stream_stays_loaded(db: str) -> None:
    """A label and a cannot-tell race for one task, 20 times: one wins, the other gets a
    Conflict (409), never LeaseLost (503), and the stream's model is never dropped."""
    plant = Line(db, undo_seconds=0.0)
    try:
        service = plant.app.state.service
        runtime = service.streams.get("line1")
        ann = Actor("ann", "ann#1")
        outcomes = []
        for k in range(20):
            task = plant.get("ann", NEXT).json()["task_id"]
            start = threading.Barrier(2)
            got: dict[str, Any] = {}

            def run(
                what: str, task: int = task, start: Any = start, got: Any = got, k: int = k
            ) -> None:
                start.wait()
                try:
                    if what == "label":
                        service.tasks.label(task, "ok", f"l{k}", ann)
                    else:
                        service.tasks.cannot_tell(task, f"c{k}", ann)
                    got[what] = "ok"
                except Conflict:
                    got[what] = "409"
                except Exception as exc:
                    got[what] = repr(exc)

            threads = [threading.Thread(target=run, args=(w,)) for w in ("label", "cannot")]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(got.values()) == ["409", "ok"], got
            outcomes.append(got["label"])
            assert service.streams.owned()["line1"] is runtime  # no reload
        assert plant.get("boss", "/api/v1/streams/line1").status_code == 200
        print(f"\nlabel won {outcomes.count('ok')} of 20 races")
    finally:
        plant.close()


def test_label_studio_answers_the_tasks_leased_to_it(tmp_path: Path) -> None:
    """A push leases for Label Studio (via=label-studio) with one token; the webhook, with
    another, answers those tasks; an expert cannot take them meanwhile."""
    plant = Line(f"sqlite:///{tmp_path / 'ls.db'}")
    try:
        pushed = [
            plant.get("boss", f"{NEXT}?held=false&via=label-studio&lease_seconds=86400").json()
            for _ in range(2)
        ]
        first, second = (t["task_id"] for t in pushed)
        body = copy.deepcopy(_recorded("annotation_created"))
        body["task"]["data"]["cbeal_task"] = first
        r = plant.post("ann", WEBHOOK, body)  # the webhook's token is ann's
        assert r.status_code == 200 and r.json()["outcome"] == "labelled", r.text
        r = plant.answer("bob", second, "label")
        assert r.status_code == 409 and "leased to someone else" in r.json()["detail"]
    finally:
        plant.close()


def _recorded(name: str) -> Any:
    path = Path(__file__).parents[1] / "data" / "labelstudio_webhooks.json"
    return json.loads(path.read_text())[name]
