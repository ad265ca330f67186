"""Streams in a service process: ownership, loading, and the transactions that change them.

A process serves a stream only while it holds the stream's lease (a row in the database,
renewed every second). Every change is applied to the in-memory :class:`Runtime` under its
lock and then committed as events, fenced by the stream's last sequence number: if the
commit fails, the runtime is dropped and rebuilt from the database on next use (the latest
checkpoint plus the events after it), so memory never runs ahead of what was acknowledged.
"""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy import Engine

from cbeal.service.engine.decisions import initial_decision
from cbeal.service.engine.runtime import Runtime
from cbeal.service.schemas.streams import StreamConfig
from cbeal.service.store import checkpoints, events, leases
from cbeal.service.store import streams as rows
from cbeal.service.store.events import LeaseLost, now

__all__ = ["NotFound", "StreamBusy", "Streams"]


class NotFound(LookupError):
    """No such stream or task."""


class StreamBusy(RuntimeError):
    """Another live process owns the stream."""

    def __init__(self, name: str, owner: str, until: float) -> None:
        super().__init__(
            f"stream {name!r} is served by another process ({owner}) until its "
            "lease expires; send its requests there, or retry in a few seconds"
        )
        self.retry_after = max(1, int(until - now()) + 1)


class Streams:
    """The streams this process owns, loaded on first use."""

    def __init__(self, engine: Engine, *, owner: str, lease_seconds: float) -> None:
        self.engine = engine
        self.owner = owner
        self.lease_seconds = lease_seconds
        self._runtimes: dict[str, Runtime] = {}
        self._loading: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    # ------------------------------------------------------------------ creation
    def create(self, config: StreamConfig) -> Runtime:
        """A new stream: its initial model is fitted first, so a bad D0 creates nothing."""
        with self.engine.begin() as conn:
            if rows.stream_exists(conn, config.name):
                raise FileExistsError(f"a stream named {config.name!r} exists already")
        runtime = Runtime(0, config)  # fits D0 (raises on bad data before anything is stored)
        with self.engine.begin() as conn:
            runtime.stream_id = rows.insert_stream(
                conn,
                name=config.name,
                config=config.model_dump(mode="json"),
                owner=self.owner,
                lease_seconds=self.lease_seconds,
            )
            if config.initial is not None:
                _store_initial(conn, runtime)
        with self._guard:
            self._runtimes[config.name] = runtime
        return runtime

    def change(self, name: str, changes: dict[str, Any]) -> Runtime:
        """Change settings that do not touch the model (how many experts answer a part):
        stored with the stream, in its log (a ``settings`` event), and served at once."""
        runtime = self.get(name)
        with runtime.lock:
            config = runtime.config.model_copy(update=changes)
            with self.engine.begin() as conn:
                rows.update_config(conn, runtime.stream_id, changes)
                seq = events.append_events(
                    conn,
                    runtime.stream_id,
                    self.owner,
                    runtime.seq,
                    [("settings", changes)],
                    self.lease_seconds,
                )
            runtime.config, runtime.seq = config, seq
        return runtime

    # ------------------------------------------------------------------ ownership
    def get(self, name: str) -> Runtime:
        """The stream's runtime, taking its lease and rebuilding it if needed."""
        runtime = self._runtimes.get(name)
        if runtime is not None:
            return runtime
        with self._guard:
            lock = self._loading.setdefault(name, threading.Lock())
        with lock:
            runtime = self._runtimes.get(name)
            if runtime is None:
                runtime = self._load(name)
                with self._guard:
                    self._runtimes[name] = runtime
        return runtime

    def names(self) -> list[str]:
        with self.engine.connect() as conn:
            return rows.stream_names(conn)

    def owned(self) -> dict[str, Runtime]:
        with self._guard:
            return dict(self._runtimes)

    def drop(self, name: str, runtime: Runtime) -> None:
        """Forget a runtime whose memory may be ahead of (or behind) the database."""
        with self._guard:
            if self._runtimes.get(name) is runtime:
                del self._runtimes[name]

    def renew(self) -> None:
        """Extend the leases; drop the streams another process took over."""
        owned = self.owned()
        ids = {rt.stream_id: name for name, rt in owned.items()}
        with self.engine.begin() as conn:
            kept = leases.renew_leases(conn, self.owner, list(ids), self.lease_seconds)
        for sid, name in ids.items():
            if sid not in kept:
                self.drop(name, owned[name])

    def release(self) -> None:
        with self.engine.begin() as conn:
            leases.release_leases(conn, self.owner)
        with self._guard:
            self._runtimes.clear()

    # ------------------------------------------------------------------ loading
    def _load(self, name: str) -> Runtime:
        with self.engine.begin() as conn:
            row = rows.stream_row(conn, name)
            if row is None:
                raise NotFound(f"no stream named {name!r}; create it with POST /api/v1/streams")
            got = leases.acquire_lease(conn, name, self.owner, self.lease_seconds)
            if got is None and leases.owner_is_dead(row.owner):
                got = leases.take_over(conn, name, row.owner, self.owner, self.lease_seconds)
        if got is None:
            raise StreamBusy(name, row.owner, row.lease_until)
        config = StreamConfig.model_validate(got.config)
        with self.engine.connect() as conn:
            ckpt = checkpoints.latest_checkpoint(conn, got.id)
            log = events.read_events(conn, got.id, ckpt.seq if ckpt else 0)
            stored = rows.decisions_after(conn, got.id, ckpt.seq if ckpt else 0)
        if ckpt is not None:
            from cbeal.models import CbeAL

            runtime = Runtime(got.id, config.model_copy(update={"initial": None}))
            runtime.model = CbeAL.from_bytes(ckpt.model)
            runtime.seq = ckpt.seq
        else:
            runtime = Runtime(got.id, config)
        replay(runtime, log, stored)
        if runtime.seq != got.last_seq:
            raise LeaseLost(
                f"stream {name!r}: the log ends at {runtime.seq}, the stream "
                f"row says {got.last_seq}"
            )
        return runtime


