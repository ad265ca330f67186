"""The OPC UA bridge's service side: the journal's parts to the service, until stored.

Parts leave the journal in the order they were read, up to `batch` per request, and only
once the service has stored them or refused their content for good:

* unreachable, 5xx, 503, 429: retried with a growing pause, forever (the client's policy);
* a refused token (401/403) or an unknown stream (404): retried, waiting for an operator;
* refused content (422, 413…): the part is found (a refused batch is sent again part by
  part), set aside in the journal's ``refused`` table and reported; never sent again.

Each new trouble is said once in the log, not at every retry.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from cbeal.bridges.client import Client, NotFoundError, Refused, ServiceError, TokenRefused
from cbeal.bridges.opcua_journal import Journal, Pending

__all__ = ["Sender"]

log = logging.getLogger("cbeal.opcua")


class _Stopped(Exception):
    """The bridge is stopping while parts wait for the service."""


class Sender:
    """Send the parts of `journal` to stream `stream` of the service at `url`.

    `halt` stops it (the parts stay in the journal); `on_stored` is awaited with the
    service's replies to each request's stored parts.

    Examples
    --------
    >>> import tempfile, threading
    >>> journal = Journal(tempfile.mkdtemp() + "/journal.db")
    >>> sender = Sender(journal, stream="line1", url="http://127.0.0.1:9", token=None,
    ...                 halt=threading.Event())
    >>> sender.waiting, sender.stored
    (0, 0)
    """

    def __init__(
        self,
        journal: Journal,
        *,
        stream: str,
        url: str,
        token: str | None,
        halt: threading.Event,
        on_stored: Callable[[list[dict[str, Any]]], Awaitable[None]] | None = None,
        batch: int = 100,
        max_pause: float = 30.0,
    ) -> None:
        self.journal, self.stream, self.halt = journal, stream, halt
        self.on_stored, self.batch, self.max_pause = on_stored, batch, max_pause
        self.api = Client(url, token, retry_for=None, on_retry=self.trouble, sleep=self._sleep)
        self.resent = {p.seq for p in journal.pending(10**9)}  # from a previous run
        self.waiting = len(self.resent)  # parts in the journal, not yet stored
        self.stored = 0  # parts the service stored (or had stored before: duplicates)
        self.refused = 0  # parts whose content the service refused for good
        self.repeated = 0  # parts whose id the service had from another part
        self.retries = 0  # waits for the service
        self.work: asyncio.Event | None = None  # set when parts reach the journal
        self._trouble: str | None = None

    def held(self, n: int) -> None:
        """`n` more parts are in the journal."""
        self.waiting += n
        if self.work is not None:
            self.work.set()

    async def run(self) -> None:
        self.work = asyncio.Event()
        if self.resent:
            log.info("%d part(s) from before the restart wait in the journal", len(self.resent))
        while not self.halt.is_set():  # at a stop, the parts stay in the journal
            self.work.clear()
            parts = await asyncio.to_thread(self.journal.pending, self.batch)
            if not parts:
                try:
                    await asyncio.wait_for(self.work.wait(), timeout=0.5)
                except asyncio.TimeoutError:
                    pass
                continue
            try:
                outcome = await asyncio.to_thread(self._store, parts)
            except _Stopped:
                return
            await self._settle(parts, outcome)

    def _store(self, parts: list[Pending]) -> list[Any]:
        """The service's decision for each part, or the reason it refused the part."""
        body = {"samples": [{"id": p.sample_id, "x": p.x} for p in parts]}
        pause = 1.0
        while True:
            retries = self.retries
            try:
                reply = self.api.call("POST", f"/api/v1/streams/{self.stream}/samples", json=body)
                if self.retries != retries:  # a reply lost in a retry may come back duplicate
                    self.resent.update(p.seq for p in parts)
                return list(reply["decisions"])
            except (Refused, ValueError) as exc:  # ValueError: a part JSON cannot encode
                if len(parts) == 1:
                    return [str(exc)]
                return [self._store([p])[0] for p in parts]  # find the part refused
            except (TokenRefused, NotFoundError) as exc:  # an operator can fix these: wait
                self.trouble(exc, pause)
                self._sleep(pause)
                pause = min(pause * 2.0, self.max_pause)

    async def _settle(self, parts: list[Pending], outcome: list[Any]) -> None:
        if self._trouble is not None:
            log.info("the service took the parts again; going on")
            self._trouble = None
        refused = [(p, r) for p, r in zip(parts, outcome, strict=True) if isinstance(r, str)]
        stored = [(p, r) for p, r in zip(parts, outcome, strict=True) if not isinstance(r, str)]
        await asyncio.to_thread(self.journal.done, [p.seq for p, _ in stored])
        if refused:
            await asyncio.to_thread(self.journal.refuse, refused)
        self.waiting -= len(parts)
        self.refused += len(refused)
        self.stored += len(stored)
        for part, reason in refused:
            log.warning("part %s refused for good, kept in the journal: %s", part.sample_id, reason)
        for part, reply in stored:
            if reply["duplicate"] and part.seq not in self.resent:
                self.repeated += 1
                log.warning(
                    "the service already had a part with id %s, so this one was not counted: "
                    "do the trigger's values repeat (a reset counter)?", part.sample_id,
                )  # fmt: skip
            self.resent.discard(part.seq)
        if stored and self.on_stored is not None:
            await self.on_stored([reply for _, reply in stored])

    def trouble(self, exc: ServiceError, pause: float) -> None:
        self.retries += 1
        text = str(exc)
        if text != self._trouble:  # say each new trouble once
            self._trouble = text
            log.warning("%s; %d part(s) wait in the journal", text, self.waiting)

    def _sleep(self, seconds: float) -> None:
        if self.halt.wait(seconds):
            raise _Stopped
