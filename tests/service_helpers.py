"""Shared pieces of the service tests: databases (SQLite and the real PostgreSQL), apps,
streams and a server process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from cbeal import make_stream

PG_BASE = os.environ.get("CBEAL_TEST_PG", "postgresql+psycopg://root@127.0.0.1:5432/test")
FEATURES = [f"s{i}" for i in range(6)]


def pg_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(PG_BASE.replace("+psycopg", ""), connect_timeout=3):
            return True
    except Exception:
        return False


@contextmanager
def pg_schema() -> Iterator[str]:
    """A fresh PostgreSQL schema for one test; its URL selects it."""
    import psycopg

    name = f"cbeal_test_{uuid.uuid4().hex[:10]}"
    plain = PG_BASE.replace("+psycopg", "")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    try:
        yield f"{PG_BASE}?options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {name} CASCADE")


def line(seed: int = 0, n: int = 600) -> Any:
    """A small line: 6 sensors, 20 % failures."""
    return make_stream(n=n, pc=0.2, p=6, sp=0.0, random_state=seed)


def stream_config(s: Any, name: str = "line1", **kw: Any) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "name": name,
        "features": FEATURES,
        "classes": ["ok", "fail"],
        "budget": "10%",
        "learner": "logreg",
        "seed": 3,
        "initial": {"x": s.X0.tolist(), "y": names(s.y0)},
    }
    cfg.update(kw)
    return cfg


def names(y: np.ndarray) -> list[str]:
    return ["fail" if v == 1 else "ok" for v in np.asarray(y).tolist()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """`cbeal serve` in its own process (killable with SIGKILL)."""

    def __init__(
        self,
        db: str,
        *,
        extra: tuple[str, ...] = (),
        port: int | None = None,
        log: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.db, self.extra, self.env = db, extra, env
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30.0) -> Server:
        import httpx

        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cbeal",
                "serve",
                "--db",
                self.db,
                "--port",
                str(self.port),
                *self.extra,
            ],
            stdout=out,
            stderr=out,
            env=None if self.env is None else {**os.environ, **self.env},
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/healthz", timeout=1.0)
                return self
            except Exception:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"cbeal serve exited with {self.proc.returncode}") from None
                time.sleep(0.1)
        raise TimeoutError("cbeal serve did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


def cli_token(db: str, role: str, name: str) -> str:
    """A new token made by `cbeal token create` (as an operator makes one)."""
    cmd = [sys.executable, "-m", "cbeal", "token", "create", "--role", role, "--name", name]
    out = subprocess.run([*cmd, "--db", db], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def sign_in(page: Any, url: str, token: str) -> None:
    """Sign `page` in on the service at `url` (the token stays in the tab's session)."""
    page.goto(f"{url}/ui/")
    page.fill("#token", token)
    page.keyboard.press("Enter")
    page.wait_for_selector("#list li a")


def simulated_expert(
    url: str, headers: dict[str, str], stream: str, truth: Any, stop: Any, pause: float
) -> None:
    """Answer the stream's tasks until `stop` is set: each after `pause` seconds (looking
    at the part), with ``truth[sample_id]`` (a run for the docs' screenshots)."""
    import httpx

    with httpx.Client(base_url=url, headers=headers, timeout=60) as me:
        while not stop.is_set():
            r = me.get(f"/api/v1/streams/{stream}/tasks/next", params={"lease_seconds": 30})
            if r.status_code != 200:
                time.sleep(1.0)
                continue
            t = r.json()
            time.sleep(pause)
            me.post(
                f"/api/v1/tasks/{t['task_id']}/label",
                json={"label": truth[t["sample_id"]], "request_id": f"demo-{t['task_id']}"},
            )


def demo_line(
    url: str,
    headers: dict[str, str],
    stream: str,
    parts: list[tuple[str, Any]],
    truth: Any,
    *,
    minutes: float,
    pause: float,
    every: float,
) -> int:
    """Send `parts` ((id, row) pairs) 20 at a time every `every` seconds for `minutes`
    while :func:`simulated_expert` answers; returns how many parts were sent."""
    import threading

    import httpx

    stop = threading.Event()
    args = (url, headers, stream, truth, stop, pause)
    worker = threading.Thread(target=simulated_expert, args=args, daemon=True)
    worker.start()
    end = time.monotonic() + 60 * minutes
    sent = 0
    with httpx.Client(base_url=url, headers=headers, timeout=60) as http:
        while time.monotonic() < end and sent + 20 <= len(parts):
            batch = [{"id": i, "x": x} for i, x in parts[sent : sent + 20]]
            http.post(f"/api/v1/streams/{stream}/samples", json={"samples": batch})
            sent += 20
            time.sleep(every)
    stop.set()
    worker.join()
    return sent
