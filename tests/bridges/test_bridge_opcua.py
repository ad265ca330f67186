"""The OPC UA bridge against a real asyncua server (tests/bridges/opcua_line.py) and a real
`cbeal serve` subprocess: parts flow, kills, outages, decisions, bad node ids, security."""

from __future__ import annotations

import io
import json
import logging
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("asyncua")
import httpx

from cbeal.bridges.opcua import Bridge, Security
from cbeal.bridges.opcua_journal import Journal
from cbeal.core import ParameterError

from ..service_helpers import FEATURES, Server, free_port, line, stream_config
from .opcua_line import FEATURE_NODES, Line, client_certificate, node


def _service(tmp_path: Path, seed: int, name: str = "svc") -> tuple[Server, Any]:
    s = line(seed=seed)
    server = Server(f"sqlite:///{tmp_path / f'{name}.db'}", extra=("--open",)).start()
    httpx.post(f"{server.url}/api/v1/streams", json=stream_config(s), timeout=30).raise_for_status()
    return server, s


def _bridge(ln: Line, server: Server, tmp_path: Path, **kw: Any) -> Bridge:
    args: dict[str, Any] = {
        "endpoint": ln.endpoint,
        "stream": "line1",
        "trigger": node("Part"),
        "features": FEATURE_NODES,
        "url": server.url,
        "token": None,
        "journal": tmp_path / "journal.db",
        "decision": node("Lab"),
        "decision_part": node("LabPart"),
        "max_pause": 2.0,
    }
    args.update(kw)
    return Bridge(**args)


def _stored(server: Server) -> Any:
    """The stream's samples as the service exported them (without the initial set)."""
    import pandas as pd

    r = httpx.get(f"{server.url}/api/v1/streams/line1/export", timeout=30)
    r.raise_for_status()
    frame = pd.read_csv(io.BytesIO(r.content), dtype={"sample_id": str})
    return frame[frame["seq"] > 0].reset_index(drop=True)


def _received(server: Server) -> int:
    st = httpx.get(f"{server.url}/api/v1/streams/line1", timeout=30).json()
    return int(st["samples_received"])


