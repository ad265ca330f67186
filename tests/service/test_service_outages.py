"""Outages are 503, not 500 (issue 21, item 6, finding 7): database connections killed
under load on PostgreSQL (``pg_terminate_backend``), a full disk on SQLite in two ways: its
``max_page_count`` pragma (the database may not grow, SQLite answers SQLITE_FULL as on a
full disk; runs everywhere) and a real 2 MB tmpfs filled by ingest (where the tests may
mount one, as root here). Every reply is a success or a 503 with ``Retry-After`` and a JSON
body; the project's client retries the 503s, and every sample ends up stored exactly
once."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient
from sqlalchemy import event

from cbeal.bridges.client import Client, ServiceBusy
from cbeal.service.app import Settings, create_app
from cbeal.service.engine.tokens import create_token
from cbeal.service.store.db import connect, migrate

from ..service_helpers import PG_BASE, Server, line, pg_available, pg_schema, stream_config

S = line(seed=8, n=3000)


def batch(lo: int, n: int, prefix: str = "p") -> dict[str, Any]:
    return {
        "samples": [{"id": f"{prefix}{i}", "x": S.X_stream[i].tolist()} for i in range(lo, lo + n)]
    }


def check_503(r: Any) -> None:
    assert r.status_code == 503, (r.status_code, r.text[:300])
    assert int(r.headers["Retry-After"]) >= 1
    assert r.headers["content-type"].startswith("application/json")
    assert "retry in" in r.json()["detail"]


# ---------------------------------------------------------------------- a full disk (SQLite)
@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[tuple[TestClient, Any]]:
    """A service on SQLite whose database file cannot grow while `limit["pages"]` is set."""
    app = create_app(
        Settings(db=f"sqlite:///{tmp_path / 'full.db'}", open=True, undo_seconds=0, retrain="sync")
    )
    limit: dict[str, int | None] = {"pages": None}
    engine = app.state.service.engine

    @event.listens_for(engine, "connect")
    def cap(dbapi_connection: Any, _record: Any) -> None:
        pages = limit["pages"] or 1_000_000_000
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")

    with TestClient(app) as c:
        assert c.post("/api/v1/streams", json=stream_config(S)).status_code == 201
        yield c, limit


def fill(c: TestClient, limit: dict[str, int | None], full: bool) -> None:
    """Make the disk full (or not) for every connection of the service's pool."""
    engine = c.app.state.service.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()
    limit["pages"] = int(pages) + 1 if full else None
    engine.dispose()  # new connections take the limit


def test_a_full_disk_answers_503_and_nothing_acknowledged_is_lost(
    full_disk: tuple[TestClient, Any],
) -> None:
    c, limit = full_disk
    assert c.post("/api/v1/streams/line1/samples", json=batch(0, 100)).status_code == 200
    fill(c, limit, full=True)
    refused = []
    for k in range(1, 6):
        r = c.post("/api/v1/streams/line1/samples", json=batch(100 * k, 100))
        if r.status_code == 200:
            continue  # fitted in the last free page
        check_503(r)
        assert "disk" in r.json()["detail"] or "full" in r.json()["detail"]
        assert int(r.headers["Retry-After"]) == 30
        refused.append(k)
    assert len(refused) >= 4, refused
    task = c.get("/api/v1/streams/line1/tasks/next")
    if task.status_code == 200:  # a label on a full disk: a 503 too, nothing changed
        r = c.post(
            f"/api/v1/tasks/{task.json()['task_id']}/label",
            json={"label": "ok", "request_id": "full"},
        )
        assert r.status_code in (200, 503), r.text
        if r.status_code == 503:
            check_503(r)
    fill(c, limit, full=False)
    for k in refused:  # sent again once there is room: stored once each
        r = c.post("/api/v1/streams/line1/samples", json=batch(100 * k, 100))
        assert r.status_code == 200 and not any(d["duplicate"] for d in r.json()["decisions"])
    status = c.get("/api/v1/streams/line1").json()
    assert status["samples_received"] == 600
    export = c.get("/api/v1/streams/line1/export?format=csv").text.splitlines()
    ids = [row.split(",")[0] for row in export[1:]]
    assert len(ids) == len(set(ids)) == 600 + len(S.X0)


def _mount_tmpfs(where: Path, size: str) -> bool:
    import subprocess

    where.mkdir(exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def test_a_really_full_file_system_answers_503_and_nothing_is_lost(tmp_path: Path) -> None:
    """The same on a real full disk: the database on a 2 MB tmpfs (where this machine lets
    the tests mount one), filled by ingest, then grown."""
    import subprocess

    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "2m"):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        app = create_app(
            Settings(db=f"sqlite:///{disk / 'full.db'}", open=True, undo_seconds=0, retrain="sync")
        )
        with TestClient(app) as c:
            assert c.post("/api/v1/streams", json=stream_config(S)).status_code == 201
            acked, refused = [], []
            for k in range(29):
                r = c.post("/api/v1/streams/line1/samples", json=batch(100 * k, 100))
                if r.status_code == 200:
                    acked.append(k)
                else:
                    check_503(r)
                    refused.append(k)
            print(f"\n{len(acked)} batches stored, {len(refused)} refused with 503 on a full disk")
            assert refused and acked
            subprocess.run(["mount", "-o", "remount,size=64m", str(disk)], check=True)
            for k in refused:
                r = c.post("/api/v1/streams/line1/samples", json=batch(100 * k, 100))
                assert r.status_code == 200, r.text
            export = c.get("/api/v1/streams/line1/export?format=csv").text.splitlines()
            ids = [row.split(",")[0] for row in export[1:] if not row.startswith("initial-")]
            assert len(ids) == len(set(ids)) == 2900
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


