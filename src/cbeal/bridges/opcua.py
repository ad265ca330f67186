"""The OPC UA bridge: each new part on a line's OPC UA server becomes a sample of a stream.

A part is announced by a new value of the *trigger* node (a part id or part counter),
which becomes the sample id; the *feature* nodes, read with it, are the sample. The
bridge subscribes to the trigger (no polling), sends each part to the service and writes
the decision — whether to send the part to the lab — to the *decision* node, if one is
given (and the part's id to the *decision part* node, so the PLC knows which part the
decision is for).

**Exactly once, by stored ids.** Each part read is written to the bridge's journal
(:mod:`cbeal.bridges.opcua_journal`, synced to disk) before it is sent, and leaves it
only once the service has stored it or refused its content for good:

* the service is down, restarting or answers 5xx/503: the parts wait in the journal and
  are sent, in order, when it is back; the line goes on being read meanwhile;
* the service refuses the token (401/403) or does not know the stream (404): the parts
  wait for an operator to fix it, and the log says so;
* the service refuses a part's content (422, 413…): it is reported, set aside in the
  journal's ``refused`` table and not sent again;
* a feature read as NaN or ±inf is a missing value: sent as null (the service imputes
  it), and the log names the part and the node;
* the bridge is killed: at restart the journal's parts are sent again, and the service,
  idempotent by sample id, answers those it already stored with their stored decision
  (``duplicate``), so no part is counted twice. The parts that went by while the
  bridge was away are read from the server's history (OPC UA Historical Access) when
  the server keeps it for the trigger and feature nodes; otherwise the log says how many
  were lost (a part counter shows the gap). See docs/OPCUA.md for the limits.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cbeal.bridges.opcua_journal import Cursor, Journal
from cbeal.bridges.opcua_nodes import (
    Nodes,
    Part,
    as_variant,
    check_nodes,
    history_available,
    read_history,
    read_live,
    sample_id,
    stamp_of,
)
from cbeal.bridges.opcua_security import Security
from cbeal.bridges.opcua_sender import Sender
from cbeal.core import ParameterError

__all__ = ["Bridge", "Security"]

log = logging.getLogger("cbeal.opcua")


class _Lost(ConnectionError):
    """The OPC UA connection is gone."""


class Bridge:
    """Bridge the OPC UA server at `endpoint` into stream `stream` of the service at `url`.

    `trigger`, `features` (in the stream's feature order), `decision` and
    `decision_part` are node ids (``ns=2;s=Line1.PartId``). `journal` is the bridge's
    SQLite file (one per bridge: it holds the unsent parts and where the bridge was).
    `publishing_ms` and `sampling_ms` are asked of the server for the subscription (it
    may revise them); `max_pause` caps the growing pause between reconnections;
    `durable` syncs the journal to disk (a part read survives a power cut).

    Examples
    --------
    >>> import tempfile
    >>> bridge = Bridge(
    ...     endpoint="opc.tcp://press3-plc:4840", stream="press3",
    ...     trigger="ns=3;s=Press3.PartCounter",
    ...     features=["ns=3;s=Press3.PeakForce", "ns=3;s=Press3.DieTemp"],
    ...     decision="ns=3;s=Press3.ToLab", url="http://127.0.0.1:8000", token=None,
    ...     journal=tempfile.mkdtemp() + "/press3.db")
    >>> [n.to_string() for n in bridge.nodes.features]
    ['ns=3;s=Press3.PeakForce', 'ns=3;s=Press3.DieTemp']
    >>> bridge.stop()  # never started: closes the journal
    >>> Bridge(endpoint="press3-plc:4840", stream="press3", trigger="ns=3;i=7",
    ...        features=["ns=3;i=8"], url="http://127.0.0.1:8000", token=None, journal="j.db")
    Traceback (most recent call last):
    ...
    cbeal.core.exceptions.ParameterError: `endpoint` 'press3-plc:4840' must look like opc.tcp://HOST:PORT
    """

    def __init__(
        self,
        *,
        endpoint: str,
        stream: str,
        trigger: str,
        features: list[str],
        url: str,
        token: str | None,
        journal: str | Path,
        decision: str | None = None,
        decision_part: str | None = None,
        security: Security | None = None,
        publishing_ms: float = 10.0,
        sampling_ms: float = 0.0,
        batch: int = 100,
        max_pause: float = 30.0,
        durable: bool = True,
    ) -> None:
        if not endpoint.startswith("opc.tcp://"):
            raise ParameterError(f"`endpoint` {endpoint!r} must look like opc.tcp://HOST:PORT")
        self.nodes = Nodes.parse(trigger, features, decision, decision_part)
        self.endpoint, self.stream = endpoint, stream
        self.security = security or Security()
        self.publishing_ms, self.sampling_ms = publishing_ms, sampling_ms
        self.batch, self.max_pause = batch, max_pause
        self.journal = Journal(journal, durable=durable)
        self._halt = threading.Event()
        self.sender = Sender(
            self.journal, stream=stream, url=url, token=token, halt=self._halt,
            on_stored=self._decided, batch=batch, max_pause=max_pause,
        )  # fmt: skip
        # counts, for the log and the tests (the service's side: `sender`)
        self.read = 0  # parts read live and journaled
        self.recovered = 0  # parts read from the server's history
        self.lost = 0  # parts known to have gone by unread
        self.nonfinite = 0  # parts with a feature read as NaN or ±inf (sent as missing)
        self.written = 0  # decisions written to the decision node
        self.ready = threading.Event()  # subscribed and caught up (set again at each connect)
        self.error: BaseException | None = None
        self._client: Any = None
        self._kinds: tuple[Any, Any] = (None, None)  # the decision nodes' variant types
        self._current: str | None = None  # the newest part seen on the line
        self._cursor = self.journal.cursor()  # the last part read
        # the ids read or lost lately: a notification for one of them is not a new part
        self._order: deque[str] = deque(maxlen=10_000)
        self._seen: set[str] = set()
        if self._cursor is not None:
            self._remember(self._cursor.sample_id)
        self._said_at, self._unsaid = -1e9, 0  # lost parts not yet in the log
        self._trouble: dict[str, str | None] = {"opcua": None, "write": None}
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._read: asyncio.Event | None = None  # parts read for the journal writer
        self._inbox: list[tuple[Cursor, bool]] = []  # read, not yet in the journal

    @property
    def stored(self) -> int:
        """Parts the service stored (a part it had stored before counts once more)."""
        return self.sender.stored

    @property
    def refused(self) -> int:
        """Parts whose content the service refused for good."""
        return self.sender.refused

    @property
    def repeated(self) -> int:
        """Parts whose id the service had from another part (not counted)."""
        return self.sender.repeated

    @property
    def retries(self) -> int:
        """Waits for the service."""
        return self.sender.retries

    @property
    def waiting(self) -> int:
        """Parts in the journal, not yet stored."""
        return self.sender.waiting

    # ------------------------------------------------------------------ the line side
    async def _connect(self) -> Any:
        from asyncua import Client as UaClient

        client = UaClient(self.endpoint, timeout=10)
        client.name = client.description = f"cbeal bridge for stream {self.stream}"
        await self.security.apply(client)
        await client.connect()
        return client

    async def _line(self) -> None:
        """Connect, read parts until the connection is lost, reconnect with a growing pause."""
        pause = 1.0
        while not self._halt.is_set():
            try:
                client = await self._connect()
            except ParameterError:
                raise
            except Exception as exc:  # the server is down, refuses us, a network error
                self._say("opcua", f"cannot connect to {self.endpoint}: {_why(exc)}", pause)
                await self._nap(pause)
                pause = min(pause * 2.0, self.max_pause)
                continue
            try:
                await self._session(client)
                pause = 1.0
            except ParameterError:
                raise
            except Exception as exc:
                self.ready.clear()
                self._say("opcua", f"lost the connection to {self.endpoint}: {_why(exc)}", pause)
                await self._nap(pause)
            finally:
                self._client = None
                await _quietly(client.disconnect())

    async def _session(self, client: Any) -> None:
        from asyncua.common.subscription import (
            DataChangeEvent,
            OverflowPolicy,
            StatusChangeEvent,
        )

        self._kinds = await check_nodes(client, self.nodes, self.endpoint)
        history = await history_available(client, self.nodes)
        # a full queue forces a reconnection, whose catch-up reads the history
        sub = await client.create_subscription(
            self.publishing_ms, None, queue_maxsize=100_000, overflow=OverflowPolicy.DISCONNECT
        )
        await sub.subscribe_data_change(
            client.get_node(self.nodes.trigger), queuesize=1000, sampling_interval=self.sampling_ms
        )
        first = await sub.next_event(timeout=30)
        if not isinstance(first, DataChangeEvent):
            raise _Lost("the server sent no value of the trigger node")
        self._client = client
        self._trouble["opcua"] = None
        log.info(
            "connected to %s (%s); subscribed to the trigger %s; the server %s history",
            self.endpoint, self.security.describe(), self.nodes.trigger.to_string(),
            "keeps" if history else "keeps no",
        )  # fmt: skip
        await self._catch_up(client, first, history)
        self.ready.set()
        while not self._halt.is_set():
            event = await sub.next_event(timeout=0.5)
            if event is None:
                if client.uaclient.state.value != "connected":
                    raise _Lost(f"the client is {client.uaclient.state.value}")
            elif isinstance(event, StatusChangeEvent):
                status = event.notification.Status
                if not status.is_good():
                    raise _Lost(f"the subscription ended ({status.name})")
            elif isinstance(event, DataChangeEvent):
                await self._on_trigger(client, event, history)

    async def _catch_up(self, client: Any, first: Any, history: bool) -> None:
        """At (re)connection: the parts since the cursor, then the current one."""
        cursor, sid = self._cursor, sample_id(first.value)
        if cursor is None:  # the first start: the parts from now on (the current one is old)
            now = await read_live(client, self.nodes)
            start = sample_id(now.value) or ""
            self._note(Cursor(start, now.stamp, now.x), hold=False)
            self._remember(start)
            log.info("first start: the parts after %s will be read", start or "now")
            return
        if cursor is not None and sid is not None and sid != cursor.sample_id:
            if history and cursor.stamp is not None:
                found = await self._recover(client, _until(first.data.monitored_item.Value))
                log.info("read %d part(s) that went by while away from the server's history", found)
        await self._on_trigger(client, first, history, when="while the bridge was away")

    async def _on_trigger(
        self, client: Any, event: Any, history: bool, when: str = "between two notifications"
    ) -> None:
        cursor, sid = self._cursor, sample_id(event.value)
        stamp = stamp_of(event.data.monitored_item.Value)
        if sid is None or sid in self._seen:
            return  # no part, or a part read already (live or from the history)
        if _covered(cursor, sid, stamp):  # older than a part read live: overwritten unread
            self._lose(sid, None)
            return
        now = await read_live(client, self.nodes)
        newest = sample_id(now.value)
        self._current = newest or sid
        whole = newest == sid  # else the next part overwrote this one while it was read
        recoverable = history and cursor is not None and cursor.stamp is not None
        skipped = cursor is not None and _skipped(cursor.sample_id, sid)
        if recoverable and (skipped or not whole):
            # every part since the cursor, up to the newest, is in the history
            await self._recover(client, _until(event.data.monitored_item.Value, now.stamp))
            if sid in self._seen:
                return
        elif whole and cursor is not None and skipped:
            n = int(sid) - int(cursor.sample_id) - 1
            self.lost += n
            log.warning(
                "%d part(s) between %s and %s went by %s and are lost: the server keeps no "
                "history of the trigger and feature nodes", n, cursor.sample_id, sid, when,
            )  # fmt: skip
        if whole:
            self._hold(Part(sid, now.stamp, now.x, now.nonfinite))
            self.read += 1
            return
        self._lose(sid, newest)
        if newest is not None and newest not in self._seen:  # read whole: take it now
            self._hold(Part(newest, now.stamp, now.x, now.nonfinite))
            self.read += 1

    def _lose(self, sid: str, by: str | None) -> None:
        """Part `sid` was overwritten before it could be read (said once per 10 s)."""
        self.lost += 1
        self._remember(sid)
        self._unsaid += 1
        moment = time.monotonic()
        if moment - self._said_at >= 10.0:
            log.warning(
                "%d part(s) overwritten by the next ones before their features could be "
                "read, lost (the last: %s%s); a line this fast needs a server that keeps the "
                "history of the nodes, read by the bridge instead",
                self._unsaid, sid, f", overwritten by {by}" if by else "",
            )  # fmt: skip
            self._said_at, self._unsaid = moment, 0

    def _remember(self, sid: str) -> None:
        if len(self._order) == self._order.maxlen:
            self._seen.discard(self._order[0])
        self._order.append(sid)
        self._seen.add(sid)

    async def _recover(self, client: Any, until: datetime) -> int:
        """Hold the parts after the cursor, up to `until`, read from the server's history."""
        cursor = self._cursor
        assert cursor is not None and cursor.stamp is not None
        parts = await read_history(client, self.nodes, cursor.stamp, until, cursor.x)
        fresh = [p for p in parts if p.sample_id not in self._seen]
        for part in fresh:
            self._hold(part)
        self.recovered += len(fresh)
        return len(fresh)

    def _hold(self, part: Part) -> None:
        if part.nonfinite:
            nodes = ", ".join(self.nodes.features[j].to_string() for j in part.nonfinite)
            log.warning(
                "part %s: %s read NaN or ±inf; sent as a missing value (null), which the "
                "service imputes", part.sample_id, nodes,
            )  # fmt: skip
            self.nonfinite += 1
        self._remember(part.sample_id)
        self._note(Cursor(part.sample_id, part.stamp, part.x), hold=True)

    def _note(self, part: Cursor, *, hold: bool) -> None:
        """A part read (`hold`) or lost: the journal writer records it, in order."""
        self._cursor = part
        self._inbox.append((part, hold))
        if self._read is not None:
            self._read.set()

    async def _writer(self) -> None:
        """Write the parts read to the journal, those read meanwhile in one transaction
        (the line is read on while the disk syncs)."""
        assert self._read is not None
        while True:
            if not self._inbox:
                if self._halt.is_set():
                    return
                self._read.clear()
                await _wait(self._read, 0.5)
                continue
            parts, self._inbox = self._inbox, []
            self.sender.held(await asyncio.to_thread(self.journal.add_many, parts))

    # ------------------------------------------------------------------ the decision
    async def _decided(self, replies: list[dict[str, Any]]) -> None:
        """Write the decision of the part still at the station, if it is among `replies`."""
        mine = [r for r in replies if r["sample_id"] == self._current]
        if mine and self.nodes.decision is not None:
            await self._write(mine[-1])

    async def _write(self, reply: dict[str, Any]) -> None:
        """Write the decision on the part still at the station (a later one would mislead)."""
        client = self._client
        if client is None:
            return
        nodes = [client.get_node(self.nodes.decision)]
        decision, part = self._kinds
        try:
            values = [as_variant(decision, bool(reply["acquire"]))]
            if self.nodes.decision_part is not None:  # written second: the PLC waits for it
                nodes.append(client.get_node(self.nodes.decision_part))
                values.append(as_variant(part, reply["sample_id"]))
            await client.write_values(nodes, values)
        except Exception as exc:
            if self._trouble["write"] != str(exc):
                self._trouble["write"] = str(exc)
                log.warning(
                    "cannot write the decision of part %s: %s", reply["sample_id"], _why(exc)
                )
            return
        self._trouble["write"] = None
        self.written += 1

    # ------------------------------------------------------------------ running
    def _say(self, kind: str, text: str, pause: float) -> None:
        if text != self._trouble[kind]:
            self._trouble[kind] = text
            log.warning("%s; trying again in %.0f s and then with growing pauses", text, pause)

    async def _nap(self, seconds: float) -> None:
        deadline = asyncio.get_running_loop().time() + seconds
        while not self._halt.is_set() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.1)

    async def run(self) -> None:
        """Bridge until :meth:`stop`; raises a :class:`ParameterError` on a bad node id."""
        self._loop = asyncio.get_running_loop()
        self._read = asyncio.Event()
        sender = asyncio.create_task(self.sender.run())
        writer = asyncio.create_task(self._writer())
        try:
            await self._line()
        finally:
            self._halt.set()
            await writer  # the parts read so far go to the journal
            await sender

    def start(self) -> Bridge:
        """Run in a background thread (:meth:`stop` ends it); errors land in ``error``."""

        def main() -> None:
            try:
                asyncio.run(self.run())
            except BaseException as exc:
                self.error = exc
                log.error("the OPC UA bridge stopped: %s", exc)

        self._thread = threading.Thread(target=main, name="cbeal-opcua", daemon=True)
        self._thread.start()
        return self

    def run_forever(self) -> None:
        """Run in this thread until SIGINT or SIGTERM, then stop cleanly; a bad node id raises."""
        import signal

        async def main() -> None:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, self._halt.set)
            await self.run()

        try:
            asyncio.run(main())
        finally:
            self.journal.close()

    def stop(self) -> None:
        """Stop; parts not yet stored stay in the journal for the next start."""
        self._halt.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.journal.close()


def _skipped(last: str, new: str) -> bool:
    """Whether a part counter jumped over parts from `last` to `new`."""
    return last.isdigit() and new.isdigit() and int(new) > int(last) + 1


async def _wait(event: asyncio.Event, seconds: float) -> None:
    try:
        await asyncio.wait_for(event.wait(), timeout=seconds)
    except asyncio.TimeoutError:
        pass


def _covered(cursor: Cursor | None, sid: str, stamp: float | None) -> bool:
    """Whether the part `sid` changed the trigger at or before the cursor (it was read)."""
    if cursor is None:
        return False
    if sid == cursor.sample_id:
        return True
    return stamp is not None and cursor.stamp is not None and stamp <= cursor.stamp


def _until(dv: Any, newest: float | None = None) -> datetime:
    """The end of a history read: a second after the newest trigger time known (every
    part in the history is a real part, so reading a little further loses nothing)."""
    if newest is None:
        newest = stamp_of(dv)
    if newest is None:
        return datetime.now(timezone.utc)
    return datetime.fromtimestamp(newest + 1.0, timezone.utc)


def _why(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."


async def _quietly(coro: Any) -> None:
    try:
        await asyncio.wait_for(coro, timeout=5)
    except Exception:
        pass
