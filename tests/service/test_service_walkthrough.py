"""The README's service walkthrough, as a newcomer runs it: bundled SECOM, cbeal serve,
cbeal replay, labels through the API, the status moves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi")

from ..service_helpers import Server


def cli(*args: str, env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "cbeal", *args], capture_output=True, text=True, env=env, check=False
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_serve_replay_secom_label_and_watch_the_status(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cbeal-service.db'}"
    env = {**os.environ}
    cli("data", "secom", "--out", str(tmp_path / "secom.csv"), env=env)
    token = cli("token", "create", "--role", "admin", "--name", "me", "--db", db, env=env).strip()
    env["CBEAL_TOKEN"] = token
    server = Server(db, extra=("--undo-seconds", "0")).start()
    try:
        out = cli(
            "replay",
            str(tmp_path / "secom.csv"),
            "--stream",
            "secom",
            "--id",
            "part",
            "--time",
            "time",
            "--label",
            "quality",
            "--create",
            "--initial",
            "50",
            "--budget",
            "5%",
            "--limit",
            "300",
            "--url",
            server.url,
            "--no-progress",
            env=env,
        )
        assert "replayed 300 rows into 'secom'" in out
        h = {"Authorization": f"Bearer {token}"}
        before = httpx.get(f"{server.url}/api/v1/streams/secom", headers=h).json()
        task = httpx.get(f"{server.url}/api/v1/streams/secom/tasks/next", headers=h).json()
        assert len(task["x"]) == 590 and task["explanation"].startswith("Asked")
        r = httpx.post(
            f"{server.url}/api/v1/tasks/{task['task_id']}/label",
            headers=h,
            json={"label": "fail", "request_id": "me-1"},
        )
        assert r.json()["status"] == "learned"
        out = cli(
            "replay",
            str(tmp_path / "secom.csv"),
            "--stream",
            "secom",
            "--id",
            "part",
            "--time",
            "time",
            "--label",
            "quality",
            "--answer",
            "--limit",
            "600",
            "--url",
            server.url,
            "--no-progress",
            env=env,
        )
        after = httpx.get(f"{server.url}/api/v1/streams/secom", headers=h).json()
        assert after["samples_seen"] > before["samples_seen"] >= 300
        assert after["labels_learned"] > before["labels_learned"]
        assert after["prequential_accuracy"] is not None and after["queue"]["open"] == 0
        assert httpx.get(f"{server.url}/api/v1/streams/secom").status_code == 401
    finally:
        server.stop()
