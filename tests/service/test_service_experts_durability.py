"""kill -9 during a review (issue 30): answers, reviews and the agreement report come back
exactly, on SQLite and PostgreSQL; on PostgreSQL a second process takes the stream over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")

from sqlalchemy import text

from ..service_helpers import Server, cli_token, line, names, stream_config

ARGS = ("--undo-seconds", "0", "--retrain", "sync", "--lease-seconds", "3")


class Who:
    def __init__(self, url: str, token: str) -> None:
        self.c = httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60
        )

    def at(self, url: str) -> Who:
        self.c.base_url = httpx.URL(url)
        return self


def snapshot(admin: Who, task_ids: list[int]) -> dict[str, Any]:
    st = admin.c.get("/api/v1/streams/line1").json()
    tasks = {}
    for t in task_ids:
        v = admin.c.get(f"/api/v1/tasks/{t}").json()
        tasks[t] = (v["status"], v["label"], v["answers_given"], v["answers"])
    return {
        "agreement": admin.c.get("/api/v1/streams/line1/agreement").json(),
        "labels": (st["labels_received"], st["labels_learned"], st["samples_seen"]),
        "queue": st["queue"]["waiting_for_review"],
        "tasks": tasks,
    }


def test_kill_9_during_a_review_keeps_answers_reviews_and_agreement(
    db: str, tmp_path: Path
) -> None:
    s = line(seed=5)
    truth = names(s.y_stream)
    tok = {
        who: cli_token(db, role, who)
        for who, role in (("ops", "admin"), ("alice", "annotate"), ("bob", "annotate"))
    }
    tok["rita"] = cli_token(db, "review", "rita")
    a = Server(db, extra=ARGS, log=tmp_path / "a.log").start()
    b: Server | None = None
    try:
        ops, alice, bob, rita = (Who(a.url, tok[w]) for w in ("ops", "alice", "bob", "rita"))
        cfg = stream_config(s, labels_per_part=2)
        assert ops.c.post("/api/v1/streams", json=cfg).status_code == 201
        rows = [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(300)]
        asked = [
            d["task_id"]
            for d in ops.c.post("/api/v1/streams/line1/samples", json={"samples": rows}).json()[
                "decisions"
            ]
            if d["acquire"]
        ]
        assert len(asked) >= 6
        # alice answers everything right; bob flips every third part he sees
        for k, who in enumerate([alice, bob] * len(asked)):
            r = who.c.get("/api/v1/streams/line1/tasks/next")
            if r.status_code == 204:
                continue
            t = r.json()
            label = truth[int(t["sample_id"][1:])]
            if who is bob and t["task_id"] % 3 == 0:
                label = "ok" if label == "fail" else "fail"
            assert (
                who.c.post(
                    f"/api/v1/tasks/{t['task_id']}/label",
                    json={"label": label, "request_id": f"{k}-{t['task_id']}"},
                ).status_code
                == 200
            )
        # one more part: alice's answer only (it waits for its second)
        more = ops.c.post(
            "/api/v1/streams/line1/samples",
            json={
                "samples": [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(300, 400)]
            },
        ).json()["decisions"]
        extra = [d["task_id"] for d in more if d["acquire"]]
        if extra:
            t = alice.c.get("/api/v1/streams/line1/tasks/next").json()
            alice.c.post(
                f"/api/v1/tasks/{t['task_id']}/label", json={"label": "ok", "request_id": "last"}
            )
        before_review = snapshot(ops, asked + extra)
        assert before_review["queue"] >= 2  # disputes wait for review
        settled_one = rita.c.get("/api/v1/streams/line1/reviews/next").json()["task_id"]
        rita.c.post(f"/api/v1/tasks/{settled_one}/label", json={"label": "ok", "request_id": "rv1"})
        held = rita.c.get("/api/v1/streams/line1/reviews/next").json()["task_id"]  # mid-review
        before = snapshot(ops, asked + extra)
        assert before["agreement"]["parts"]["settled"] == 1
        if db.startswith("postgresql"):  # two processes: the owner answers, the other 409s
            b = Server(db, extra=ARGS, log=tmp_path / "b.log").start()
            busy = httpx.get(
                f"{b.url}/api/v1/streams/line1/reviews/next",
                headers={"Authorization": f"Bearer {tok['rita']}"},
                timeout=30,
            )
            assert busy.status_code == 409 and "Retry-After" in busy.headers
        a.kill()
        if b is None:
            b = Server(db, extra=ARGS, log=tmp_path / "b.log").start()
        for who in (ops, alice, bob, rita):
            who.at(b.url)
        after = snapshot(ops, asked + extra)
        assert after == before
        # the review goes on where it stopped: rita's lease held, her settlement learned
        assert rita.c.get("/api/v1/streams/line1/reviews/next").json()["task_id"] == held
        r = rita.c.post(f"/api/v1/tasks/{held}/label", json={"label": "fail", "request_id": "rv2"})
        assert r.status_code == 200 and r.json()["status"] == "learned", r.text
        final = snapshot(ops, asked + extra)
        assert final["agreement"]["parts"]["settled"] == 2
        assert final["labels"][0] == before["labels"][0] + 1
    finally:
        a.kill()
        if b is not None:
            b.stop()
    # every answer and settlement is in the stream's log
    from cbeal.service.store.db import connect

    engine = connect(db)
    with engine.connect() as conn:
        kinds = dict(conn.execute(text("SELECT kind, count(*) FROM events GROUP BY kind")).all())
        n_answers = conn.execute(text("SELECT count(*) FROM answers WHERE kind = 'label'")).scalar()
    engine.dispose()
    assert kinds["answer"] == n_answers and kinds["settle"] == 2
    assert kinds["disputed"] == final["agreement"]["parts"]["settled"] + final["queue"]
