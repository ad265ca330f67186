"""Several experts on one line (issue 30): answers per part, agreement, review, the report,
on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cbeal.service.app import Settings, create_app
from cbeal.service.engine.tokens import create_token

from ..service_helpers import line, stream_config


def h(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Line:
    """A service with an admin, two labellers (alice, bob), a reviewer (rita)."""

    def __init__(self, db: str, undo: float = 0.0) -> None:
        self.app = create_app(Settings(db=db, undo_seconds=undo, retrain="sync"))
        engine = self.app.state.service.engine
        self.tok = {
            who: create_token(engine, role=role, name=who)
            for who, role in (
                ("ops", "admin"),
                ("alice", "annotate"),
                ("bob", "annotate"),
                ("carl", "annotate"),
                ("rita", "review"),
            )
        }

    def __enter__(self) -> Line:
        self.c = TestClient(self.app).__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.c.__exit__(*exc)

    def get(self, who: str, path: str, **kw: Any) -> Any:
        return self.c.get(path, headers=h(self.tok[who]), **kw)

    def post(self, who: str, path: str, body: Any) -> Any:
        return self.c.post(path, headers=h(self.tok[who]), json=body)

    def patch(self, who: str, path: str, body: Any) -> Any:
        return self.c.patch(path, headers=h(self.tok[who]), json=body)

    def next(self, who: str, stream: str = "line1") -> Any:
        return self.get(who, f"/api/v1/streams/{stream}/tasks/next")

    def label(self, who: str, task_id: int, label: Any, rid: str | None = None) -> Any:
        return self.post(
            who,
            f"/api/v1/tasks/{task_id}/label",
            {"label": label, "request_id": rid or f"{who}-{task_id}"},
        )

    def status(self, stream: str = "line1") -> Any:
        return self.get("ops", f"/api/v1/streams/{stream}").json()

    def agreement(self, stream: str = "line1") -> Any:
        r = self.get("alice", f"/api/v1/streams/{stream}/agreement")
        assert r.status_code == 200, r.text
        return r.json()


def start(x: Line, s: Any, n: int = 200, **kw: Any) -> list[dict[str, Any]]:
    r = x.post("ops", "/api/v1/streams", stream_config(s, **kw))
    assert r.status_code == 201, r.text
    r = x.post(
        "ops",
        "/api/v1/streams/line1/samples",
        {"samples": [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(n)]},
    )
    assert r.status_code == 200
    asked = [d for d in r.json()["decisions"] if d["acquire"]]
    assert len(asked) >= 4
    return asked


def test_two_answers_agree_dispute_and_a_review_settles(db: str) -> None:
    s = line()
    with Line(db) as x:
        asked = start(x, s, labels_per_part=2)
        st = x.status()
        assert st["labels_per_part"] == 2 and st["second_opinion_below"] is None
        before = st["labels_received"]
        # alice answers the first part; it waits for a second answer and never comes back to her
        t1 = x.next("alice").json()
        assert t1["answers_needed"] == 2 and t1["answers_given"] == 0
        r = x.label("alice", t1["task_id"], "ok")
        assert r.status_code == 200 and r.json()["status"] == "open", r.text
        assert r.json()["answers"] == []  # the others' answers are not shown while open
        t2 = x.next("alice").json()
        assert t2["task_id"] != t1["task_id"]
        # bob is given the part waiting for its second answer first, not a new part
        b1 = x.next("bob").json()
        assert b1["task_id"] == t1["task_id"] and b1["answers_given"] == 1
        r = x.label("bob", t1["task_id"], "ok")
        assert r.json()["status"] == "learned" and r.json()["label"] == "ok"
        assert x.status()["labels_received"] == before + 1  # learned once
        # the same request again changes nothing; a second different answer is a 409
        assert x.label("bob", t1["task_id"], "ok").status_code == 200
        assert x.label("bob", t1["task_id"], "fail", "bob-other").status_code == 409
        # alice's second part: bob disagrees, so the model learns nothing yet
        assert x.label("alice", t2["task_id"], "ok").json()["status"] == "open"
        assert x.next("bob").json()["task_id"] == t2["task_id"]
        r = x.label("bob", t2["task_id"], "fail")
        assert r.json()["status"] == "disputed" and r.json()["label"] is None
        st = x.status()
        assert st["labels_received"] == before + 1 and st["queue"]["waiting_for_review"] == 1
        # a labeller cannot settle; review needs role review
        assert x.label("carl", t2["task_id"], "ok").status_code == 403
        assert x.get("alice", "/api/v1/streams/line1/reviews/next").status_code == 403
        assert x.get("rita", "/api/v1/streams/line1/tasks/next").status_code == 403
        rv = x.get("rita", "/api/v1/streams/line1/reviews/next")
        assert rv.status_code == 200 and rv.json()["task_id"] == t2["task_id"]
        seen = {(a["by"], a["label"]) for a in rv.json()["answers"]}
        assert seen == {("alice", "ok"), ("bob", "fail")}
        # held by rita: even an annotate token may not take it; rita settles it
        r = x.label("rita", t2["task_id"], "fail")
        assert r.status_code == 200 and r.json()["status"] == "learned", r.text
        assert r.json()["label"] == "fail"
        assert x.get("rita", "/api/v1/streams/line1/reviews/next").status_code == 204
        st = x.status()
        assert st["labels_received"] == before + 2 and st["queue"]["waiting_for_review"] == 0
        rep = x.agreement()
        assert rep["parts"] == {"agreed": 1, "disputed": 0, "settled": 1}
        assert rep["multiply_answered"] == 2 and rep["level"] == "nominal"
        # ok/ok and ok/fail: observed disagreement 2, expected (4² − 3² − 1²)/3 = 2, so α = 0
        assert rep["alpha"] == pytest.approx(0.0, abs=1e-4)
        people = {p["name"]: p for p in rep["labellers"]}
        assert people["alice"] == {"name": "alice", "answers": 2, "agreement": 0.5}
        assert people["bob"] == {"name": "bob", "answers": 2, "agreement": 1.0}
        assert "rita" not in people  # a settlement is no labeller's answer
        # the export: one row per answer, who, when, what, with the final label
        r = x.get("ops", "/api/v1/streams/line1/export", params={"rows": "answers"})
        assert r.status_code == 200, r.text
        body = r.text.splitlines()
        assert body[0].startswith("task_id,sample_id,kind,label,by,answered_at,final_label")
        assert len(body) == 1 + 5  # four labels and one settlement
        assert len(asked) > 2


def test_second_opinion_only_below_the_certainty(db: str) -> None:
    s = line()
    with Line(db) as x:
        start(x, s, second_opinion_below=0.7)
        counted = {}
        while (r := x.next("alice")).status_code == 200:
            t = r.json()
            cert = t["decision"]["certainty"]
            counted[t["task_id"]] = t["answers_needed"]
            assert t["answers_needed"] == (2 if cert < 0.7 else 1)
            out = x.label("alice", t["task_id"], "ok").json()
            assert out["status"] == ("open" if cert < 0.7 else "learned")
        assert 2 in counted.values() and 1 in counted.values()
        # bob gets only the parts that wait for a second opinion
        got = []
        while (r := x.next("bob")).status_code == 200:
            got.append(r.json()["task_id"])
            x.label("bob", got[-1], "ok")
        assert sorted(got) == sorted(k for k, v in counted.items() if v == 2)
        # the setting is changeable through the config route, and shown in the status
        r = x.patch("ops", "/api/v1/streams/line1/config", {"second_opinion_below": None})
        assert r.status_code == 200 and r.json()["second_opinion_below"] is None, r.text
        assert (
            x.patch("alice", "/api/v1/streams/line1/config", {"labels_per_part": 3}).status_code
            == 403
        )
        assert x.patch("ops", "/api/v1/streams/line1/config", {}).status_code == 422
        assert (
            x.patch("ops", "/api/v1/streams/line1/config", {"labels_per_part": 0}).status_code
            == 422
        )
        r = x.patch("ops", "/api/v1/streams/line1/config", {"labels_per_part": 3})
        assert r.json()["labels_per_part"] == 3 and x.status()["labels_per_part"] == 3


def test_undo_skip_and_cannot_tell_per_answer(db: str) -> None:
    s = line()
    with Line(db, undo=60.0) as x:
        start(x, s, labels_per_part=2)
        t = x.next("alice").json()["task_id"]
        x.label("alice", t, "ok")
        # alice withdraws her answer: open again, leased back to her, nothing given
        r = x.post("alice", f"/api/v1/tasks/{t}/undo", {"request_id": "u1"})
        assert r.status_code == 200 and r.json()["answers_given"] == 0, r.text
        assert x.post("alice", f"/api/v1/tasks/{t}/undo", {"request_id": "u2"}).status_code == 409
        assert x.next("alice").json()["task_id"] == t  # hers again (a reload)
        x.label("alice", t, "fail")
        x.next("bob")
        r = x.label("bob", t, "fail")
        assert r.json()["status"] == "labelled"  # agreed, learned after the undo window
        # bob withdraws within the window: the agreed label is withdrawn too
        r = x.post("bob", f"/api/v1/tasks/{t}/undo", {"request_id": "u3"})
        assert r.json()["status"] == "open" and r.json()["label"] is None
        assert x.label("bob", t, "ok").json()["status"] == "disputed"
        x.get("rita", "/api/v1/streams/line1/reviews/next")
        assert x.label("rita", t, "ok").json()["status"] == "labelled"
        r = x.post("rita", f"/api/v1/tasks/{t}/undo", {"request_id": "u4"})
        assert r.json()["status"] == "disputed"  # the settlement withdrawn
        assert x.label("rita", t, "fail").json()["label"] == "fail"
        # cannot tell: one abstention keeps the part open; as many as it needs close it
        u = x.next("carl").json()["task_id"]
        assert u != t
        r = x.post("carl", f"/api/v1/tasks/{u}/cannot-tell", {"request_id": "c1"})
        assert r.json()["status"] == "open" and r.json()["answers_given"] == 1
        assert x.next("alice").json()["task_id"] == u  # waiting for more answers: first
        r = x.post("alice", f"/api/v1/tasks/{u}/cannot-tell", {"request_id": "c2"})
        assert r.json()["status"] == "cannot_tell"
        # skip: per answer, back in the queue, behind unskipped parts
        v = x.next("bob").json()["task_id"]
        r = x.post("bob", f"/api/v1/tasks/{v}/skip", {"request_id": "s1"})
        assert r.status_code == 200 and r.json()["skips"] == 1


def test_measured_values_agree_within_the_tolerance(db: str) -> None:
    rng = np.random.default_rng(0)
    X0 = rng.normal(size=(30, 6))
    y0 = (X0 @ np.arange(1, 7) + rng.normal(0, 0.1, 30)).round(2).tolist()
    cfg = {
        "name": "oven",
        "features": [f"s{i}" for i in range(6)],
        "task": "regression",
        "tolerance": 0.5,
        "unit": "K",
        "budget": "20%",
        "labels_per_part": 2,
        "initial": {"x": X0.tolist(), "y": y0},
    }
    with Line(db) as x:
        assert x.post("ops", "/api/v1/streams", cfg).status_code == 201
        X = rng.normal(size=(150, 6))
        samples = [{"id": f"q{i}", "x": X[i].tolist()} for i in range(150)]
        x.post("ops", "/api/v1/streams/oven/samples", {"samples": samples})
        a = x.next("alice", "oven").json()["task_id"]
        x.label("alice", a, 10.0)
        x.next("bob", "oven")
        r = x.label("bob", a, 10.4)
        assert r.json()["status"] == "learned" and r.json()["label"] == pytest.approx(10.2)
        b = x.next("alice", "oven").json()["task_id"]
        x.label("alice", b, 10.0)
        x.next("bob", "oven")
        assert x.label("bob", b, 11.0).json()["status"] == "disputed"
        x.get("rita", "/api/v1/streams/oven/reviews/next")
        assert x.label("rita", b, 10.8).json()["label"] == 10.8
        rep = x.agreement("oven")
        assert rep["level"] == "interval" and rep["parts"]["settled"] == 1
        people = {p["name"]: p["agreement"] for p in rep["labellers"]}
        assert people == {"alice": 0.5, "bob": 1.0}  # 10.0 is 0.8 from 10.8; 11.0 within 0.5
        assert rep["alpha"] is not None and rep["alpha"] < 1


def test_one_labeller_streams_keep_their_answers_too(db: str) -> None:
    s = line()
    with Line(db) as x:
        start(x, s)
        t = x.next("alice").json()
        assert t["answers_needed"] == 1
        r = x.label("alice", t["task_id"], "ok")
        assert r.json()["status"] == "learned" and r.json()["answers"][0]["by"] == "alice"
        rep = x.agreement()
        assert rep["alpha"] is None and rep["labellers"][0]["answers"] == 1
        assert rep["parts"] == {"agreed": 0, "disputed": 0, "settled": 0}


def test_upgrade_from_0002_keeps_every_label_as_an_answer(db: str) -> None:
    """A database of before (revision 0002) upgrades to 0003: each given label becomes an
    answer, and the service serves it."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text

    from cbeal.service.store.db import MIGRATIONS, connect, migrate

    engine = connect(db)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0002")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO streams (id, name, config, created_at, last_seq) "
                "VALUES (1, 'old', '{}', 1.0, 0)"
            )
        )
        for i, (status, label, by) in enumerate(
            [("learned", '"ok"', "alice"), ("open", None, None), ("labelled", '"fail"', "bob")]
        ):
            conn.execute(
                text(
                    "INSERT INTO samples (id, stream_id, sample_id, seq, x, received_at, "
                    "acquire, p_acquire, model_version, decision) VALUES "
                    f"({i + 1}, 1, 'p{i}', {i + 1}, '[1.0]', 2.0, true, 1.0, 1, '{{}}')"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO tasks (id, stream_id, sample_pk, decision_id, status, "
                    "created_at, skips, label, request_id, labelled_at, labelled_by) VALUES "
                    f"({i + 1}, 1, {i + 1}, 'd{i}', :status, 2.0, 0, :label, :rid, :at, :by)"
                ),
                {
                    "status": status,
                    "label": label,
                    "rid": None if by is None else f"r{i}",
                    "at": None if by is None else 3.0 + i,
                    "by": by,
                },
            )
    migrate(engine)
    with engine.connect() as conn:
        got = conn.execute(
            text("SELECT task_id, kind, answered_by, request_id FROM answers ORDER BY task_id")
        ).all()
        version = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    engine.dispose()
    assert int(version) >= 3  # upgraded through 0003 (to the head)
    assert [tuple(r) for r in got] == [(1, "label", "alice", "r0"), (3, "label", "bob", "r2")]


def test_roles_on_several_answers(db: str) -> None:
    s = line()
    with Line(db) as x:
        start(x, s, labels_per_part=2)
        t = x.next("ops").json()["task_id"]
        # a reviewer answers no open part, and a labeller settles none
        r = x.label("rita", t, "ok")
        assert r.status_code == 403 and "review" in r.json()["detail"], r.text
        assert x.label("ops", t, "ok").json()["status"] == "open"  # an admin answers too
        assert x.next("alice").json()["task_id"] == t
        assert x.label("alice", t, "fail").json()["status"] == "disputed"
        # the admin answered this part: it is not offered to the admin for review
        assert x.get("ops", "/api/v1/streams/line1/reviews/next").status_code == 204
        rv = x.get("rita", "/api/v1/streams/line1/reviews/next").json()
        assert rv["task_id"] == t and rv["lease_until"] is not None
        # held by rita: another reviewer gets nothing, an annotate token may not settle
        assert x.label("bob", t, "ok").status_code == 403
        r = x.post("rita", f"/api/v1/tasks/{t}/release", {"request_id": "r1"})
        assert r.status_code == 200 and r.json()["status"] == "disputed"
        r = x.post("rita", f"/api/v1/tasks/{t}/cannot-tell", {"request_id": "r2"})
        assert r.json()["status"] == "cannot_tell"
        assert x.status()["queue"]["waiting_for_review"] == 0
