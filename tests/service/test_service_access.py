"""Who may do what (issue 21, items 2, 3, 9, 10): the token is checked before any body is
read; tokens are listed, revoked (in every process at once) and scoped to streams; every
reply carries the browser's security headers; the CSV export is safe in a spreadsheet."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cbeal.service.app import Settings, create_app
from cbeal.service.engine.tokens import create_token

from ..service_helpers import Server, line, names, pg_available, pg_schema, stream_config


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def app_for(db: str, **kw: Any) -> Any:
    return create_app(Settings(db=db, undo_seconds=3600.0, retrain="sync", **kw))


# ------------------------------------------------------------------ item 2: token first
def asgi_post(app: Any, headers: list[tuple[bytes, bytes]], declared: int) -> tuple[int, int]:
    """POST a sample batch straight to the ASGI app: (the status, how often the app asked
    for body bytes)."""
    asked = 0
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal asked
        asked += 1
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/v1/streams/line1/samples",
        "raw_path": b"/api/v1/streams/line1/samples",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"test"),
            (b"content-type", b"application/json"),
            (b"content-length", str(declared).encode()),
            *headers,
        ],
        "client": ("127.0.0.1", 1),
        "server": ("test", 80),
    }
    asyncio.run(app(scope, receive, send))
    return status, asked


def test_no_body_byte_is_read_before_the_token_is_accepted(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'a.db'}"
    app = app_for(db)
    token = create_token(app.state.service.engine, role="ingest", name="plc")
    for headers in (
        [],
        [(b"authorization", b"Bearer cbeal_wrong")],
        [(b"authorization", b"Basic dXNlcjpwYXNz")],
        [(b"authorization", b"Bearer " + b"x" * 10_000)],
    ):
        assert asgi_post(app, headers, declared=15_000_000) == (401, 0)  # under the limit
        assert asgi_post(app, headers, declared=10**12) == (401, 0)  # over it: 401 first
    # the same request with a valid token is read (and refused for its content)
    status, asked = asgi_post(app, [(b"authorization", f"Bearer {token}".encode())], 2)
    assert asked >= 1 and status in (404, 422)


def _send_head(port: int, head: str, first: bytes) -> tuple[bytes, float]:
    """Send a request's head and the first bytes of its body; the server's reply (until it
    closes the connection) and how long it took."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        start = time.monotonic()
        sock.sendall(head.encode() + first)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
        return reply, time.monotonic() - start


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_large_body_without_a_token_gets_401_before_it_is_sent(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 's.db'}").start()
    try:
        assert server.proc is not None
        host = f"Host: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
        declared = f"POST /api/v1/streams/line1/samples HTTP/1.1\r\n{host}"
        # the first 7.5 KB of 15 MB: no more than the server reads with the head, so that
        # closing the connection never meets unread bytes (which would make the kernel
        # answer with a reset that can overtake the 401: a flake under load, not the
        # server reading the body)
        first = b'{"samples": [' + b'{"id": "p", "x": [1.5, 2.5]}, ' * 250
        for head in (
            f"{declared}Content-Length: 15000000\r\n\r\n",
            f"{declared}Content-Length: 900000000\r\n\r\n",  # over the limit: 401 first
            f"{declared}Authorization: Bearer cbeal_wrong\r\nContent-Length: 15000000\r\n\r\n",
            f"{declared}Transfer-Encoding: chunked\r\n\r\n",
        ):
            body = first if "chunked" not in head else b"%x\r\n" % len(first) + first + b"\r\n"
            reply, _ = _send_head(server.port, head, body)  # the rest is never sent
            status_line = reply.split(b"\r\n", 1)[0]
            assert status_line == b"HTTP/1.1 401 Unauthorized", reply[:300]
            assert b"connection: close" in reply.lower()
            assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["detail"]
        # what an unauthenticated request costs the server: CPU time of its process
        before = _cpu_seconds(server.proc.pid)
        n = 100
        for _ in range(n):
            _send_head(server.port, f"{declared}Content-Length: 15000000\r\n\r\n", first)
        per_request = (_cpu_seconds(server.proc.pid) - before) / n
        print(f"server CPU per unauthenticated 15 MB request: {per_request * 1e3:.2f} ms")
        # reading and parsing 15 MB of JSON costs about a second; answering from the
        # headers well under 10 ms (the process also renews leases meanwhile)
        assert per_request < 0.01
    finally:
        server.stop()


