"""The MQTT bridge: samples from a topic into a stream, decisions back to a reply topic.

A message is one sample ``{"id": "...", "x": {...}}`` or several ``{"samples": [...]}``.
The bridge posts it to the service (idempotent by sample id) and publishes one reply per
sample, ``{"sample_id", "acquire", "task_id", "explanation", "decision": {...}}``.

**Nothing acknowledged is ever lost.** Messages are received with QoS 1 in a persistent
session and acknowledged to the broker only once the service has stored their samples,
or refused their content for good:

* the service is down, restarting or answers 5xx/503: the message is retried, with a
  growing pause, until it is stored (messages behind it wait, in order);
* the service refuses the token (401/403) or does not know the stream (404): the bridge
  waits for an operator to fix it, retrying, and says so in the log; nothing is dropped;
* the message is not standard JSON in UTF-8 (``NaN``, ``Infinity``, a number out of a
  float's range such as ``1e400``, a lone surrogate such as ``"\\ud800"``, invalid
  UTF-8), has the wrong shape or the service refuses its content (422, 413, …): an
  ``{"error": ...}`` reply is published and the message is acknowledged — sending it
  again could never succeed.

If the bridge dies meanwhile, the broker still holds every unacknowledged message and
delivers it again when the bridge reconnects with the same client id; the service answers
a repeated sample with its stored decision (``"duplicate": true``).
"""

from __future__ import annotations

import json
import logging
import math
import queue
import threading
import time
from typing import Any

from cbeal.bridges.client import (
    Client,
    NotFoundError,
    Refused,
    ServiceError,
    TokenRefused,
)

__all__ = ["Bridge"]

log = logging.getLogger("cbeal.mqtt")


class _Stopped(Exception):
    """The bridge is stopping while a message waits for the service."""


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON: send null for a missing value")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of a float's range: send null for a missing value")
    return value


