"""The newcomer's walkthrough says what to do where it stumbled (issue 29): which database a
token must come from, the demo's numbers in words, and the MQTT bridge's log without a line
per HTTP request."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "cbeal", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


def test_a_token_from_another_folders_database_is_refused_with_the_rule(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from cbeal.bridges.client import Client, TokenRefused

    from ..service_helpers import Server

    elsewhere, here = tmp_path / "elsewhere", tmp_path / "here"
    elsewhere.mkdir()
    here.mkdir()
    made = _cli("token", "create", "--role", "admin", "--name", "me", cwd=elsewhere)
    assert made.returncode == 0, made.stderr
    # it says where the token is kept, and which server accepts it
    assert str(elsewhere / "cbeal-service.db") in made.stderr
    assert "started in this folder accepts it" in made.stderr
    server = Server(f"sqlite:///{here / 'cbeal-service.db'}").start()
    try:
        with pytest.raises(TokenRefused) as refused:
            Client(server.url, token=made.stdout.strip()).call("GET", "/api/v1/streams")
    finally:
        server.stop()
    said = str(refused.value)
    assert "no valid token" in said and "$CBEAL_TOKEN" in said
    assert "cbeal-service.db" in said and "`cbeal serve` was started" in said
    assert "the same database as the server" in said


def test_the_walkthrough_says_one_folder_and_how_to_get_the_token_into_the_browser() -> None:
    for page in (ROOT / "README.md", ROOT / "docs" / "SERVICE.md"):
        text = " ".join(page.read_text().split())
        assert "echo $CBEAL_TOKEN" in text, page.name
        assert "cbeal-service.db" in text and "same `--db`" in text, page.name


def test_the_demo_says_what_its_rewards_and_flips_mean(tmp_path: Path) -> None:
    done = _cli("demo", "--n", "300", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "labels caught a model error (+1 each)" in out
    assert "confirmed a right prediction (-0.5 each)" in out
    assert "EWMA control chart:" in out and "weight flips over 280 samples" in out
    assert "EWMA flips:" not in out
    fused = _cli("demo", "--n", "300", "--preset", "CBEAL-5F", cwd=tmp_path).stdout
    assert "weights: fixed (score fusion: no bandit, no control chart)" in fused


def test_the_mqtt_bridge_does_not_log_every_http_request() -> None:
    from cbeal.cli.bridges import quiet_http_logs

    before = {n: logging.getLogger(n).level for n in ("httpx", "httpcore")}
    try:
        quiet_http_logs()
        logging.getLogger().setLevel(logging.INFO)  # as `cbeal mqtt` configures it
        assert not logging.getLogger("httpx").isEnabledFor(logging.INFO)
        assert logging.getLogger("httpx").isEnabledFor(logging.WARNING)
        assert logging.getLogger("cbeal.mqtt").isEnabledFor(logging.INFO)
    finally:
        for name, level in before.items():
            logging.getLogger(name).setLevel(level)