def test_each_route_keeps_its_body_limit(db: str) -> None:
    with TestClient(app_for(db, open=True, max_body_bytes=200_000)) as c:
        s = line()
        assert c.post("/api/v1/streams", json=stream_config(s)).status_code == 201
        big = {"samples": [{"id": f"p{i}", "x": [0.5] * 6} for i in range(6000)]}
        assert len(json.dumps(big)) > 200_000
        r = c.post("/api/v1/streams/line1/samples", json=big)
        assert r.status_code == 413 and "fewer samples" in r.text
        ok = {"samples": [{"id": f"p{i}", "x": [0.5] * 6} for i in range(2000)]}
        assert 64 * 1024 < len(json.dumps(ok)) < 200_000  # over the short bodies' limit
        assert c.post("/api/v1/streams/line1/samples", json=ok).status_code == 200
        # an answer is a short body: 70 KB is refused there, whatever the global limit
        r = c.post("/api/v1/tasks/1/label", json={"label": "ok", "request_id": "x" * 70_000})
        assert r.status_code == 413 and "short JSON body" in r.text


# ------------------------------------------------------------------ item 3: tokens
def test_tokens_through_the_api_list_revoke_and_never_show_a_secret(db: str) -> None:
    app = app_for(db)
    engine = app.state.service.engine
    ops = create_token(engine, role="admin", name="ops")
    with TestClient(app) as c:
        r = c.post(
            "/api/v1/tokens",
            json={"name": "plc-lineA", "role": "ingest", "streams": ["lineA"]},
            headers=bearer(ops),
        )
        assert r.status_code == 201, r.text
        made = r.json()
        plc = made["token"]
        assert made["streams"] == ["lineA"] and made["role"] == "ingest"
        assert made["created_by"].startswith("ops#") and made["last_used_at"] is None
        assert c.get("/api/v1/me", headers=bearer(plc)).json()["name"] == "plc-lineA"
        listed = c.get("/api/v1/tokens", headers=bearer(ops))
        rows = {t["name"]: t for t in listed.json()["tokens"]}
        assert set(rows) == {"ops", "plc-lineA"}
        assert rows["plc-lineA"]["last_used_at"] is not None  # used just now
        assert rows["ops"]["streams"] is None  # unscoped: every stream
        with engine.connect() as conn:
            hashes = [h for (h,) in conn.execute(text("SELECT token_hash FROM tokens"))]
        assert not any(secret in listed.text for secret in (plc, ops, *hashes))
        # only an unscoped admin manages tokens
        assert c.get("/api/v1/tokens", headers=bearer(plc)).status_code == 403
        scoped_admin = create_token(engine, role="admin", name="lineA-boss", streams=["lineA"])
        for call in (
            lambda h: c.get("/api/v1/tokens", headers=h),
            lambda h: c.post("/api/v1/tokens", json={"name": "x", "role": "admin"}, headers=h),
            lambda h: c.post("/api/v1/tokens/ops/revoke", headers=h),
        ):
            r = call(bearer(scoped_admin))
            assert r.status_code == 403 and "no scope" in r.json()["detail"]
        bad = {"name": "x", "role": "root"}
        assert c.post("/api/v1/tokens", json=bad, headers=bearer(ops)).status_code == 422
        bad = {"name": "x", "role": "ingest", "streams": ["no such/line"]}
        assert c.post("/api/v1/tokens", json=bad, headers=bearer(ops)).status_code == 422
        # revoke: refused from the next request on
        r = c.post("/api/v1/tokens/plc-lineA/revoke", headers=bearer(ops))
        assert r.status_code == 200 and r.json()["revoked"] == [made["id"]]
        r = c.get("/api/v1/me", headers=bearer(plc))
        assert r.status_code == 401 and "revoked" in r.json()["detail"]
        assert c.post("/api/v1/tokens/plc-lineA/revoke", headers=bearer(ops)).status_code == 404
        live = c.get("/api/v1/tokens", headers=bearer(ops)).json()["tokens"]
        assert "plc-lineA" not in {t["name"] for t in live}
        everyone = c.get("/api/v1/tokens?revoked=true", headers=bearer(ops)).json()["tokens"]
        gone = next(t for t in everyone if t["name"] == "plc-lineA")
        assert gone["revoked_at"] and gone["revoked_by"].startswith("ops#")


