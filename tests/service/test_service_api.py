"""The service API against the real databases: SQLite (embedded default) and PostgreSQL."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import select, text

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cbeal import CbeAL
from cbeal.catalog import preset_entry
from cbeal.service.app import Settings, create_app
from cbeal.service.engine.decisions import DECISION_FIELDS
from cbeal.service.engine.tokens import create_token

from ..service_helpers import FEATURES, line, names, stream_config


def client(db: str, **kw: Any) -> TestClient:
    settings = Settings(
        db=db,
        open=kw.pop("open", True),
        undo_seconds=kw.pop("undo", 0.0),
        retrain=kw.pop("retrain", "sync"),
        **kw,
    )
    return TestClient(create_app(settings))


def post_samples(c: TestClient, X: np.ndarray, ids: list[str], stream: str = "line1") -> Any:
    r = c.post(
        f"/api/v1/streams/{stream}/samples",
        json={"samples": [{"id": i, "x": x.tolist()} for i, x in zip(ids, X, strict=True)]},
    )
    assert r.status_code == 200, r.text
    return r.json()["decisions"]


def test_the_whole_loop_and_status(db: str) -> None:
    s = line()
    with client(db) as c:
        assert c.post("/api/v1/streams", json=stream_config(s)).status_code == 201
        assert c.post("/api/v1/streams", json=stream_config(s)).status_code == 409
        decisions = post_samples(c, s.X_stream[:300], [f"p{i}" for i in range(300)])
        asked = [d for d in decisions if d["acquire"]]
        assert 0 < len(asked) <= 30 and all(d["task_id"] for d in asked)
        assert all(d["decision"]["learner_version"] == 1 and d["explanation"] for d in decisions)
        assert all(set(d["decision"]) >= set(DECISION_FIELDS) for d in decisions)
        truth = dict(zip([f"p{i}" for i in range(300)], names(s.y_stream[:300]), strict=True))
        learned = 0
        while (r := c.get("/api/v1/streams/line1/tasks/next")).status_code == 200:
            task = r.json()
            assert task["x"] and task["question"]["kind"] in (
                "exploration",
                "exploitation",
                "epsilon",
            )
            r = c.post(
                f"/api/v1/tasks/{task['task_id']}/label",
                json={"label": truth[task["sample_id"]], "request_id": f"r{learned}"},
            )
            assert r.status_code == 200 and r.json()["status"] == "learned"
            learned += 1
        assert r.status_code == 204 and learned == len(asked)
        st = c.get("/api/v1/streams/line1").json()
        assert st["labels_learned"] == learned == st["prequential_labels"]
        assert st["samples_seen"] == 300 and st["budget"]["spent"] == len(asked)
        assert st["model_version"] > 1 and st["queue"]["open"] == 0  # retrained on the labels
        assert 0 <= st["prequential_accuracy"] <= 1
        assert set(st["weights"]) == set(preset_entry().agents)
        assert abs(sum(st["weights"].values()) - 1) < 1e-3


def test_ingest_is_idempotent_by_sample_id(db: str) -> None:
    s = line()
    with client(db) as c:
        c.post("/api/v1/streams", json=stream_config(s))
        first = post_samples(c, s.X_stream[:20], [f"p{i}" for i in range(20)])
        again = post_samples(c, s.X_stream[10:30], [f"p{i}" for i in range(10, 30)])
        assert [d["duplicate"] for d in again] == [True] * 10 + [False] * 10
        assert [d["decision"]["id"] for d in again[:10]] == [
            d["decision"]["id"] for d in first[10:]
        ]
        twice = post_samples(c, s.X_stream[:2], ["dup", "dup"])
        assert twice[0]["decision"]["id"] == twice[1]["decision"]["id"] and twice[1]["duplicate"]
        assert c.get("/api/v1/streams/line1").json()["samples_received"] == 31


@pytest.mark.parametrize(
    ("body", "status", "hint"),
    [
        ({"samples": [{"id": "a", "x": [1.0] * 5}]}, 422, "needs 6 values"),
        ({"samples": [{"id": "a", "x": {"s0": 1.0}}]}, 422, "missing"),
        (
            {"samples": [{"id": "a", "x": {**{f: 0.0 for f in FEATURES}, "zz": 1.0}}]},
            422,
            "unknown",
        ),
        ({"samples": []}, 422, "at least 1"),
        ({"samples": [{"id": "", "x": [0.0] * 6}]}, 422, "at least 1 character"),
        ({"rows": []}, 422, "samples"),
        ({"samples": [{"id": "a", "x": ["a"] * 6}]}, 422, "number"),
    ],
)
def test_bad_samples_get_4xx_and_change_nothing(db: str, body: Any, status: int, hint: str) -> None:
    s = line()
    with client(db) as c:
        c.post("/api/v1/streams", json=stream_config(s))
        r = c.post("/api/v1/streams/line1/samples", json=body)
        assert r.status_code == status and hint in r.text, r.text
        assert c.get("/api/v1/streams/line1").json()["samples_received"] == 0


def test_nan_needs_preprocessing_and_unknown_stream_is_404(db: str) -> None:
    s = line()
    with client(db) as c:
        c.post("/api/v1/streams", json=stream_config(s, preprocess="none"))
        row = [None, *s.X_stream[0, 1:].tolist()]
        r = c.post("/api/v1/streams/line1/samples", json={"samples": [{"id": "a", "x": row}]})
        assert r.status_code == 422 and "NaN" in r.text
        c.post("/api/v1/streams", json=stream_config(s, name="line2"))  # impute-scale
        r = c.post("/api/v1/streams/line2/samples", json={"samples": [{"id": "a", "x": row}]})
        assert r.status_code == 200
        assert c.get("/api/v1/streams/nope").status_code == 404
        assert (
            c.post(
                "/api/v1/streams/nope/samples", json={"samples": [{"id": "a", "x": row}]}
            ).status_code
            == 404
        )


def test_labels_skip_cannot_tell_and_undo(db: str) -> None:
    s = line(seed=1)
    with client(db, undo=3600.0) as c:  # a long undo window: labels wait to be learned
        c.post("/api/v1/streams", json=stream_config(s, budget=40, preset="CBEAL-6"))
        post_samples(c, s.X_stream[:300], [f"p{i}" for i in range(300)])
        a = c.get("/api/v1/streams/line1/tasks/next").json()
        assert c.get("/api/v1/streams/line1/tasks/next").json()["task_id"] == a["task_id"]
        r = c.post(
            f"/api/v1/tasks/{a['task_id']}/label", json={"label": "maybe", "request_id": "x"}
        )
        assert r.status_code == 422 and "not one of the stream's classes" in r.text
        ok = {"label": "ok", "request_id": "r1"}
        assert c.post(f"/api/v1/tasks/{a['task_id']}/label", json=ok).json()["status"] == "labelled"
        assert c.post(f"/api/v1/tasks/{a['task_id']}/label", json=ok).status_code == 200
        r = c.post(
            f"/api/v1/tasks/{a['task_id']}/label", json={"label": "fail", "request_id": "r2"}
        )
        assert r.status_code == 409  # another answer needs an undo first
        r = c.post(f"/api/v1/tasks/{a['task_id']}/undo", json={"request_id": "u1"})
        assert r.json()["status"] == "open" and r.json()["label"] is None
        fail = {"label": "fail", "request_id": "r3"}
        assert c.post(f"/api/v1/tasks/{a['task_id']}/label", json=fail).status_code == 200
        b = c.get("/api/v1/streams/line1/tasks/next").json()
        assert b["task_id"] != a["task_id"]
        assert (
            c.post(f"/api/v1/tasks/{b['task_id']}/skip", json={"request_id": "s1"}).json()["skips"]
            == 1
        )
        nxt = c.get("/api/v1/streams/line1/tasks/next").json()
        assert nxt["task_id"] != b["task_id"]  # the skipped task went to the back
        spent = c.get("/api/v1/streams/line1").json()["budget"]["spent"]
        r = c.post(f"/api/v1/tasks/{nxt['task_id']}/cannot-tell", json={"request_id": "c1"})
        assert r.json()["status"] == "cannot_tell"
        st = c.get("/api/v1/streams/line1").json()
        assert st["budget"]["spent"] == spent  # the expert's time was spent: no refund
        assert st["labels_learned"] == 0 and st["queue"]["waiting_to_learn"] == 1
        service = c.app.state.service  # type: ignore[attr-defined]
        service.tasks.undo_seconds = 0.0  # the window has passed: the model learns the label
        assert service.tasks.learn_due() == 1
        assert c.get(f"/api/v1/tasks/{a['task_id']}").json()["status"] == "learned"
        r = c.post(f"/api/v1/tasks/{a['task_id']}/undo", json={"request_id": "u2"})
        assert r.status_code == 409 and "answer is final" in r.text
        r = c.post(f"/api/v1/tasks/{a['task_id']}/label", json={"label": "ok", "request_id": "r9"})
        # a learned task's answer cannot be changed: no advice to undo what cannot be undone
        assert r.status_code == 409 and "answer is final" in r.text and "/undo" not in r.text
        assert c.get("/api/v1/streams/line1").json()["labels_learned"] == 1


def test_exports_and_model_file(db: str, tmp_path: Path) -> None:
    s = line(seed=2)
    with client(db) as c:
        c.post("/api/v1/streams", json=stream_config(s))
        decisions = post_samples(c, s.X_stream[:120], [f"p{i}" for i in range(120)])
        task = c.get("/api/v1/streams/line1/tasks/next").json()
        c.post(f"/api/v1/tasks/{task['task_id']}/label", json={"label": "fail", "request_id": "r"})
        csv = pd.read_csv(io.StringIO(c.get("/api/v1/streams/line1/export").text))
        pq = pd.read_parquet(
            io.BytesIO(c.get("/api/v1/streams/line1/export?format=parquet").content)
        )
        n0 = len(s.y0)
        for frame in (csv, pq):  # D0 first (labelled, not asked), then the stream in order
            assert len(frame) == n0 + 120 and list(frame["sample_id"][n0 : n0 + 2]) == ["p0", "p1"]
            assert (frame["reason"][:n0] == "initial labelled set").all()
            assert set(FEATURES) <= set(frame.columns)
            assert frame["acquire"].sum() == sum(d["acquire"] for d in decisions)
            assert (frame["label"][n0:] == "fail").sum() == 1
            assert (frame["label"][:n0] == "fail").sum() == int(s.y0.sum())
        np.testing.assert_allclose(csv[FEATURES].to_numpy()[n0:], s.X_stream[:120])
        np.testing.assert_allclose(csv[FEATURES].to_numpy()[:n0], s.X0)
        got = c.get("/api/v1/streams/line1/model")
        assert got.headers["content-type"] == "application/octet-stream"  # not a zip to unpack
        model_bytes = got.content
        model = CbeAL.from_bytes(model_bytes)
        assert model.n_labels_ == 1 and list(model.feature_names_in_) == FEATURES
        assert c.get("/api/v1/streams/line1/export?format=xlsx").status_code == 422


def test_tokens_roles_and_hashes(db: str) -> None:
    s = line()
    app = create_app(Settings(db=db, undo_seconds=0.0, retrain="sync"))
    engine = app.state.service.engine
    admin = create_token(engine, role="admin", name="ops")
    ingest = create_token(engine, role="ingest", name="plc")
    annotate = create_token(engine, role="annotate", name="alice")
    with TestClient(app) as c:

        def h(t: str) -> dict[str, str]:
            return {"Authorization": f"Bearer {t}"}

        assert c.get("/healthz").status_code == 401
        assert c.get("/openapi.json", headers=h("cbeal_wrong")).status_code in (200, 401)
        assert c.get("/api/v1/streams", headers=h("cbeal_wrong")).status_code == 401
        cfg = stream_config(s)
        assert c.post("/api/v1/streams", json=cfg, headers=h(ingest)).status_code == 403
        assert c.post("/api/v1/streams", json=cfg, headers=h(admin)).status_code == 201
        body = {"samples": [{"id": "a", "x": s.X_stream[0].tolist()}]}
        assert (
            c.post("/api/v1/streams/line1/samples", json=body, headers=h(annotate)).status_code
            == 403
        )
        assert (
            c.post("/api/v1/streams/line1/samples", json=body, headers=h(ingest)).status_code == 200
        )
        assert c.get("/api/v1/streams/line1/tasks/next", headers=h(ingest)).status_code == 403
        assert c.get("/api/v1/streams/line1/tasks/next", headers=h(annotate)).status_code in (
            200,
            204,
        )
        assert c.get("/api/v1/streams/line1/export", headers=h(annotate)).status_code == 403
        assert c.get("/metrics", headers=h(ingest)).text.count("cbeal_samples_total") >= 1
    with engine.connect() as conn:
        stored = [r[0] for r in conn.execute(text("SELECT token_hash FROM tokens"))]
        dump = json.dumps(
            [list(r) for r in conn.execute(text("SELECT * FROM tokens"))], default=str
        )
    assert len(stored) == 3 and all(len(x) == 64 for x in stored)
    assert not any(t in dump for t in (admin, ingest, annotate))  # only hashes are stored


def test_oversized_requests_are_refused(db: str) -> None:
    s = line()
    with client(db, max_body_bytes=50_000) as c:
        c.post("/api/v1/streams", json=stream_config(s))
        big = {"samples": [{"id": f"p{i}", "x": s.X_stream[i % 500].tolist()} for i in range(2000)]}
        r = c.post("/api/v1/streams/line1/samples", json=big)
        assert r.status_code == 413 and "fewer samples" in r.text


def test_cold_start_asks_first_then_starts(db: str) -> None:
    s = line(seed=4)
    cfg = stream_config(s, cold_start=6)
    del cfg["initial"]
    with client(db) as c:
        assert c.post("/api/v1/streams", json=cfg).json()["state"] == "cold start"
        decisions = post_samples(c, s.X_stream[:40], [f"p{i}" for i in range(40)])
        truth = dict(zip([f"p{i}" for i in range(40)], names(s.y_stream[:40]), strict=True))
        assert [d["acquire"] for d in decisions[:6]] == [True] * 6
        while (r := c.get("/api/v1/streams/line1/tasks/next")).status_code == 200:
            t = r.json()
            c.post(
                f"/api/v1/tasks/{t['task_id']}/label",
                json={"label": truth[t["sample_id"]], "request_id": t["sample_id"]},
            )
            if c.get("/api/v1/streams/line1").json()["state"] == "running":
                break
        st = c.get("/api/v1/streams/line1").json()
        assert st["state"] == "running" and st["model_version"] == 1
        more = post_samples(c, s.X_stream[40:140], [f"q{i}" for i in range(100)])
        assert all(d["decision"]["y_pred"] in ("ok", "fail") for d in more)


def test_schema_matches_the_migrations(db: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.config import Config
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from cbeal.service.store.db import MIGRATIONS, connect, migrate
    from cbeal.service.store.tables import metadata

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None and int(head) >= 2  # 0002: token scopes
    engine = connect(db)
    migrate(engine)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
        assert diff == []
        assert (
            conn.execute(select(text("version_num")).select_from(text("alembic_version"))).scalar()
            == head
        )
    engine.dispose()


def test_initial_rows_with_ids_are_duplicates_later(db: str) -> None:
    s = line()
    cfg = stream_config(s)
    cfg["initial"]["ids"] = [f"d0-{i}" for i in range(len(s.y0))]
    with client(db) as c:
        c.post("/api/v1/streams", json=cfg)
        again = post_samples(c, s.X0[:2], ["d0-0", "d0-1"])
        assert all(d["duplicate"] and not d["acquire"] for d in again)
        assert "initial labelled set" in again[0]["explanation"]
        assert c.get("/api/v1/streams/line1").json()["samples_received"] == 0


def test_the_recommended_preset_takes_a_count_with_a_pace(db: str) -> None:
    # issue 32: a count was refused with "choose a paper preset"
    s = line()
    with client(db) as c:
        r = c.post("/api/v1/streams", json=stream_config(s, budget=6))
        assert r.status_code == 201, r.text
        assert c.get("/api/v1/streams/line1").json()["budget"]["spec"] == ("6 labels, paced at 5%")
        ids = [f"p{i}" for i in range(300)]
        asked = [d for d in post_samples(c, s.X_stream[:300], ids) if d["acquire"]]
        assert 1 <= len(asked) <= 6
        paced = stream_config(s, name="line2", budget=40, budget_fraction=0.02)
        assert c.post("/api/v1/streams", json=paced).status_code == 201
        spec = c.get("/api/v1/streams/line2").json()["budget"]["spec"]
        assert spec == "40 labels, paced at 2%"
        bad = stream_config(s, name="line3", budget="5%", budget_fraction=0.02)
        r = c.post("/api/v1/streams", json=bad)
        assert r.status_code == 422 and "pace of a count budget" in r.text
        r = c.post(
            "/api/v1/streams", json=stream_config(s, name="line4", budget=40, preset="CBEAL-6")
        )
        assert r.status_code == 201 and "LD1" in r.json()["weights"]


@pytest.mark.parametrize("classes", [[0, 1], [0.0, 1.0]], ids=["int", "float"])
def test_numeric_classes_go_through_the_whole_loop(db: str, classes: list[Any]) -> None:
    # SQLite returns a JSON number as a number: the JSON reader must take it as it is
    s = line(seed=2)
    y0 = [classes[int(v)] for v in s.y0]
    cfg = stream_config(s, classes=classes, initial={"x": s.X0.tolist(), "y": y0})
    with client(db) as c:
        assert c.post("/api/v1/streams", json=cfg).status_code == 201
        post_samples(c, s.X_stream[:200], [f"p{i}" for i in range(200)])
        learned = 0
        while (r := c.get("/api/v1/streams/line1/tasks/next")).status_code == 200:
            task = r.json()
            y = classes[int(s.y_stream[int(task["sample_id"][1:])])]
            r = c.post(
                f"/api/v1/tasks/{task['task_id']}/label",
                json={"label": y, "request_id": f"r{learned}"},
            )
            assert r.status_code == 200 and r.json()["status"] == "learned", r.text
            assert c.get(f"/api/v1/tasks/{task['task_id']}").json()["label"] == y
            learned += 1
        st = c.get("/api/v1/streams/line1").json()
        assert learned > 0 and st["labels_learned"] == learned and st["model_version"] > 1
        export = c.get("/api/v1/streams/line1/export?format=csv")
        assert export.status_code == 200 and export.text.count("\n") > 200
