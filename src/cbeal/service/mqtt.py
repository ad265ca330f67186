"""The MQTT bridge: samples from a topic into a stream, decisions back to a reply topic.

A message is one sample ``{"id": "...", "x": {...}}`` or several ``{"samples": [...]}``.
The bridge posts it to the service (idempotent by sample id) and publishes one reply per
sample, ``{"sample_id", "acquire", "task_id", "prediction", ...}``. Messages are received
with QoS 1 and acknowledged to the broker only after the service stored the samples, so a
bridge that dies mid-way gets them again from the broker (a persistent session) — and the
service answers a repeated sample with its stored decision (``"duplicate": true``).
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from cbeal.service.client import Client

__all__ = ["Bridge"]

log = logging.getLogger("cbeal.mqtt")


class Bridge:
    """Subscribe to `topic` on `broker` (host:port) and feed stream `stream` at `url`."""

    def __init__(
        self,
        *,
        broker: str,
        topic: str,
        reply_topic: str,
        stream: str,
        url: str,
        token: str | None,
        client_id: str | None = None,
    ) -> None:
        import paho.mqtt.client as mqtt

        host, _, port = broker.partition(":")
        self.host, self.port = host or "127.0.0.1", int(port or 1883)
        self.topic, self.reply_topic, self.stream = topic, reply_topic, stream
        self.api = Client(url, token)
        self.client_id = client_id or f"cbeal-bridge-{stream}"
        self.mqtt = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            clean_session=False,
            manual_ack=True,
        )
        self.mqtt.on_connect = self._on_connect
        self.mqtt.on_message = self._on_message
        self.handled = 0
        self.errors = 0
        self.ready = threading.Event()

    def _on_connect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None
    ) -> None:
        client.subscribe(self.topic, qos=1)
        self.ready.set()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        try:
            body = json.loads(message.payload)
            items = body["samples"] if isinstance(body, dict) and "samples" in body else [body]
            reply = self.api.call(
                "POST", f"/api/v1/streams/{self.stream}/samples", json={"samples": items}
            )
        except Exception as exc:  # a malformed message is reported, acknowledged, dropped
            self.errors += 1
            log.warning("MQTT message on %s refused: %s", message.topic, exc)
            client.publish(self.reply_topic, json.dumps({"error": str(exc)[:500]}), qos=1)
            client.ack(message.mid, message.qos)
            return
        for decision in reply["decisions"]:
            client.publish(self.reply_topic, json.dumps(decision), qos=1)
        client.ack(message.mid, message.qos)  # only now may the broker forget it
        self.handled += len(items)

    def start(self) -> Bridge:
        """Connect and serve in a background thread (``stop`` ends it)."""
        self.mqtt.connect(self.host, self.port, keepalive=30)
        self.mqtt.loop_start()
        return self

    def run_forever(self) -> None:
        self.mqtt.connect(self.host, self.port, keepalive=30)
        self.mqtt.loop_forever()

    def stop(self) -> None:
        self.mqtt.loop_stop()
        self.mqtt.disconnect()
