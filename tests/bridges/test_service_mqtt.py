"""The MQTT bridge against the real Mosquitto broker on 127.0.0.1:1883."""

from __future__ import annotations

import json
import socket
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("paho.mqtt")
import paho.mqtt.client as mqtt

from cbeal.bridges.mqtt import Bridge

from ..service_helpers import Server, line, stream_config


def broker_up() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 1883), timeout=2).close()
        return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not broker_up(), reason="no MQTT broker on 127.0.0.1:1883")


def test_samples_in_decisions_out_once_per_sample_id(tmp_path: Path) -> None:
    s = line(seed=8)
    server = Server(
        f"sqlite:///{tmp_path / 'mqtt.db'}", extra=("--open", "--undo-seconds", "0")
    ).start()
    prefix = f"cbeal-test/{uuid.uuid4().hex[:8]}"
    replies: list[dict[str, Any]] = []
    listener = _listen(prefix, replies)
    bridge = _bridge(prefix, server.url, None).start()
    try:
        httpx.post(f"{server.url}/api/v1/streams", json=stream_config(s), timeout=30)
        assert bridge.ready.wait(10)
        publisher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        publisher.connect("127.0.0.1", 1883)
        publisher.loop_start()
        for i in range(20):
            publisher.publish(
                f"{prefix}/samples", json.dumps({"id": f"p{i}", "x": s.X_stream[i].tolist()}), qos=1
            ).wait_for_publish()
        batch = {"samples": [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(15, 30)]}
        publisher.publish(f"{prefix}/samples", json.dumps(batch), qos=1).wait_for_publish()
        publisher.publish(f"{prefix}/samples", b"not json", qos=1).wait_for_publish()
        deadline = time.monotonic() + 30
        while len(replies) < 36 and time.monotonic() < deadline:
            time.sleep(0.1)
        decisions = [r for r in replies if "sample_id" in r]
        assert len(decisions) == 35 and sum("error" in r for r in replies) == 1
        assert [d["duplicate"] for d in decisions[20:25]] == [True] * 5  # p15..p19 again
        first = {d["sample_id"]: d["decision"]["id"] for d in decisions[:20]}
        assert all(first[d["sample_id"]] == d["decision"]["id"] for d in decisions[20:25])
        st = httpx.get(f"{server.url}/api/v1/streams/line1", timeout=30).json()
        assert st["samples_received"] == 30  # each sample id stored once
        publisher.loop_stop()
    finally:
        bridge.stop()
        listener.loop_stop()
        server.stop()


def _bridge(prefix: str, url: str, token: str | None, stream: str = "line1", **kw: Any) -> Bridge:
    return Bridge(
        broker="127.0.0.1:1883",
        topic=f"{prefix}/samples",
        reply_topic=f"{prefix}/decisions",
        stream=stream,
        url=url,
        token=token,
        client_id=f"bridge-{uuid.uuid4().hex[:8]}",
        **kw,
    )


def _listen(prefix: str, replies: list[dict[str, Any]]) -> Any:
    listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    listener.on_message = lambda c, u, m: replies.append(json.loads(m.payload))
    listener.connect("127.0.0.1", 1883)
    listener.subscribe(f"{prefix}/decisions", qos=1)
    listener.loop_start()
    return listener


def _publish(topic: str, payloads: list[Any]) -> None:
    publisher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    publisher.connect("127.0.0.1", 1883)
    publisher.loop_start()
    for body in payloads:
        data = body if isinstance(body, bytes) else json.dumps(body)
        publisher.publish(topic, data, qos=1).wait_for_publish()
    publisher.loop_stop()
    publisher.disconnect()


def _received(server: Server, stream: str = "line1", token: str | None = None) -> int:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    st = httpx.get(f"{server.url}/api/v1/streams/{stream}", headers=headers, timeout=30)
    return int(st.json()["samples_received"])


