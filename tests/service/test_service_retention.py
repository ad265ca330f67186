"""Retention: old unlabelled samples move to Parquet and leave the database; the stream
continues exactly (after a restart or a crash too), and nothing is lost or archived twice."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import func, select

pytest.importorskip("fastapi")
pytest.importorskip("pyarrow")
import pyarrow.parquet as pq
from fastapi.testclient import TestClient

from cbeal.service.app import Settings, create_app
from cbeal.service.engine import archive as archive_module
from cbeal.service.engine.archive import read_archive
from cbeal.service.store.tables import events, samples, tasks

from ..service_helpers import line, stream_config
from .test_service_recovery import decisions, run, script

FUTURE = 10_000.0  # a step this far ahead finds every sample old


def app(db: str, folder: Path | None) -> Any:
    return create_app(
        Settings(
            db=db,
            open=True,
            undo_seconds=0.0,
            retrain="sync",
            checkpoint_every=40,
            owner="host:retention-test",
            retain_seconds=None if folder is None else 3600.0,
            archive=None if folder is None else str(folder),
        )
    )


def archived_decisions(folder: Path) -> list[tuple[Any, ...]]:
    import orjson

    frame = read_archive(folder, "line1")
    out = []
    for sid, text in zip(frame["sample_id"], frame["decision"], strict=True):
        d = orjson.loads(text)
        out.append((sid, d["id"], d["acquire"], d["p_acquire"], d["learner_version"]))
    return out


def in_order(service: Any, folder: Path) -> list[tuple[Any, ...]]:
    """Every decision, archived or not, in arrival order (D0 first)."""
    kept = decisions(service)
    with service.engine.connect() as conn:
        seqs = dict(conn.execute(select(samples.c.sample_id, samples.c.seq)).all())
    frame = read_archive(folder, "line1")
    seqs.update(zip(frame["sample_id"], frame["seq"].tolist(), strict=True))
    return sorted(kept + archived_decisions(folder), key=lambda d: seqs[d[0]])


def test_archived_samples_leave_and_the_stream_continues_exactly(db: str, tmp_path: Path) -> None:
    s = line(seed=5)
    steps = script(s)
    ref = app(f"sqlite:///{tmp_path / 'reference.db'}", None)
    with TestClient(ref) as c:
        c.post("/api/v1/streams", json=stream_config(s))
        run(c, s, steps)
        expected = decisions(ref.state.service)
        expected_proba = ref.state.service.streams.get("line1").model.predict_proba(s.X_test)
        expected_status = c.get("/api/v1/streams/line1").json()
    folder = tmp_path / "archive"
    moved = 0
    for k, chunk in enumerate([steps[:5], steps[5:12], steps[12:17], steps[17:]]):
        crashed = app(db, folder)
        c = TestClient(crashed)  # no context manager: no graceful shutdown, like kill -9
        if k == 0:
            c.post("/api/v1/streams", json=stream_config(s))
        run(c, s, chunk)
        service = crashed.state.service
        moved += service.archiver.step(now=time.time() + FUTURE)
        service.engine.dispose()
    assert moved > 300
    restarted = app(db, folder)
    with TestClient(restarted) as c:
        service = restarted.state.service
        assert in_order(service, folder) == expected
        model = service.streams.get("line1").model
        np.testing.assert_array_equal(model.predict_proba(s.X_test), expected_proba)
        status = c.get("/api/v1/streams/line1").json()
        for key in ("samples_received", "labels_received", "samples_seen", "model_version"):
            assert status[key] == expected_status[key]
        with service.engine.connect() as conn:
            left = conn.execute(
                select(func.count())
                .select_from(samples.outerjoin(tasks, tasks.c.sample_pk == samples.c.id))
                .where(tasks.c.id.is_(None))
            ).scalar_one()
            asked = conn.execute(select(func.count()).select_from(tasks)).scalar_one()
            n_events, first_event = conn.execute(select(func.count(), func.min(events.c.seq))).one()
            last_seq = conn.execute(select(func.max(events.c.seq))).scalar_one()
        assert left == 0  # every unasked sample left; each asked one (and D0) stayed
        assert asked == sum(1 for d in expected if d[2]) + len(s.y0)
        assert first_event > 1 and n_events < last_seq / 2  # the log the checkpoints cover went
        # the export with the archive holds every sample, in order
        r = c.get("/api/v1/streams/line1/export", params={"format": "parquet", "archive": True})
        import pandas as pd

        frame = pd.read_parquet(io.BytesIO(r.content))
        assert frame["sample_id"].tolist() == [d[0] for d in expected]
        without = c.get("/api/v1/streams/line1/export", params={"format": "csv"})
        assert without.text.count("\r\n") == len(s.y0) + asked - len(s.y0) + 1


def test_a_crash_between_the_file_and_the_delete_loses_nothing_and_doubles_nothing(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = line(seed=8)
    folder = tmp_path / "archive"
    first = app(db, folder)
    c = TestClient(first)
    c.post("/api/v1/streams", json=stream_config(s))
    run(c, s, script(s)[:10])
    service = first.state.service
    before = set(r[0] for r in decisions(service))

    def killed(*_: Any, **__: Any) -> int:
        raise SystemExit("killed after the file, before the delete")

    monkeypatch.setattr(archive_module.retention, "remove_archived", killed)
    with pytest.raises(SystemExit):
        service.archiver.step(now=time.time() + FUTURE)
    written = list(folder.rglob("part-*.parquet"))
    assert written and len(decisions(service)) == len(before)  # file there, rows still too
    service.engine.dispose()
    monkeypatch.undo()

    again = app(db, folder)
    with TestClient(again) as c2:
        service = again.state.service
        service.streams.get("line1")
        assert service.archiver.step(now=time.time() + FUTURE) > 0
        kept = set(r[0] for r in decisions(service))
        files = list(folder.rglob("part-*.parquet"))
        raw = [sid for f in files for sid in pq.read_table(f)["sample_id"].to_pylist()]
        assert len(raw) == len(set(raw))  # no sample archived twice, even in raw files
        assert set(raw) | kept == before and not set(raw) & kept
        assert not list(folder.rglob("*.tmp"))
        assert c2.get("/api/v1/streams/line1").json()["samples_received"] == len(before) - len(s.y0)


def test_the_metrics_show_the_archive_and_the_database(tmp_path: Path) -> None:
    s = line(seed=2)
    folder = tmp_path / "archive"
    service_app = app(f"sqlite:///{tmp_path / 'm.db'}", folder)
    with TestClient(service_app) as c:
        c.post("/api/v1/streams", json=stream_config(s))
        run(c, s, script(s)[:6])
        service_app.state.service.archiver.step(now=time.time() + FUTURE)
        text = c.get("/metrics").text
    size = next(ln for ln in text.splitlines() if ln.startswith("cbeal_database_bytes "))
    assert float(size.split()[1]) > 10_000
    assert 'cbeal_archived_samples{stream="line1"}' in text
    assert 'cbeal_model_age_seconds{stream="line1"}' in text
    assert "cbeal_refit_queue 0.0" in text
    assert 'cbeal_archive_lag_seconds{stream="line1"} 0.0' in text


def test_retention_needs_a_folder_and_a_duration() -> None:
    with pytest.raises(ValueError, match="retain_seconds. and an .archive. folder"):
        Settings(retain_seconds=60.0)
    with pytest.raises(ValueError, match="retain_seconds. and an .archive. folder"):
        Settings(archive="/tmp/a")


def test_serve_says_what_a_duration_and_retention_need(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cbeal.cli import main

    db = f"sqlite:///{tmp_path / 'x.db'}"
    with pytest.raises(SystemExit):
        main(["serve", "--db", db, "--retain", "30", "--archive", str(tmp_path)])
    assert "cannot read the duration '30': write a number and a unit" in capsys.readouterr().err
    assert main(["serve", "--db", db, "--retain", "12h", "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "--retain 30d --archive" in err
