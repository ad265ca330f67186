"""Work off the request path: leases, labels due, expired tasks, retrains, checkpoints,
retention (engine.archive) and trimming the C heap (engine.heap).

Retraining runs in a worker thread, one job per stream at a time: labels arriving during a
retrain only mark the stream as wanting another one (triggers coalesce), and ingest keeps
deciding with the serving model meanwhile. The new fit is swapped in with a ``refit``
event, so a replay swaps it in at the same point of the stream.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cbeal.core import ParameterError
from cbeal.service.engine import heap
from cbeal.service.engine.runtime import Runtime
from cbeal.service.engine.streams import Streams
from cbeal.service.engine.tasks import TaskOps
from cbeal.service.store import checkpoints, events
from cbeal.service.store.db import outage

__all__ = ["Background"]

log = logging.getLogger("cbeal.service")


class Background:
    """The service process's background loop (a daemon thread) and its retrain worker."""

    def __init__(
        self,
        streams: Streams,
        tasks: TaskOps,
        *,
        checkpoint_every: int,
        retrain: str,
        trim_seconds: float,
        interval: float = 0.25,  # how often the loop wakes: not a setting, its pace
    ) -> None:
        self.streams = streams
        self.tasks = tasks
        self.checkpoint_every = checkpoint_every
        self.interval = interval
        self.retrain = retrain
        self.trim_seconds = trim_seconds
        self.training: dict[str, int] = {}  # stream -> version being trained
        self.last_retrain: dict[str, float] = {}
        self._checkpointed: dict[str, int] = {}
        self._stop = threading.Event()
        self.archiver: Any = None  # engine.archive.Archiver, with --retain
        self.on_refit: Any = None  # called with each background retrain's seconds (metrics)

    def start(self) -> None:
        """Start the loop (again after :meth:`stop`: an app may be started several times)."""
        self._stop = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cbeal-retrain")
        self._thread = threading.Thread(target=self._loop, name="cbeal-background", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self._pool.shutdown(wait=True, cancel_futures=True)
        self.checkpoint_all(force=True)

    def _loop(self) -> None:
        renewed = trimmed = time.monotonic()
        while not self._stop.wait(self.interval):
            try:
                if time.monotonic() - renewed >= 1.0:
                    self.streams.renew()
                    renewed = time.monotonic()
                if self.trim_seconds > 0 and time.monotonic() - trimmed >= self.trim_seconds:
                    heap.trim()  # the allocator's free pages back to the system
                    trimmed = time.monotonic()
                self.tasks.learn_due()
                self.tasks.expire()
                if self.retrain == "background":
                    self.schedule_retrains()
                self.checkpoint_all()
                if self.archiver is not None:
                    self.archiver.tick()
            except Exception as exc:  # keep serving; the next tick retries
                found = outage(exc)
                if found is not None:  # the database is away: one line, not a traceback
                    log.warning("background step waits for the database: %s", found)
                else:
                    log.exception("background step failed")

    # ------------------------------------------------------------------ retraining
    def schedule_retrains(self) -> None:
        for name, runtime in self.streams.owned().items():
            if name not in self.training and runtime.needs_refit():
                self.training[name] = int(runtime.fitted.learner_version) + 1
                self._pool.submit(self._retrain, name, runtime)

    def _retrain(self, name: str, runtime: Runtime) -> None:
        try:
            began = time.perf_counter()
            learner = runtime.fitted.train_learner()  # off the lock: ingest goes on
            if self.on_refit is not None:
                self.on_refit(time.perf_counter() - began)
            with runtime.lock:
                self.swap(name, runtime, learner)
        except Exception as exc:
            found = outage(exc)
            if found is not None:  # retried at the next tick
                log.warning("retraining stream %s waits for the database: %s", name, found)
            else:
                log.exception("retraining stream %s failed", name)
        finally:
            self.training.pop(name, None)

    def refit_now(self, name: str, runtime: Runtime) -> None:
        """Retrain on the request path (``retrain="sync"``: every run is reproducible)."""
        if runtime.needs_refit():
            with runtime.lock:
                self.swap(name, runtime, runtime.fitted.train_learner())

    def swap(self, name: str, runtime: Runtime, learner: Any) -> None:
        """Serve `learner` and log the refit (hold ``runtime.lock``)."""
        if self.streams.owned().get(name) is not runtime:
            return
        try:
            runtime.fitted.use_learner(learner)
        except ParameterError:
            return  # another refit came first; the next tick retries
        try:
            with self.streams.engine.begin() as conn:
                runtime.seq = events.append_events(
                    conn,
                    runtime.stream_id,
                    self.streams.owner,
                    runtime.seq,
                    [("refit", {"upto": learner.n_trained, "version": learner.version})],
                    self.streams.lease_seconds,
                )
        except BaseException:
            self.streams.drop(name, runtime)
            raise
        self.last_retrain[name] = events.now()

    # ------------------------------------------------------------------ checkpoints
    def checkpoint_all(self, force: bool = False) -> None:
        for name, runtime in self.streams.owned().items():
            last = self._checkpointed.setdefault(name, runtime.seq)
            if runtime.model is None or runtime.seq == last:
                continue
            if force or runtime.seq - last >= self.checkpoint_every:
                self.checkpoint(name, runtime)

    def checkpoint(self, name: str, runtime: Runtime) -> None:
        with runtime.lock:
            if self.streams.owned().get(name) is not runtime or runtime.model is None:
                return
            data, seq = runtime.fitted.to_bytes(), runtime.seq
        with self.streams.engine.begin() as conn:
            checkpoints.save_checkpoint(conn, runtime.stream_id, seq, data)
        self._checkpointed[name] = seq