def _wait_for(check: Any, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def test_a_message_waits_while_the_service_is_down_and_nothing_is_lost(tmp_path: Path) -> None:
    # the audit's high finding: with the service stopped, messages were acknowledged and lost
    s = line(seed=9)
    server = Server(f"sqlite:///{tmp_path / 'down.db'}", extra=("--open",))
    prefix = f"cbeal-test/{uuid.uuid4().hex[:8]}"
    bridge = _bridge(prefix, server.url, None, max_pause=1.0).start()
    try:
        assert bridge.ready.wait(10)
        _publish(
            f"{prefix}/samples", [{"id": f"d{i}", "x": s.X_stream[i].tolist()} for i in range(12)]
        )
        time.sleep(2.0)
        assert bridge.handled == 0 and bridge.retries > 0  # held, not dropped
        server.start()
        httpx.post(f"{server.url}/api/v1/streams", json=stream_config(s), timeout=30)
        assert _wait_for(lambda: bridge.handled == 12), bridge.handled
        assert _received(server) == 12 and bridge.errors == 0
    finally:
        bridge.stop()
        server.stop()


def test_a_refused_token_holds_messages_until_an_operator_fixes_it(tmp_path: Path) -> None:
    from sqlalchemy import insert

    from cbeal.service.engine.tokens import create_token, hash_token
    from cbeal.service.store.db import connect, migrate
    from cbeal.service.store.tables import tokens

    s = line(seed=10)
    db = f"sqlite:///{tmp_path / 'auth.db'}"
    engine = connect(db)
    migrate(engine)
    admin = create_token(engine, role="admin", name="test-admin")
    server = Server(db).start()
    prefix = f"cbeal-test/{uuid.uuid4().hex[:8]}"
    later = "cbeal_" + uuid.uuid4().hex  # not valid yet
    httpx.post(
        f"{server.url}/api/v1/streams",
        json=stream_config(s),
        headers={"Authorization": f"Bearer {admin}"},
        timeout=30,
    ).raise_for_status()
    bridge = _bridge(prefix, server.url, later, max_pause=1.0).start()
    try:
        assert bridge.ready.wait(10)
        _publish(
            f"{prefix}/samples", [{"id": f"t{i}", "x": s.X_stream[i].tolist()} for i in range(10)]
        )
        assert _wait_for(lambda: bridge.retries >= 2, 20)
        assert _received(server, token=admin) == 0 and bridge.errors == 0
        with engine.begin() as conn:  # the operator issues the token the bridge holds
            conn.execute(
                insert(tokens).values(
                    name="plc", role="ingest", token_hash=hash_token(later), created_at=time.time()
                )
            )
        assert _wait_for(lambda: bridge.handled == 10), bridge.handled
        assert _received(server, token=admin) == 10
    finally:
        bridge.stop()
        server.stop()


def test_refused_content_is_reported_and_the_line_goes_on(tmp_path: Path) -> None:
    s = line(seed=11)
    server = Server(f"sqlite:///{tmp_path / 'bad.db'}", extra=("--open",)).start()
    prefix = f"cbeal-test/{uuid.uuid4().hex[:8]}"
    replies: list[dict[str, Any]] = []
    listener = _listen(prefix, replies)
    bridge = _bridge(prefix, server.url, None).start()
    try:
        httpx.post(f"{server.url}/api/v1/streams", json=stream_config(s), timeout=30)
        assert bridge.ready.wait(10)
        _publish(
            f"{prefix}/samples",
            [
                {"id": "wrong-width", "x": [1.0, 2.0]},  # the service refuses it: 422
                [1, 2, 3],  # JSON, but not a sample message
                {"id": "ok", "x": s.X_stream[0].tolist()},
            ],
        )
        assert _wait_for(lambda: bridge.handled == 1 and bridge.errors == 2, 30)
        assert _wait_for(lambda: len(replies) == 3, 10)
        errors = [r["error"] for r in replies if "error" in r]
        assert len(errors) == 2 and "422" in errors[0]
        assert [r["sample_id"] for r in replies if "sample_id" in r] == ["ok"]
    finally:
        bridge.stop()
        listener.loop_stop()
        server.stop()


def test_a_killed_bridge_leaves_unstored_messages_with_the_broker(tmp_path: Path) -> None:
    # kill -9 the bridge while the service is down; its restart stores every message once
    import subprocess
    import sys

    s = line(seed=12)
    server = Server(f"sqlite:///{tmp_path / 'kill.db'}", extra=("--open",))
    prefix = f"cbeal-test/{uuid.uuid4().hex[:8]}"
    client_id = f"bridge-{uuid.uuid4().hex[:8]}"
    cmd = [
        sys.executable, "-m", "cbeal", "mqtt", "--broker", "127.0.0.1:1883",
        "--topic", f"{prefix}/samples", "--reply", f"{prefix}/decisions",
        "--stream", "line1", "--url", server.url, "--client-id", client_id,
    ]  # fmt: skip
    log = open(tmp_path / "bridge.log", "ab")
    first = subprocess.Popen(cmd, stdout=log, stderr=log)
    try:
        subscribed = lambda: "subscribed to" in (tmp_path / "bridge.log").read_text()  # noqa: E731
        assert _wait_for(subscribed, 60)  # the persistent session exists at the broker
        _publish(
            f"{prefix}/samples", [{"id": f"k{i}", "x": s.X_stream[i].tolist()} for i in range(8)]
        )
        time.sleep(1.5)
        first.kill()
        first.wait()
        server.start()
        httpx.post(f"{server.url}/api/v1/streams", json=stream_config(s), timeout=30)
        assert _received(server) == 0
        second = subprocess.Popen(cmd, stdout=log, stderr=log)
        try:
            assert _wait_for(lambda: _received(server) == 8), (tmp_path / "bridge.log").read_text()
            time.sleep(1.0)
            assert _received(server) == 8
        finally:
            second.terminate()
            second.wait(timeout=20)
    finally:
        if first.poll() is None:
            first.kill()
        server.stop()


def test_a_regression_streams_decisions_reach_mqtt_as_the_service_gave_them(
    tmp_path: Path,
) -> None:
    # MQTT carries samples only: a measured value is labelled on the page, by the API or
    # Label Studio, and a message that carries one is refused whole (nothing stored)
    from ..service.test_service_regression import regression_config, torque

    _, X, _ = torque()
    server = Server(f"sqlite:///{tmp_path / 'reg.db'}", extra=("--open",)).start()
    prefix = f"cbeal-test/{uuid.uuid4().hex[:8]}"
    replies: list[dict[str, Any]] = []
    listener = _listen(prefix, replies)
    bridge = _bridge(prefix, server.url, None, stream="press-7").start()
    try:
        cfg = regression_config()
        assert httpx.post(f"{server.url}/api/v1/streams", json=cfg, timeout=30).status_code == 201
        assert bridge.ready.wait(10)
        samples = [{"id": f"m{i}", "x": X[30 + i].tolist()} for i in range(12)]
        _publish(
            f"{prefix}/samples",
            [{"samples": samples}, {"id": "m99", "x": X[99].tolist(), "label": 41.2}],
        )
        assert _wait_for(lambda: len(replies) == 13, 30)
        decisions, (error,) = replies[:12], replies[12:]
        assert "label" in error["error"] and _received(server, "press-7") == 12
        # the same samples over HTTP: the stored decisions, which MQTT carried unchanged
        again = httpx.post(
            f"{server.url}/api/v1/streams/press-7/samples", json={"samples": samples}, timeout=30
        ).json()["decisions"]
        for mqtt_reply, stored in zip(decisions, again, strict=True):
            assert stored["duplicate"] and not mqtt_reply["duplicate"]
            assert mqtt_reply["decision"] == stored["decision"]
            d = mqtt_reply["decision"]
            assert (d["tolerance"], d["unit"]) == (2.5, "Nm") and len(d["interval"]) == 2
            assert isinstance(d["y_pred"], float) and d["spread"] > 0
    finally:
        bridge.stop()
        listener.loop_stop()
        server.stop()


def test_a_poison_message_is_refused_and_the_line_goes_on(tmp_path: Path) -> None:
    # issue 28 N2: NaN, Infinity, 1e400 or a lone surrogate made `cbeal mqtt` exit with
    # the message unacknowledged, so every restart died on it again
    import subprocess
    import sys

    s = line(seed=13)
    server = Server(f"sqlite:///{tmp_path / 'poison.db'}", extra=("--open",)).start()
    httpx.post(f"{server.url}/api/v1/streams", json=stream_config(s), timeout=30)
    prefix = f"cbeal-test/{uuid.uuid4().hex[:8]}"
    replies: list[dict[str, Any]] = []
    listener = _listen(prefix, replies)
    cmd = [
        sys.executable, "-m", "cbeal", "mqtt", "--broker", "127.0.0.1:1883",
        "--topic", f"{prefix}/samples", "--reply", f"{prefix}/decisions",
        "--stream", "line1", "--url", server.url, "--client-id", f"bridge-{prefix[-8:]}",
    ]  # fmt: skip
    log_path = tmp_path / "bridge.log"
    bridge = subprocess.Popen(cmd, stdout=log_path.open("ab"), stderr=subprocess.STDOUT)
    x = ", ".join(map(str, s.X_stream[0].tolist()[1:]))
    poison = [
        f'{{"id": "nan", "x": [NaN, {x}]}}'.encode(),
        f'{{"id": "inf", "x": [Infinity, {x}]}}'.encode(),
        f'{{"id": "-inf", "x": [-Infinity, {x}]}}'.encode(),
        f'{{"id": "big", "x": [1e400, {x}]}}'.encode(),
        f'{{"samples": [{{"id": "big2", "x": [-1E999, {x}]}}]}}'.encode(),
        f'{{"id": "lone\\ud800", "x": [0.5, {x}]}}'.encode(),
        f'{{"id": "bad-utf8-\xff", "x": [0.5, {x}]}}'.encode("latin-1"),
        b"not json",
        b"",
    ]
    good = [{"id": f"g{i}", "x": s.X_stream[i].tolist()} for i in range(5)]
    try:
        subscribed = lambda: "subscribed to" in log_path.read_text()  # noqa: E731
        assert _wait_for(subscribed, 60), log_path.read_text()
        _publish(f"{prefix}/samples", [*poison, *good])
        assert _wait_for(lambda: len(replies) == len(poison) + len(good), 60), replies
        errors = [r["error"] for r in replies[: len(poison)]]
        assert all(e.startswith("not a sample message") for e in errors), errors
        for said, why in zip(
            errors[:5], ("NaN", "Infinity", "-Inf", "1e400", "1E999"), strict=True
        ):
            assert why in said and "send null" in said, said
        assert "surrogate" in errors[5] and "utf-8" in errors[6]
        assert [r["sample_id"] for r in replies[len(poison) :]] == [f"g{i}" for i in range(5)]
        assert _received(server) == 5 and bridge.poll() is None  # still running
        # every message was acknowledged: a restart with the same session gets none again
        bridge.terminate()
        bridge.wait(timeout=20)
        bridge = subprocess.Popen(cmd, stdout=log_path.open("ab"), stderr=subprocess.STDOUT)
        time.sleep(3.0)
        assert len(replies) == len(poison) + len(good) and bridge.poll() is None
    finally:
        bridge.terminate()
        bridge.wait(timeout=20)
        listener.loop_stop()
        server.stop()