def samples_of(payload: bytes) -> list[Any]:
    """The samples of an MQTT message: standard JSON in UTF-8, one sample object or
    ``{"samples": [...]}``; :class:`ValueError` (or :class:`KeyError`) saying why not.

    >>> samples_of(b'{"id": "p1", "x": [1.5, null]}')
    [{'id': 'p1', 'x': [1.5, None]}]
    >>> samples_of(b'{"id": "p1", "x": [NaN]}')
    Traceback (most recent call last):
    ...
    ValueError: NaN is not JSON: send null for a missing value
    """
    text = payload.decode("utf-8")  # UnicodeDecodeError is a ValueError
    body = json.loads(text, parse_constant=_constant, parse_float=_finite)
    if not isinstance(body, dict):
        raise ValueError("a message must be a JSON object")
    items = body["samples"] if "samples" in body else [body]
    if not isinstance(items, list):
        raise ValueError("'samples' must be a list")
    try:  # what the service is sent must encode: a lone surrogate ("\ud800") does not
        json.dumps(items, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text may not hold a lone UTF-16 surrogate (such as \\ud800)") from None
    return items


class Bridge:
    """Subscribe to `topic` on `broker` (host:port) and feed stream `stream` at `url`.

    Messages are handled one at a time, in arrival order, by a worker thread, so that the
    network loop keeps the broker connection alive while the service is away.
    """

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
        max_pause: float = 30.0,
    ) -> None:
        import paho.mqtt.client as mqtt

        host, _, port = broker.partition(":")
        self.host, self.port = host or "127.0.0.1", int(port or 1883)
        self.topic, self.reply_topic, self.stream = topic, reply_topic, stream
        self.max_pause = max_pause
        self._stop = threading.Event()
        self.api = Client(url, token, retry_for=None, on_retry=self._waiting, sleep=self._sleep)
        self.client_id = client_id or f"cbeal-bridge-{stream}"
        self.mqtt = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            clean_session=False,
            manual_ack=True,
        )
        self.mqtt.on_connect = self._on_connect
        self.mqtt.on_subscribe = self._on_subscribe
        self.mqtt.on_message = self._on_message
        self.handled = 0  # samples stored and answered
        self.errors = 0  # messages refused for their content (acknowledged, dropped)
        self.retries = 0  # waits for the service
        self.ready = threading.Event()
        self._generation = 0  # bumped on every (re)connect: acks belong to a session
        self._inbox: queue.Queue[tuple[int, Any]] = queue.Queue()
        self._worker = threading.Thread(target=self._work, name="cbeal-mqtt-worker", daemon=True)
        self._trouble: str | None = None
        self.failed = False  # the worker stopped on an unexpected error (logged)

    # ------------------------------------------------------------------ MQTT callbacks
    def _on_connect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None
    ) -> None:
        self._generation += 1
        client.subscribe(self.topic, qos=1)
        log.info("connected to %s:%s as %s", self.host, self.port, self.client_id)

    def _on_subscribe(
        self, client: Any, userdata: Any, mid: Any, reason_codes: Any, properties: Any = None
    ) -> None:
        # from now on the broker keeps this topic's messages for the session, even while
        # the bridge is away
        log.info("subscribed to %s (QoS 1, persistent session)", self.topic)
        self.ready.set()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self._inbox.put((self._generation, message))

    # ------------------------------------------------------------------ the worker
    def _sleep(self, seconds: float) -> None:
        if self._stop.wait(seconds):
            raise _Stopped

    def _waiting(self, exc: ServiceError, pause: float) -> None:
        self.retries += 1
        text = str(exc)
        if text != self._trouble:  # say each new trouble once, not at every retry
            self._trouble = text
            log.warning("%s; holding the message and %d behind it", text, self._inbox.qsize())

    def _work(self) -> None:
        while not self._stop.is_set():
            try:
                generation, message = self._inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            try:
                self._handle(generation, message)
            except _Stopped:
                return  # unacknowledged: the broker delivers it again after a restart
            except Exception:  # a fault of the bridge, not of the message: stop, say so
                log.exception("the bridge failed on a message, left with the broker; stopping")
                self.failed = True
                return

    def _handle(self, generation: int, message: Any) -> None:
        try:
            items = samples_of(message.payload)
        except (ValueError, KeyError) as exc:
            self._drop(generation, message, f"not a sample message: {exc}")
            return
        try:
            reply = self._store(items)
        except Refused as exc:
            self._drop(generation, message, str(exc))
            return
        if self._trouble is not None:
            log.info("the service took the message again; going on")
            self._trouble = None
        for decision in reply["decisions"]:
            self.mqtt.publish(self.reply_topic, json.dumps(decision), qos=1)
        self._ack(generation, message)
        self.handled += len(items)

    def _store(self, items: list[Any]) -> Any:
        pause = 1.0
        while True:
            try:
                return self.api.call(
                    "POST", f"/api/v1/streams/{self.stream}/samples", json={"samples": items}
                )
            except (TokenRefused, NotFoundError) as exc:
                # an operator can fix these (a new token, the stream created): wait for it
                self._waiting(exc, pause)
                self._sleep(pause)
                pause = min(pause * 2.0, self.max_pause)

    def _drop(self, generation: int, message: Any, why: str) -> None:
        self.errors += 1
        log.warning("MQTT message on %s refused for good: %s", message.topic, why)
        self.mqtt.publish(self.reply_topic, json.dumps({"error": why[:500]}), qos=1)
        self._ack(generation, message)

    def _ack(self, generation: int, message: Any) -> None:
        # A message received before a reconnect is delivered again in the new session,
        # under the same packet id: acknowledging the old copy could acknowledge another.
        if generation == self._generation:
            self.mqtt.ack(message.mid, message.qos)

    # ------------------------------------------------------------------ running
    def start(self) -> Bridge:
        """Connect and serve in background threads (``stop`` ends them)."""
        self.mqtt.connect(self.host, self.port, keepalive=30)
        self.mqtt.loop_start()
        self._worker.start()
        return self

    def run_forever(self) -> None:
        """Serve until interrupted (Ctrl-C), then stop cleanly."""
        self.start()
        try:
            while self._worker.is_alive():
                time.sleep(0.5)
        finally:
            self.stop()

    def stop(self) -> None:
        """Stop; messages not yet stored stay with the broker for the next start."""
        self._stop.set()
        if self._worker.is_alive():
            self._worker.join(timeout=10)
        self.mqtt.loop_stop()
        self.mqtt.disconnect()
