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

from cbeal.service.mqtt import Bridge

from .service_helpers import Server, line, stream_config


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
    listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    listener.on_message = lambda c, u, m: replies.append(json.loads(m.payload))
    listener.connect("127.0.0.1", 1883)
    listener.subscribe(f"{prefix}/decisions", qos=1)
    listener.loop_start()
    bridge = Bridge(
        broker="127.0.0.1:1883",
        topic=f"{prefix}/samples",
        reply_topic=f"{prefix}/decisions",
        stream="line1",
        url=server.url,
        token=None,
        client_id=f"bridge-{uuid.uuid4().hex[:8]}",
    ).start()
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
        first = {d["sample_id"]: d["decision_id"] for d in decisions[:20]}
        assert all(first[d["sample_id"]] == d["decision_id"] for d in decisions[20:25])
        st = httpx.get(f"{server.url}/api/v1/streams/line1", timeout=30).json()
        assert st["samples_received"] == 30  # each sample id stored once
        publisher.loop_stop()
    finally:
        bridge.stop()
        listener.loop_stop()
        server.stop()