# ---------------------------------------------------------------------- the client
def test_the_client_retries_503_and_honours_retry_after() -> None:
    calls: list[float] = []

    def service(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        if len(calls) < 3:
            return httpx.Response(
                503, json={"detail": "the database connection failed"}, headers={"Retry-After": "1"}
            )
        return httpx.Response(200, json={"ok": True})

    pauses: list[float] = []
    client = Client("http://cbeal", None, sleep=pauses.append, on_retry=lambda e, w: None)
    client.http = httpx.Client(base_url="http://cbeal", transport=httpx.MockTransport(service))
    assert client.call("POST", "/api/v1/streams/x/samples", json={}) == {"ok": True}
    assert len(calls) == 3 and pauses == [1.0, 1.0]
    # retry_for bounds the wait: then the 503 is raised, saying so in one line
    calls.clear()
    with pytest.raises(ServiceBusy) as caught:
        client.call("GET", "/healthz", retry_for=0)
    assert caught.value.status == 503 and "tried again" in str(caught.value)


# ---------------------------------------------------------------------- PostgreSQL
@pytest.mark.skipif(not pg_available(), reason="no PostgreSQL on 127.0.0.1:5432")
def test_connections_killed_under_load_answer_503_and_lose_nothing(tmp_path: Path) -> None:
    """`cbeal serve` on PostgreSQL; four clients send samples while its database
    connections are killed every 50 ms (only its own: they carry their application name).
    Two clients send without retrying and see each reply; two use the project's client,
    which retries. Every reply is a 200 or a 503; every sample is stored exactly once."""
    import psycopg

    name = f"cbeal_outage_{uuid.uuid4().hex[:8]}"
    with pg_schema() as url:
        url = f"{url}&application_name={name}"
        engine = connect(url)
        migrate(engine)
        token = create_token(engine, role="admin", name="load")
        engine.dispose()
        server = Server(url, extra=("--undo-seconds", "0"), log=tmp_path / "serve.log").start()
        auth = {"Authorization": f"Bearer {token}"}
        try:
            http = httpx.Client(base_url=server.url, headers=auth, timeout=60)
            assert http.post("/api/v1/streams", json=stream_config(S)).status_code == 201
            replies: list[Any] = []
            stored_by_client: list[int] = []
            retries: list[Any] = []
            stop = threading.Event()

            def plain(worker: int) -> None:
                with httpx.Client(base_url=server.url, headers=auth, timeout=60) as h:
                    for k in range(30):
                        lo = 700 * worker + 10 * k
                        replies.append(
                            (lo, h.post("/api/v1/streams/line1/samples", json=batch(lo, 10)))
                        )

            errors: list[BaseException] = []

            def retrying(worker: int) -> None:
                client = Client(
                    server.url, token, retry_for=120, on_retry=lambda e, w: retries.append((e, w))
                )
                for k in range(30):
                    lo = 700 * worker + 10 * k
                    try:
                        out = client.call(
                            "POST", "/api/v1/streams/line1/samples", json=batch(lo, 10)
                        )
                    except BaseException as exc:
                        errors.append(exc)
                        raise
                    stored_by_client.append(len(out["decisions"]))

            def killer() -> None:
                plain_url = PG_BASE.replace("+psycopg", "")
                until = time.monotonic() + 5.0  # five seconds of killing, under load
                with psycopg.connect(plain_url, autocommit=True) as conn:
                    while not stop.is_set() and time.monotonic() < until:
                        conn.execute(
                            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                            "WHERE application_name = %s AND pid <> pg_backend_pid()",
                            (name,),
                        )
                        time.sleep(0.05)

            kill = threading.Thread(target=killer)
            kill.start()
            workers = [threading.Thread(target=plain, args=(w,)) for w in (0, 1)]
            workers += [threading.Thread(target=retrying, args=(w,)) for w in (2, 3)]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            stop.set()
            kill.join()
            statuses = [r.status_code for _, r in replies]
            failed = [(lo, r) for lo, r in replies if r.status_code != 200]
            print(
                f"\n{len(replies)} plain requests: {statuses.count(503)} answered 503; "
                f"the retrying clients retried {len(retries)} times"
            )
            assert not errors, errors
            assert set(statuses) <= {200, 503}, sorted(set(statuses))
            assert failed, "no request met a killed connection: the test proved nothing"
            for _, r in failed:
                check_503(r)
            assert stored_by_client == [10] * 60
            # the refused batches sent again; then every sample is there exactly once
            for lo, _ in failed:
                r = http.post("/api/v1/streams/line1/samples", json=batch(lo, 10))
                assert r.status_code == 200
            export = http.get("/api/v1/streams/line1/export?format=csv").text.splitlines()
            ids = [row.split(",")[0] for row in export[1:] if not row.startswith("initial-")]
            assert len(ids) == len(set(ids)) == 4 * 300
            log = (tmp_path / "serve.log").read_text()
            assert "Traceback" not in log, log[-3000:]
        finally:
            server.stop()