def _store_initial(conn: Any, runtime: Runtime) -> None:
    """Keep D0 with the samples (seq 0, not asked, labelled)."""
    init = runtime.config.initial
    assert init is not None
    ids = init.ids or [f"initial-{i}" for i in range(len(init.x))]
    decision = initial_decision()
    rows.insert_initial(
        conn, runtime.stream_id, ids, [runtime.row(x) for x in init.x], list(init.y), decision
    )


class ReplayMismatch(RuntimeError):
    """A replayed decision differs from the one stored: the model is not deterministic."""


def replay(runtime: Runtime, log: list[Any], stored: dict[str, Any]) -> None:
    """Apply logged events to `runtime`; a batch of samples is decided as one batch again."""
    i = 0
    while i < len(log):
        ev = log[i]
        if ev.kind == "sample":
            batch = [ev]
            while (
                i + len(batch) < len(log)
                and log[i + len(batch)].kind == "sample"
                and log[i + len(batch)].payload["batch"] == ev.payload["batch"]
            ):
                batch.append(log[i + len(batch)])
            decisions = runtime.decide([e.payload["x"] for e in batch], ev.seq)
            for e, d in zip(batch, decisions, strict=True):
                row = stored.get(e.payload["sample_id"])
                if row is not None and (row.acquire != d["acquire"] or row.decision_id != d["id"]):
                    raise ReplayMismatch(
                        f"event {e.seq}: replayed decision {d['id']} "
                        f"({d['acquire']}) differs from {row.decision_id}"
                    )
            i += len(batch)
            runtime.seq = batch[-1].seq
            continue
        p = ev.payload
        if ev.kind == "label":
            runtime.learn(p["decision_id"], p["label"])
        elif ev.kind == "start":
            runtime.start()
        elif ev.kind == "cancel":
            runtime.cancel(p["decision_id"], p["refund"])
        elif ev.kind == "refit":
            runtime.refit(p["upto"])
        runtime.seq = ev.seq
        i += 1
