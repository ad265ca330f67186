"""Two `cbeal serve` processes on one PostgreSQL: one owner per stream, exact takeover."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")

from ..service_helpers import Server, line, names, pg_available, pg_schema, stream_config

pytestmark = pytest.mark.skipif(not pg_available(), reason="no PostgreSQL on 127.0.0.1:5432")
ARGS = ("--open", "--undo-seconds", "0", "--retrain", "sync", "--lease-seconds", "3")


@pytest.fixture
def pg() -> Iterator[str]:
    with pg_schema() as url:
        yield url


def operate(url: str, s: Any, lo: int, hi: int) -> list[Any]:
    """Send samples lo..hi in batches of 10 and answer every task; the decisions made."""
    truth = names(s.y_stream)
    out = []
    for a in range(lo, hi, 10):
        r = httpx.post(
            f"{url}/api/v1/streams/line1/samples",
            timeout=30,
            json={
                "samples": [
                    {"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(a, min(hi, a + 10))
                ]
            },
        )
        assert r.status_code == 200, r.text
        out += [
            (d["decision"]["id"], d["acquire"], d["decision"]["p_acquire"])
            for d in r.json()["decisions"]
        ]
        while (
            t := httpx.get(f"{url}/api/v1/streams/line1/tasks/next", timeout=30)
        ).status_code == 200:
            task = t.json()
            httpx.post(
                f"{url}/api/v1/tasks/{task['task_id']}/label",
                timeout=30,
                json={"label": truth[int(task["sample_id"][1:])], "request_id": task["sample_id"]},
            )
    return out


def test_one_owner_at_a_time_and_an_exact_takeover(pg: str, tmp_path: Path) -> None:
    s = line(seed=7)
    reference = Server(f"sqlite:///{tmp_path / 'ref.db'}", extra=ARGS).start()
    try:
        httpx.post(f"{reference.url}/api/v1/streams", json=stream_config(s), timeout=30)
        expected = operate(reference.url, s, 0, 200)
    finally:
        reference.stop()
    a = Server(pg, extra=ARGS, log=tmp_path / "a.log").start()
    b = Server(pg, extra=ARGS, log=tmp_path / "b.log").start()
    try:
        assert (
            httpx.post(f"{a.url}/api/v1/streams", json=stream_config(s), timeout=30).status_code
            == 201
        )
        got = operate(a.url, s, 0, 120)
        busy = httpx.get(f"{b.url}/api/v1/streams/line1", timeout=30)
        assert busy.status_code == 409 and "Retry-After" in busy.headers  # A owns it
        a.kill()  # the owner dies mid-stream
        got += operate(b.url, s, 120, 200)  # B takes the stream over and continues
        assert got == expected
        assert httpx.get(f"{b.url}/api/v1/streams/line1", timeout=30).json()["samples_seen"] == 200
        c = Server(pg, extra=ARGS).start()
        try:  # a third process sees B as the live owner
            assert httpx.get(f"{c.url}/api/v1/streams/line1", timeout=30).status_code == 409
        finally:
            c.stop()
    finally:
        a.kill()
        b.stop()