def test_a_revoked_token_is_refused_on_its_very_next_sample(db: str) -> None:
    """The samples route checks its token from a cache (no database round trip): a
    revocation through the API empties it, and the very next sample is a 401, stored
    nowhere; the same token was accepted just before."""
    app = app_for(db)
    engine = app.state.service.engine
    ops = create_token(engine, role="admin", name="ops")
    plc = create_token(engine, role="ingest", name="plc")
    s = line()
    with TestClient(app) as c:
        assert (
            c.post("/api/v1/streams", json=stream_config(s), headers=bearer(ops)).status_code == 201
        )
        url = "/api/v1/streams/line1/samples"
        for i in range(3):  # cached after the first
            one = {"samples": [{"id": f"a{i}", "x": s.X_stream[i].tolist()}]}
            assert c.post(url, json=one, headers=bearer(plc)).status_code == 200
        assert c.post("/api/v1/tokens/plc/revoke", headers=bearer(ops)).status_code == 200
        r = c.post(url, json={"samples": [{"id": "late", "x": [0.5] * 6}]}, headers=bearer(plc))
        assert r.status_code == 401 and "revoked" in r.json()["detail"]
        assert r.headers["www-authenticate"] == "Bearer"
        # a scope or role that does not allow the call is the route's own 403
        viewer = create_token(engine, role="annotate", name="viewer")
        r = c.post(url, json={"samples": [{"id": "v", "x": [0.5] * 6}]}, headers=bearer(viewer))
        assert r.status_code == 403 and "ingest" in r.json()["detail"]
    with engine.connect() as conn:
        found = conn.execute(
            text("SELECT sample_id FROM samples WHERE sample_id NOT LIKE 'initial-%'")
        )
        stored = {i for (i,) in found}
    assert stored == {"a0", "a1", "a2"}


