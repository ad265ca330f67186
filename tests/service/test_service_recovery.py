"""A restarted service continues exactly; a stream rebuilt from its log alone matches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import delete, select

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cbeal.service.app import Settings, create_app
from cbeal.service.store.tables import checkpoints, samples

from ..service_helpers import line, names, stream_config


def app(db: str) -> Any:
    # one owner name: a restarted process on this host takes its streams back at once
    return create_app(
        Settings(
            db=db,
            open=True,
            undo_seconds=0.0,
            retrain="sync",
            checkpoint_every=40,
            owner="host:recovery-test",
        )
    )


def script(s: Any) -> list[tuple[str, Any]]:
    """Batches of samples of varying size, each followed by answering every open task."""
    steps: list[tuple[str, Any]] = []
    lo = 0
    for size in (1, 7, 30, 3, 50, 1, 1, 80, 12, 60, 5, 100):
        steps.append(("samples", (lo, lo + size)))
        steps.append(("answer", None))
        lo += size
    return steps


def run(c: TestClient, s: Any, steps: list[tuple[str, Any]]) -> None:
    truth = {f"p{i}": y for i, y in enumerate(names(s.y_stream))}
    for kind, arg in steps:
        if kind == "samples":
            lo, hi = arg
            r = c.post(
                "/api/v1/streams/line1/samples",
                json={
                    "samples": [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(lo, hi)]
                },
            )
            assert r.status_code == 200, r.text
        else:
            while (r := c.get("/api/v1/streams/line1/tasks/next")).status_code == 200:
                t = r.json()
                c.post(
                    f"/api/v1/tasks/{t['task_id']}/label",
                    json={"label": truth[t["sample_id"]], "request_id": t["sample_id"]},
                )


def decisions(service: Any) -> list[tuple[Any, ...]]:
    with service.engine.connect() as conn:
        rows = conn.execute(
            select(samples.c.sample_id, samples.c.decision).order_by(samples.c.seq)
        ).all()
    return [
        (
            r.sample_id,
            r.decision["id"],
            r.decision["acquire"],
            r.decision["p_acquire"],
            r.decision["learner_version"],
        )
        for r in rows
    ]


def test_restarts_anywhere_continue_exactly(db: str, tmp_path: Path) -> None:
    s = line(seed=5)
    steps = script(s)
    reference_db = f"sqlite:///{tmp_path / 'reference.db'}"
    ref = app(reference_db)
    with TestClient(ref) as c:
        c.post("/api/v1/streams", json=stream_config(s))
        run(c, s, steps)
        expected = decisions(ref.state.service)
        expected_proba = ref.state.service.streams.get("line1").model.predict_proba(s.X_test)
    cfg = stream_config(s)
    for k, chunk in enumerate([steps[:3], steps[3:9], steps[9:16], steps[16:]]):
        crashed = app(db)
        c = TestClient(crashed)  # no context manager: no graceful shutdown, like kill -9
        if k == 0:
            c.post("/api/v1/streams", json=cfg)
        run(c, s, chunk)
        service = crashed.state.service
        service.engine.dispose()
    restarted = app(db)
    with TestClient(restarted) as c:
        got = decisions(restarted.state.service)
        model = restarted.state.service.streams.get("line1").model
        assert got == expected
        np.testing.assert_array_equal(model.predict_proba(s.X_test), expected_proba)
        assert c.get("/api/v1/streams/line1").json()["labels_learned"] > 10


def test_a_stream_rebuilt_from_its_log_alone_makes_the_same_decisions(db: str) -> None:
    s = line(seed=6)
    first = app(db)
    with TestClient(first) as c:
        c.post("/api/v1/streams", json=stream_config(s))
        run(c, s, script(s))
        proba = first.state.service.streams.get("line1").model.predict_proba(s.X_test)
    again = app(db)
    with again.state.service.engine.begin() as conn:
        assert conn.execute(select(checkpoints.c.seq)).first() is not None
        conn.execute(delete(checkpoints))  # only the event log is left
    with TestClient(again):
        runtime = again.state.service.streams.get("line1")  # replays and checks every decision
        np.testing.assert_array_equal(runtime.model.predict_proba(s.X_test), proba)
