"""The second outside audit's service findings (issue 28): task ids in paths are parsed
strictly in one place, so a scoped token never reaches another stream's task (N1); the
CSV export quotes and neutralizes every cell (N4); a token revoked by another process gets
its 401 before any reply that tells stream names (N5); token names are safe in a path, and
tokens can be revoked by id (N6). On SQLite and on PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cbeal.service.app import Settings, create_app
from cbeal.service.engine.tokens import create_token

from ..service_helpers import line, stream_config


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def cbeal(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cbeal", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def app_for(db: str, **kw: Any) -> Any:
    return create_app(Settings(db=db, undo_seconds=3600.0, retrain="sync", **kw))


def spellings(task_id: int) -> list[str]:
    """Ways to write `task_id` that Python's or pydantic's lax int would read as it (the
    path as sent: percent-encoded where a client would encode it)."""
    arabic = "".join(chr(0x660 + int(d)) for d in str(task_id))  # ٨٤
    wide = "".join(chr(0xFF10 + int(d)) for d in str(task_id))  # ８４
    return [
        f"{task_id}.0",
        f"{task_id}.00",
        f"+{task_id}",
        f"%20{task_id}",
        f"{task_id}%20",
        f"{task_id}%0A",
        f"0{task_id}",
        hex(task_id),
        f"{task_id}e0",
        "_".join(str(task_id)),
        arabic,
        wide,
        f"{task_id}.4",
    ]


def task_routes(app: Any) -> list[tuple[str, str]]:
    """(method, path) of every route of the app whose path holds a task id."""
    paths = app.openapi()["paths"]  # every route (routers are included lazily)
    return sorted(
        (method.upper(), path)
        for path, ops in paths.items()
        if "{task_id}" in path
        for method in ops
    )


BODIES = {
    "label": {"label": "ok", "request_id": "r-label"},
    "skip": {"request_id": "r-skip"},
    "release": {"request_id": "r-release"},
    "cannot-tell": {"request_id": "r-cannot"},
    "undo": {"request_id": "r-undo"},
}


def call(c: TestClient, method: str, path: str, spelled: str, auth: dict[str, str]) -> Any:
    url = path.replace("{task_id}", spelled)
    if method == "GET":
        return c.get(url, headers=auth)
    return c.post(url, json=BODIES[path.rsplit("/", 1)[1]], headers=auth)


# ------------------------------------------------------------------ N1: task ids
def test_no_spelling_of_a_task_id_gets_past_the_scope_check(db: str) -> None:
    s = line(seed=2)
    app = app_for(db)
    engine = app.state.service.engine
    ops = bearer(create_token(engine, role="admin", name="ops"))
    ana = bearer(create_token(engine, role="annotate", name="ana", streams=["lineA"]))
    routes = task_routes(app)
    assert len(routes) == 7  # get, context, label, skip, release, cannot-tell, undo
    with TestClient(app) as c:
        for name in ("lineA", "lineB"):
            cfg = stream_config(s, name=name, budget="30%")
            assert c.post("/api/v1/streams", json=cfg, headers=ops).status_code == 201
            X = s.X_stream[:200]
            batch = {"samples": [{"id": f"{name}-{i}", "x": x.tolist()} for i, x in enumerate(X)]}
            assert c.post(f"/api/v1/streams/{name}/samples", json=batch, headers=ops).is_success
        b_task = c.get("/api/v1/streams/lineB/tasks/next", headers=ops).json()["task_id"]
        before = c.get(f"/api/v1/tasks/{b_task}", headers=ops).json()
        for method, path in routes:
            assert call(c, method, path, str(b_task), ana).status_code == 403, (method, path)
            for spelled in spellings(b_task):
                for who, auth in (("scoped", ana), ("unscoped", ops)):
                    r = call(c, method, path, spelled, auth)
                    # refused as a malformed id by everyone, never served nor acted on
                    assert r.status_code == 422, (who, method, path, spelled, r.text)
                    assert "lineB" not in r.text and "x" not in r.json()
        after = c.get(f"/api/v1/tasks/{b_task}", headers=ops).json()
        assert after == before  # nothing labelled, skipped, released or closed
        # the plain spelling still works for a token of the task's stream
        assert c.get(f"/api/v1/tasks/{b_task}", headers=ops).status_code == 200


# ------------------------------------------------------------------ N4: CSV export
def test_a_line_break_in_a_sample_id_never_starts_a_csv_row(db: str) -> None:
    s = line(seed=5)
    ids = ["\r=1+1", "\n=2+2", "\r\n@SUM(1)", "\t=3", "a\r=4", 'q"=5', "p,6", "plain-7"]
    with TestClient(app_for(db, open=True)) as c:
        assert c.post("/api/v1/streams", json=stream_config(s)).status_code == 201
        X = s.X_stream[: len(ids)]
        body = {"samples": [{"id": i, "x": x.tolist()} for i, x in zip(ids, X, strict=True)]}
        assert c.post("/api/v1/streams/line1/samples", json=body).is_success
        raw = c.get("/api/v1/streams/line1/export?format=csv").content
    # the csv module reads every row back whole, each id neutralized where it starts a formula
    rows = list(csv.reader(io.StringIO(raw.decode(), newline="")))
    assert {len(r) for r in rows} == {len(rows[0])}
    got = [r[0] for r in rows[-len(ids) :]]
    assert got == ["'" + i if i[0] in "=+-@\t\r\n" else i for i in ids]
    # the raw bytes: rows end in CRLF, and a cell with CR, LF, a quote or a comma is quoted
    for i in ids[:3] + ids[4:7]:
        quoted = '"' + ("'" if i[0] in "\r\n" else "") + i.replace('"', '""') + '"'
        assert quoted.encode() + b"," in raw, i
    records = raw.split(b"\r\n")
    assert records[-1] == b"" and len(records) - 1 == len(rows) + 1  # the one CRLF of an id


# ------------------------------------------------------------------ N5: revoked elsewhere
def test_a_token_revoked_by_another_process_gets_401_before_anything_else(db: str) -> None:
    """`cbeal token revoke` (another process) leaves this process's token cache as it was:
    every request of the revoked token on the samples route is still a 401 — for an
    unknown stream, a malformed name or body, a stream out of its scope — so it never
    learns which streams exist."""
    s = line(seed=3)
    app = app_for(db)
    engine = app.state.service.engine
    ops = bearer(create_token(engine, role="admin", name="ops"))
    plc = bearer(create_token(engine, role="ingest", name="plc", streams=["line1", "ghost"]))
    with TestClient(app) as c:
        assert c.post("/api/v1/streams", json=stream_config(s), headers=ops).status_code == 201
        one = {"samples": [{"id": "a0", "x": s.X_stream[0].tolist()}]}
        for _ in range(2):  # the token is in the samples route's cache now
            assert c.post("/api/v1/streams/line1/samples", json=one, headers=plc).is_success
        revoked = cbeal("token", "revoke", "plc", "--db", db)  # another process
        assert revoked.returncode == 0, revoked.stderr
        good = {"samples": [{"id": "late", "x": s.X_stream[1].tolist()}]}
        for path, body in (
            ("/api/v1/streams/ghost/samples", good),  # in scope, no such stream: was a 404
            ("/api/v1/streams/other/samples", good),  # out of scope: was a 403
            ("/api/v1/streams/line1/samples", {"samples": "nope"}),  # was a 422
            ("/api/v1/streams/line1/samples", {"samples": [{"id": "w", "x": [1.0]}]}),
            ("/api/v1/streams/ghost/samples", {"samples": "nope"}),
            ("/api/v1/streams/ghost/samples", b'{"samples": [NaN'),  # not JSON: was a 422
            ("/api/v1/streams/bad%20name/samples", good),  # a malformed name: was a 422
            ("/api/v1/streams/line1/samples", good),  # the request that worked before
        ):
            sent = body if isinstance(body, bytes) else json.dumps(body).encode()
            r = c.post(path, content=sent, headers={**plc, "Content-Type": "application/json"})
            assert r.status_code == 401, (path, body, r.status_code, r.text)
            assert r.json()["detail"] == "unknown or revoked token"
            assert r.headers["www-authenticate"] == "Bearer"
        # a live token keeps its replies (no extra refusals): 404, 422 and 200
        assert c.post("/api/v1/streams/ghost/samples", json=good, headers=ops).status_code == 404
        bad = {"samples": "nope"}
        assert c.post("/api/v1/streams/line1/samples", json=bad, headers=ops).status_code == 422
        assert c.post("/api/v1/streams/line1/samples", json=good, headers=ops).status_code == 200


# ------------------------------------------------------------------ N6: token names
def test_token_names_are_safe_in_a_path_and_tokens_revocable_by_id(db: str) -> None:
    app = app_for(db)
    engine = app.state.service.engine
    ops = bearer(create_token(engine, role="admin", name="ops"))
    with TestClient(app) as c:
        for bad in ("a/b", "lineA/..", "a b", "", "-x", "x" * 101, "é", "a%2Fb", "a?b", "a\nb"):
            r = c.post("/api/v1/tokens", json={"name": bad, "role": "ingest"}, headers=ops)
            assert r.status_code == 422, (bad, r.text)
            assert "[A-Za-z0-9][A-Za-z0-9_.@-]" in r.text  # the 422 says which names are
        # create and revoke by name: every allowed name is one path segment as it is
        for name in ("plc-3", "ana@lineA", "a.b_c", "9"):
            r = c.post("/api/v1/tokens", json={"name": name, "role": "ingest"}, headers=ops)
            assert r.status_code == 201, r.text
            token, made = r.json()["token"], r.json()["id"]
            assert c.get("/api/v1/me", headers=bearer(token)).json()["name"] == name
            r = c.post(f"/api/v1/tokens/{name}/revoke", headers=ops)
            assert r.status_code == 200 and r.json() == {"name": name, "revoked": [made]}
            assert c.get("/api/v1/me", headers=bearer(token)).status_code == 401
    # a name from before the rule (stored as it was) is revoked by its id
    old = create_token(engine, role="ingest", name="plc")
    with engine.begin() as conn:
        conn.execute(text("UPDATE tokens SET name = 'line/A press' WHERE name = 'plc'"))
    with TestClient(app) as c:
        assert c.get("/api/v1/me", headers=bearer(old)).json()["name"] == "line/A press"
        listed = c.get("/api/v1/tokens", headers=ops).json()["tokens"]
        odd = next(t["id"] for t in listed if t["name"] == "line/A press")
        for spelled in (f"{odd}.0", f"+{odd}", f"0{odd}"):
            assert c.post(f"/api/v1/tokens/by-id/{spelled}/revoke", headers=ops).status_code == 422
        r = c.post(f"/api/v1/tokens/by-id/{odd}/revoke", headers=ops)
        assert r.status_code == 200 and r.json() == {"name": "line/A press", "revoked": [odd]}
        assert c.get("/api/v1/me", headers=bearer(old)).status_code == 401
        r = c.post(f"/api/v1/tokens/by-id/{odd}/revoke", headers=ops)  # revoked already
        assert r.status_code == 404 and "no live token has the id" in r.json()["detail"]
        gone = c.get("/api/v1/tokens?revoked=true", headers=ops).json()["tokens"]
        assert next(t for t in gone if t["id"] == odd)["revoked_by"].startswith("ops#")


def test_token_commands_refuse_odd_names_and_revoke_by_id(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    bad = cbeal("token", "create", "--role", "ingest", "--name", "a/b", "--db", db)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "letters, digits, '_', '.', '@' or '-'" in bad.stderr and "'a/b'" in bad.stderr
    made = cbeal("token", "create", "--role", "ingest", "--name", "plc-9", "--db", db)
    assert made.returncode == 0, made.stderr
    listed = cbeal("token", "list", "--db", db).stdout
    token_id = next(r.split()[0] for r in listed.splitlines() if "plc-9" in r)
    done = cbeal("token", "revoke", "--id", token_id, "--db", db)
    assert done.returncode == 0 and f"#{token_id} named 'plc-9'" in done.stdout
    again = cbeal("token", "revoke", "--id", token_id, "--db", db)
    assert again.returncode == 1 and "no live token has the id" in again.stderr
    both = cbeal("token", "revoke", "plc-9", "--id", token_id, "--db", db)
    assert both.returncode == 2 and "not allowed with" in both.stderr
