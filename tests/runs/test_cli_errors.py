"""Every foreseeable failure of the service's commands is one line that says what to do:
a wrong or missing token, an unknown stream, a server that is not running, a port in use,
a database that cannot be reached. Run as a user would: `python -m cbeal ...`."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from ..service_helpers import Server, free_port


def cbeal(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> tuple[int, str]:
    out = subprocess.run(
        [sys.executable, "-m", "cbeal", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        check=False,
    )
    return out.returncode, out.stderr


def one_line(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert "Traceback" not in err, err
    assert lines and lines[-1].startswith("cbeal: error: "), err
    return lines[-1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Server:
    db = f"sqlite:///{tmp_path_factory.mktemp('srv') / 's.db'}"
    srv = Server(db).start()  # tokens are checked
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("data") / "line.csv"
    path.write_text("a,b,quality\n1,2,ok\n3,4,fail\n5,6,ok\n")
    return path


def test_replay_with_a_wrong_token_says_how_to_get_one(server: Server, table: Path) -> None:
    code, err = cbeal(
        "replay", str(table), "--stream", "x", "--url", server.url,
        env={"CBEAL_TOKEN": "cbeal_wrong"},
    )  # fmt: skip
    assert code == 1 and "cbeal token create" in one_line(err) and "401" in err


def test_replay_without_a_token_says_so(server: Server, table: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CBEAL_TOKEN"}
    out = subprocess.run(
        [sys.executable, "-m", "cbeal", "replay", str(table), "--stream", "x", "--url", server.url],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 1 and "$CBEAL_TOKEN" in one_line(out.stderr)


def test_replay_into_an_unknown_stream_names_it(server: Server, table: Path) -> None:
    from cbeal.service.engine.tokens import create_token
    from cbeal.service.store.db import connect

    token = create_token(connect(server.db), role="admin", name="t")
    code, err = cbeal(
        "replay", str(table), "--stream", "nope", "--url", server.url,
        env={"CBEAL_TOKEN": token},
    )  # fmt: skip
    line = one_line(err)
    assert code == 1 and "'nope'" in line and "404" in line


def test_replay_to_a_server_that_is_not_running(table: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    code, err = cbeal("replay", str(table), "--stream", "x", "--url", url, "--wait", "1")
    assert code == 1 and "is `cbeal serve` running there?" in one_line(err)


def test_serve_on_a_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, err = cbeal("serve", "--db", f"sqlite:///{tmp_path / 'a.db'}", "--port", str(port))
    assert code == 1 and f"port {port}" in one_line(err) and "--port" in err


@pytest.mark.parametrize(
    "command",
    [
        ["serve"],
        ["token", "create", "--role", "admin"],
        ["token", "list"],
        ["token", "revoke", "x"],
    ],
)
def test_an_unreachable_database_is_one_line(command: list[str]) -> None:
    url = "postgresql+psycopg://nobody@127.0.0.1:1/none"
    code, err = cbeal(*command, "--db", url)
    line = one_line(err)
    assert code == 1 and "cannot open the database" in line and "is running" in line


def test_serve_says_where_it_listens_and_how_to_get_a_token(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cbeal", "serve", "--db", f"sqlite:///{tmp_path / 'b.db'}",
         "--port", str(port)],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        lines = [proc.stderr.readline() for _ in range(3)]  # type: ignore[union-attr]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    text = "".join(lines)
    assert f"listening on http://127.0.0.1:{port}" in text and "/ui/" in text
    assert "database sqlite:///" in text and "cbeal token create" in text