def cbeal(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cbeal", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def _revocation_across_processes(db: str) -> None:
    from cbeal.service.engine.tokens import list_tokens
    from cbeal.service.store.db import connect, migrate

    engine = connect(db)
    migrate(engine)
    token = create_token(engine, role="ingest", name="plc-3")
    ops = create_token(engine, role="admin", name="ops")
    one, two = Server(db).start(), Server(db).start()
    s = line()
    try:
        for k, srv in enumerate((one, two)):
            assert httpx.get(f"{srv.url}/api/v1/me", headers=bearer(token)).status_code == 200
            cfg = stream_config(s, name=f"line{k}")
            r = httpx.post(f"{srv.url}/api/v1/streams", json=cfg, headers=bearer(ops), timeout=60)
            assert r.status_code == 201, r.text
            for i in range(2):  # the samples route now holds the token in its cache
                one_sample = {"samples": [{"id": f"a{i}", "x": s.X_stream[i].tolist()}]}
                url = f"{srv.url}/api/v1/streams/line{k}/samples"
                assert httpx.post(url, json=one_sample, headers=bearer(token)).status_code == 200
        row = next(t for t in list_tokens(engine) if t["name"] == "plc-3")
        assert row["last_used_at"] is not None
        revoked = cbeal("token", "revoke", "plc-3", "--db", db)
        assert revoked.returncode == 0 and "revoked 1 token" in revoked.stdout
        for k, srv in enumerate((one, two)):  # the very next request, in both processes
            url = f"{srv.url}/api/v1/streams/line{k}/samples"
            late = {"samples": [{"id": "late", "x": s.X_stream[5].tolist()}]}
            r = httpx.post(url, json=late, headers=bearer(token))
            assert r.status_code == 401 and "revoked" in r.json()["detail"]
            r = httpx.get(f"{srv.url}/api/v1/me", headers=bearer(token))
            assert r.status_code == 401 and "revoked" in r.json()["detail"]
        with engine.connect() as conn:
            late_rows = conn.execute(text("SELECT count(*) FROM samples WHERE sample_id = 'late'"))
            assert late_rows.scalar() == 0
        assert [t["name"] for t in list_tokens(engine)] == ["ops"]
    finally:
        one.stop()
        two.stop()
        engine.dispose()


def test_a_revocation_holds_at_once_in_every_process_sqlite(tmp_path: Path) -> None:
    _revocation_across_processes(f"sqlite:///{tmp_path / 'shared.db'}")


@pytest.mark.skipif(not pg_available(), reason="no PostgreSQL on 127.0.0.1:5432")
def test_a_revocation_holds_at_once_in_every_process_postgresql() -> None:
    with pg_schema() as url:
        _revocation_across_processes(url)


def test_token_commands_create_scoped_list_and_revoke(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    made = cbeal(
        "token", "create", "--role", "annotate", "--name", "ana",
        "--stream", "lineA", "--stream", "lineB", "--db", db,
    )  # fmt: skip
    assert made.returncode == 0 and "streams lineA, lineB" in made.stderr
    token = made.stdout.strip()
    listed = cbeal("token", "list", "--db", db).stdout
    row = next(r for r in listed.splitlines() if "ana" in r)
    assert "annotate" in row and "lineA,lineB" in row and row.endswith("never")
    assert token not in listed
    assert cbeal("token", "revoke", "ana", "--db", db).returncode == 0
    every = cbeal("token", "list", "--revoked", "--db", db).stdout
    assert "revoked 20" in next(r for r in every.splitlines() if "ana" in r)
    bad = cbeal("token", "create", "--role", "annotate", "--stream", "a b", "--db", db)
    assert bad.returncode == 2 and "not a stream name" in bad.stderr
    assert "Traceback" not in bad.stderr
    gone = cbeal("token", "revoke", "ana", "--db", db)  # revoked already
    assert gone.returncode == 1 and "no live token is named 'ana'" in gone.stderr


def test_scoped_tokens_act_on_their_streams_only(db: str) -> None:
    s = line(seed=2)
    app = app_for(db)
    engine = app.state.service.engine
    ops = bearer(create_token(engine, role="admin", name="ops"))
    plc_a = bearer(create_token(engine, role="ingest", name="plc-lineA", streams=["lineA"]))
    ana = bearer(create_token(engine, role="annotate", name="ana", streams=["lineA"]))
    boss = bearer(create_token(engine, role="admin", name="boss", streams=["lineA"]))
    anyone = bearer(create_token(engine, role="annotate", name="bob"))  # unscoped
    with TestClient(app) as c:
        for name in ("lineA", "lineB"):
            cfg = stream_config(s, name=name, budget="20%")
            assert c.post("/api/v1/streams", json=cfg, headers=ops).status_code == 201
        # a scoped admin may not create streams: the name is in no path to check
        cfg = stream_config(s, name="lineC")
        r = c.post("/api/v1/streams", json=cfg, headers=boss)
        assert r.status_code == 403 and "scoped" in r.json()["detail"]

        def batch(prefix: str) -> dict[str, Any]:
            X = s.X_stream[:200]
            return {"samples": [{"id": f"{prefix}{i}", "x": x.tolist()} for i, x in enumerate(X)]}

        assert c.post("/api/v1/streams/lineA/samples", json=batch("a"), headers=plc_a).is_success
        r = c.post("/api/v1/streams/lineB/samples", json=batch("b"), headers=plc_a)
        assert r.status_code == 403 and "'lineB' is not one of them" in r.json()["detail"]
        assert c.post("/api/v1/streams/lineB/samples", json=batch("b"), headers=ops).is_success
        # the list shows a scoped token its streams only; unscoped tokens see every one
        assert c.get("/api/v1/streams", headers=ana).json()["streams"] == ["lineA"]
        assert sorted(c.get("/api/v1/streams", headers=anyone).json()["streams"]) == [
            "lineA",
            "lineB",
        ]
        for path in ("", "/config", "/history", "/tasks/next"):
            assert c.get(f"/api/v1/streams/lineA{path}", headers=ana).status_code in (200, 204)
            assert c.get(f"/api/v1/streams/lineB{path}", headers=ana).status_code == 403
        assert c.get("/api/v1/streams/lineB/export", headers=boss).status_code == 403
        assert c.get("/api/v1/streams/lineA/export", headers=boss).status_code == 200
        # tasks carry their stream: a task of lineB is out of reach by its id too
        b_task = c.get("/api/v1/streams/lineB/tasks/next", headers=anyone).json()["task_id"]
        a_task = c.get("/api/v1/streams/lineA/tasks/next", headers=ana).json()["task_id"]
        for verb in ("", "/context"):
            assert c.get(f"/api/v1/tasks/{b_task}{verb}", headers=ana).status_code == 403
            assert c.get(f"/api/v1/tasks/{a_task}{verb}", headers=ana).status_code == 200
        for verb, body in (
            ("label", {"label": "ok", "request_id": "r1"}),
            ("skip", {"request_id": "r2"}),
            ("cannot-tell", {"request_id": "r3"}),
            ("undo", {"request_id": "r4"}),
        ):
            r = c.post(f"/api/v1/tasks/{b_task}/{verb}", json=body, headers=ana)
            assert r.status_code == 403, (verb, r.text)
        assert c.get(f"/api/v1/tasks/{b_task}", headers=anyone).json()["status"] == "open"
        r = c.post(
            f"/api/v1/tasks/{a_task}/label", json={"label": "ok", "request_id": "r5"}, headers=ana
        )
        assert r.status_code == 200 and r.json()["status"] == "labelled"
        assert c.get("/api/v1/tasks/999999", headers=ana).status_code == 404  # no such task
        # routes about every stream: metrics and the webhook need an unscoped token
        assert c.get("/metrics", headers=ana).status_code == 403
        assert c.get("/metrics", headers=anyone).status_code == 200
        hook = {"action": "PROJECT_UPDATED"}
        path = "/api/v1/integrations/label-studio/webhook"
        assert c.post(path, json=hook, headers=ana).status_code == 403
        assert c.post(path, json=hook, headers=anyone).status_code == 200
        assert c.get("/healthz", headers=ana).status_code == 200
        assert c.get("/api/v1/me", headers=plc_a).json()["role"] == "ingest"


# ------------------------------------------------------------------ item 9: headers
def test_every_reply_carries_the_security_headers(tmp_path: Path) -> None:
    app = app_for(f"sqlite:///{tmp_path / 'h.db'}", max_body_bytes=1000)
    token = bearer(create_token(app.state.service.engine, role="admin", name="ops"))
    with TestClient(app) as c:
        replies = {
            "page": c.get("/ui/index.html"),
            "redirect": c.get("/", follow_redirects=False),
            "api": c.get("/api/v1/streams", headers=token),
            "401": c.get("/api/v1/streams"),
            "403": c.get("/api/v1/tokens", headers=bearer(create_token(
                app.state.service.engine, role="ingest", name="plc"))),
            "404": c.get("/api/v1/streams/nope", headers=token),
            "413": c.post("/api/v1/streams", content=b"x" * 2000, headers=token),
            "422": c.post("/api/v1/streams", json={}, headers=token),
            "openapi": c.get("/openapi.json", headers=token),
            "metrics": c.get("/metrics", headers=token),
        }  # fmt: skip
    expected = {"401": 401, "403": 403, "404": 404, "413": 413, "422": 422, "redirect": 307}
    for what, r in replies.items():
        assert r.status_code == expected.get(what, 200), (what, r.status_code, r.text)
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp, what
        assert "connect-src 'self'" in csp and "frame-ancestors 'none'" in csp, what
        assert r.headers["x-frame-options"] == "DENY", what
        assert r.headers["x-content-type-options"] == "nosniff", what
        assert r.headers["referrer-policy"] == "no-referrer", what
        store = r.headers.get("cache-control") == "no-store"
        assert store == (what not in ("page", "redirect")), what  # API replies are not kept


def test_the_pages_have_no_inline_script_or_style() -> None:
    static = Path(__file__).parents[2] / "src" / "cbeal" / "service" / "static"
    for page in static.glob("*.html"):
        html = page.read_text()
        assert "<script>" not in html and "<style" not in html, page.name  # only <script src>
        assert not re.search(r"<[^>]*\s(on[a-z]+|style)\s*=", html), page.name
        assert "javascript:" not in html, page.name


# ------------------------------------------------------------------ item 10: CSV
def test_owasp_s_characters_are_escaped() -> None:
    from cbeal.service.engine.export import spreadsheet_safe

    for first in ("=", "+", "-", "@", "\t", "\r"):
        assert spreadsheet_safe(f"{first}cmd|' /C calc'!A0") == f"'{first}cmd|' /C calc'!A0"
    for plain in ("-1", "+2.5", "-.5e-3", "1e5", "part-1", "", " =1", None, -3.0):
        assert spreadsheet_safe(plain) == plain


def test_the_csv_export_escapes_formulas(db: str) -> None:
    s = line(seed=5)
    ids = ['=HYPERLINK("http://evil","x")', "+1+1", "@SUM(1)", "-2+3", "-1.5", "+7", "part-9"]
    with TestClient(app_for(db, open=True)) as c:
        cfg = stream_config(s, classes=["=ok", "-1"], budget="20%")
        cfg["initial"]["y"] = ["-1" if v == "fail" else "=ok" for v in names(s.y0)]
        assert c.post("/api/v1/streams", json=cfg).status_code == 201
        X = s.X_stream[: len(ids)]
        body = {"samples": [{"id": i, "x": x.tolist()} for i, x in zip(ids, X, strict=True)]}
        assert c.post("/api/v1/streams/line1/samples", json=body).is_success
        raw = c.get("/api/v1/streams/line1/export?format=csv").text
        parquet = c.get("/api/v1/streams/line1/export?format=parquet").content
    rows = list(csv.DictReader(io.StringIO(raw, newline="")))
    got = [r["sample_id"] for r in rows[-len(ids) :]]
    assert got == ["'" + i if i[0] in "=+-@" and i not in ("-1.5", "+7") else i for i in ids]
    for r in rows:
        for value in r.values():  # no cell of the file starts a formula
            assert not value or value[0] not in "=+-@\t\r" or value.lstrip("+-")[0].isdigit()
    labels = {r[k] for r in rows for k in ("label", "prediction") if r[k]}
    assert labels <= {"'=ok", "-1"} and "'=ok" in labels  # a plain number stays a number
    import pandas as pd

    exact = pd.read_parquet(io.BytesIO(parquet))  # Parquet keeps every value exactly
    assert list(exact["sample_id"][-len(ids) :]) == ids


def test_no_command_takes_a_secret_on_its_command_line() -> None:
    # issue 21 item 3: tokens come from $CBEAL_TOKEN and $LABEL_STUDIO_TOKEN, never from
    # flags, which `ps` shows to every user of the machine
    import argparse

    from cbeal.cli import build_parser

    def flags(parser: argparse.ArgumentParser) -> set[str]:
        found: set[str] = set()
        for action in parser._actions:
            found |= set(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    found |= flags(sub)
        return found

    every = flags(build_parser())
    assert {"--db", "--stream", "--role"} <= every  # the walk reaches the subcommands
    secret = {f for f in every if any(w in f for w in ("token", "password", "secret", "pass"))}
    assert secret == set(), secret