def _wait_for(check: Callable[[], bool], seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def _parts(s: Any, ids: list[Any], start: int = 0) -> list[tuple[Any, list[float]]]:
    return [(pid, s.X_stream[start + i].tolist()) for i, pid in enumerate(ids)]


def test_parts_flow_decisions_are_written_and_the_server_may_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cbeal.opcua")
    server, s = _service(tmp_path, seed=21)
    ln = Line(free_port()).start()
    bridge = _bridge(ln, server, tmp_path).start()
    try:
        assert bridge.ready.wait(20), bridge.error
        ids = [f"A{i}" for i in range(30)]
        ln.parts(_parts(s, ids), pause=0.03)
        assert _wait_for(lambda: bridge.stored == 30), (bridge.stored, bridge.lost)
        frame = _stored(server)
        assert frame["sample_id"].tolist() == ids  # each part once, in line order
        np.testing.assert_allclose(frame[FEATURES].to_numpy(), s.X_stream[:30])
        assert _wait_for(lambda: ln.value("LabPart") == "A29", 5)
        assert ln.value("Lab") == bool(frame["acquire"].iloc[-1])  # the last part's decision
        assert bridge.lost == 0 and bridge.refused == 0 and bridge.repeated == 0

        ln.stop()  # the line's server restarts: the bridge reconnects, with backoff
        time.sleep(1.5)
        ln.start()
        assert _wait_for(bridge.ready.is_set, 20)
        more = [f"B{i}" for i in range(10)]
        ln.parts(_parts(s, more, start=30), pause=0.03)
        assert _wait_for(lambda: bridge.stored == 40), bridge.stored
        assert _stored(server)["sample_id"].tolist() == ids + more
        text = caplog.text
        assert "lost the connection" in text and text.count("connected to opc.tcp") >= 2
    finally:
        bridge.stop()
        ln.close()
        server.stop()


def test_the_service_stopped_and_restarted_loses_and_doubles_nothing(tmp_path: Path) -> None:
    server, s = _service(tmp_path, seed=22)
    ln = Line(free_port(), history=False).start()
    bridge = _bridge(ln, server, tmp_path).start()
    try:
        assert bridge.ready.wait(20), bridge.error
        ids = [f"C{i}" for i in range(25)]
        ln.parts(_parts(s, ids[:10]), pause=0.1)  # no history: each part read live
        assert _wait_for(lambda: bridge.stored == 10)
        server.stop()
        ln.parts(_parts(s, ids[10:], start=10), pause=0.1)  # the line goes on
        assert _wait_for(lambda: bridge.waiting == 15 and bridge.retries > 0)  # in the journal
        assert bridge.stored == 10 and bridge.read == 25
        server.start()
        assert _wait_for(lambda: bridge.stored == 25), bridge.stored
        frame = _stored(server)
        assert frame["sample_id"].tolist() == ids
        np.testing.assert_allclose(frame[FEATURES].to_numpy(), s.X_stream[:25])
        assert bridge.waiting == 0 and bridge.lost == 0 and bridge.repeated == 0
    finally:
        bridge.stop()
        ln.close()
        server.stop()


def _outbox(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM outbox").fetchone()[0])


def test_a_bridge_killed_twice_counts_every_part_once(tmp_path: Path) -> None:
    server, s = _service(tmp_path, seed=23)
    ln = Line(free_port(), counter=True).start()  # keeps history: nothing is lost
    journal = tmp_path / "journal.db"
    cmd = [
        sys.executable, "-m", "cbeal", "opcua", "--endpoint", ln.endpoint, "--stream", "line1",
        "--trigger", node("Part"), "--features", ",".join(FEATURE_NODES), "--url", server.url,
        "--journal", str(journal), "--decision", node("Lab"),
    ]  # fmt: skip
    log_path = tmp_path / "bridge.log"
    log = open(log_path, "ab")

    def spawn() -> subprocess.Popen[bytes]:
        return subprocess.Popen(cmd, stdout=log, stderr=log)

    def kill(proc: subprocess.Popen[bytes]) -> None:
        proc.kill()
        proc.wait()

    first = spawn()
    procs = [first]
    try:
        assert _wait_for(lambda: "connected to" in log_path.read_text(), 30)
        ln.parts(_parts(s, list(range(1, 11))), pause=0.03)
        assert _wait_for(lambda: _received(server) == 10), log_path.read_text()
        kill(first)  # 1: killed while all is well
        ln.parts(_parts(s, list(range(11, 26)), start=10), pause=0.01)  # nobody reads these
        second = spawn()
        procs.append(second)
        assert _wait_for(lambda: _received(server) == 25), log_path.read_text()
        assert "read 15 part(s) that went by while away" in log_path.read_text()

        server.stop()  # 2: killed while the service is down and parts wait in the journal
        ln.parts(_parts(s, list(range(26, 36)), start=25), pause=0.03)
        assert _wait_for(lambda: _outbox(journal) == 10), log_path.read_text()
        kill(second)
        server.start()
        third = spawn()
        procs.append(third)
        assert _wait_for(lambda: _received(server) == 35), log_path.read_text()
        time.sleep(1.0)
        frame = _stored(server)
        assert frame["sample_id"].tolist() == [str(i) for i in range(1, 36)]  # once, in order
        np.testing.assert_allclose(frame[FEATURES].to_numpy(), s.X_stream[:35])
        assert _outbox(journal) == 0
        assert "was not counted" not in log_path.read_text()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=20)
        ln.close()
        server.stop()


def test_parts_missed_without_history_are_counted_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cbeal.opcua")
    server, s = _service(tmp_path, seed=24)
    ln = Line(free_port(), counter=True, history=False).start()
    bridge = _bridge(ln, server, tmp_path).start()
    try:
        assert bridge.ready.wait(20), bridge.error
        ln.parts(_parts(s, [1, 2, 3, 4, 5]), pause=0.1)
        assert _wait_for(lambda: bridge.stored == 5)
        bridge.stop()
        ln.parts(_parts(s, list(range(6, 13)), start=5), pause=0.01)  # 6..12 while away
        again = _bridge(ln, server, tmp_path).start()
        try:
            assert again.ready.wait(20), again.error
            assert _wait_for(lambda: again.stored == 1)
            assert again.lost == 6  # 6..11: their values were overwritten, part 12 is read
        finally:
            again.stop()
        assert _stored(server)["sample_id"].tolist() == ["1", "2", "3", "4", "5", "12"]
        assert "6 part(s) between 5 and 12 went by while the bridge was away" in caplog.text
    finally:
        ln.close()
        server.stop()


def test_refused_content_is_set_aside_and_a_resent_part_counts_once(tmp_path: Path) -> None:
    server, s = _service(tmp_path, seed=25)
    ln = Line(free_port()).start()
    # five feature nodes for a stream of six: the service refuses every part (422)
    bridge = _bridge(ln, server, tmp_path, features=FEATURE_NODES[:5]).start()
    try:
        assert bridge.ready.wait(20), bridge.error
        ln.parts(_parts(s, ["R1", "R2"]), pause=0.03)
        assert _wait_for(lambda: bridge.refused == 2)
        assert bridge.retries == 0 and bridge.stored == 0 and _received(server) == 0
    finally:
        bridge.stop()
    journal = Journal(tmp_path / "journal.db")
    assert journal.count("refused") == 2 and journal.count("outbox") == 0
    # the crash window: the bridge read part W1 and the service stored it, but the
    # bridge died before it could forget it
    x = s.X_stream[3].tolist()
    ln.part("W1", x)
    journal.add("W1", x, stamp=None)
    journal.close()
    httpx.post(
        f"{server.url}/api/v1/streams/line1/samples",
        json={"samples": [{"id": "W1", "x": x}]},
        timeout=30,
    ).raise_for_status()
    again = _bridge(ln, server, tmp_path).start()
    try:
        assert _wait_for(lambda: again.stored == 1)
        assert again.repeated == 0 and _received(server) == 1  # the duplicate, expected
    finally:
        again.stop()
        ln.close()
        server.stop()


def test_bad_node_ids_give_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="is not an OPC UA node id") as bad:
        Bridge(
            endpoint="opc.tcp://127.0.0.1:4840", stream="line1", trigger="ns=2;x=Part",
            features=FEATURE_NODES, url="http://127.0.0.1:9", token=None,
            journal=tmp_path / "j.db",
        )  # fmt: skip
    assert "\n" not in str(bad.value)
    server, _ = _service(tmp_path, seed=26)
    ln = Line(free_port()).start()
    bridge = _bridge(ln, server, tmp_path, features=[*FEATURE_NODES[:5], node("Nope")]).start()
    try:
        assert _wait_for(lambda: bridge.error is not None, 20)
        assert isinstance(bridge.error, ParameterError)
        text = str(bridge.error)
        assert "\n" not in text
        assert text.startswith("`features` node ns=2;s=Line1.Nope is not on opc.tcp://")
        assert "BadNodeIdUnknown" in text
        for features, says in (
            (
                f"{FEATURE_NODES[0]},ns=2;s=Line1.Nope",
                "--features node ns=2;s=Line1.Nope is not on",
            ),
            (f"{FEATURE_NODES[0]},ns=2;x=7", "--features 'ns=2;x=7' is not an OPC UA node id"),
        ):
            out = subprocess.run(
                [
                    sys.executable, "-m", "cbeal", "opcua", "--endpoint", ln.endpoint,
                    "--stream", "line1", "--trigger", node("Part"), "--features", features,
                    "--url", server.url, "--journal", str(tmp_path / "cli.db"),
                ],
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert out.returncode == 2, out.stderr
            lines = [t for t in out.stderr.splitlines() if t.startswith("cbeal: error:")]
            assert len(lines) == 1 and says in lines[0], out.stderr
            assert "Traceback" not in out.stderr
    finally:
        bridge.stop()
        ln.close()
        server.stop()


def test_signed_and_encrypted_with_a_user_name(tmp_path: Path) -> None:
    server, s = _service(tmp_path, seed=27)
    security = {"dir": str(tmp_path), "user": "line-reader", "password": "s3cret"}
    ln = Line(free_port(), security=security).start()
    cert, key = client_certificate(tmp_path)
    good = Security(
        policy="Basic256Sha256", mode="SignAndEncrypt", certificate=cert, private_key=key,
        server_certificate=str(tmp_path / "server-cert.der"), user="line-reader",
        password="s3cret",
    )  # fmt: skip
    wrong = Security(**{**good.__dict__, "password": "guess"})
    refused = _bridge(ln, server, tmp_path, security=wrong, journal=tmp_path / "j2.db").start()
    try:
        assert not refused.ready.wait(3)  # the server lets no one in with a wrong password
    finally:
        refused.stop()
    bridge = _bridge(ln, server, tmp_path, security=good).start()
    try:
        assert bridge.ready.wait(20), bridge.error
        ln.parts(_parts(s, ["E1", "E2", "E3"]), pause=0.03)
        assert _wait_for(lambda: bridge.stored == 3)
        assert _wait_for(lambda: ln.value("LabPart") == "E3", 5)
    finally:
        bridge.stop()
        ln.close()
        server.stop()


def test_a_nan_or_inf_reading_is_a_missing_value_and_blocks_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # issue 28 N3: a NaN or ±inf from the PLC silently stopped the sending, for good
    caplog.set_level(logging.INFO, logger="cbeal.opcua")
    server, s = _service(tmp_path, seed=28)
    ln = Line(free_port()).start()
    bridge = _bridge(ln, server, tmp_path).start()
    parts = _parts(s, ["N1", "N2", "N3", "N4", "N5"])
    parts[1][1][2] = float("nan")
    parts[2][1][0] = float("inf")
    parts[3][1][5] = float("-inf")
    try:
        assert bridge.ready.wait(20), bridge.error
        ln.parts(parts, pause=0.01)  # read together: one batch with the good parts
        assert _wait_for(lambda: bridge.stored == 5), (bridge.stored, bridge.refused)
        assert bridge.refused == 0 and bridge.nonfinite == 3
        frame = _stored(server)
        assert frame["sample_id"].tolist() == ["N1", "N2", "N3", "N4", "N5"]
        sent = frame[FEATURES].to_numpy()  # a missing value is an empty cell
        want = np.array([x for _, x in parts])
        want[~np.isfinite(want)] = np.nan
        np.testing.assert_array_equal(np.isnan(sent), np.isnan(want))
        np.testing.assert_allclose(sent[~np.isnan(sent)], want[~np.isnan(want)])
        said = [r.getMessage() for r in caplog.records if "read NaN or ±inf" in r.getMessage()]
        assert said == [
            f"part N{k}: ns=2;s=Line1.S{j} read NaN or ±inf; sent as a missing value (null), "
            "which the service imputes"
            for k, j in ((2, 2), (3, 0), (4, 5))
        ]
    finally:
        bridge.stop()
    # a journal written before: a NaN row and an unreadable row stalled every restart
    with sqlite3.connect(tmp_path / "journal.db") as db:
        rows = [
            ("OLD1", "[NaN, " + ", ".join(map(str, s.X_stream[6].tolist()[1:])) + "]"),
            ("BAD1", "not json"),
            ("BAD2", '{"s0": 1}'),
            ("OLD2", json.dumps(s.X_stream[7].tolist())),
        ]
        db.executemany("INSERT INTO outbox (sample_id, x, read_at) VALUES (?, ?, 0)", rows)
        bad_seqs = [r for (r,) in db.execute("SELECT seq FROM outbox WHERE sample_id LIKE 'BAD%'")]
    again = _bridge(ln, server, tmp_path).start()
    try:
        assert _wait_for(lambda: again.stored == 2), (again.stored, again.error)
        frame = _stored(server)
        assert frame["sample_id"].tolist()[-2:] == ["OLD1", "OLD2"]
        assert np.isnan(frame[FEATURES[0]].iloc[-2])  # the old NaN sent as missing
        text = caplog.text
        for seq, sid in zip(bad_seqs, ("BAD1", "BAD2"), strict=True):
            assert f"row seq {seq} of the outbox (part {sid}) is unreadable" in text
        assert "set aside in the journal's refused table" in text
    finally:
        again.stop()
        ln.close()
        server.stop()
    journal = Journal(tmp_path / "journal.db")
    assert journal.count("outbox") == 0 and journal.count("refused") == 2
    journal.close()


def test_a_journal_that_is_not_sqlite_is_a_one_line_error(tmp_path: Path) -> None:
    # issue 28 N9: a 16-line traceback before
    wrong = tmp_path / "notes.txt"
    wrong.write_text("these are my notes, not a journal\n" * 100)
    with pytest.raises(ParameterError, match="cannot be the bridge's journal") as bad:
        Journal(wrong)
    assert "\n" not in str(bad.value)
    out = subprocess.run(
        [
            sys.executable, "-m", "cbeal", "opcua", "--endpoint", "opc.tcp://127.0.0.1:9/",
            "--stream", "line1", "--trigger", node("Part"), "--features", FEATURE_NODES[0],
            "--url", "http://127.0.0.1:9", "--journal", str(wrong),
        ],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    (said,) = [t for t in out.stderr.splitlines() if t.startswith("cbeal: error:")]
    assert f"--journal '{wrong}' cannot be the bridge's journal" in said
    assert "file is not a database" in said and "name a new file" in said
