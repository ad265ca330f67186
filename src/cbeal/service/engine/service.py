"""Everything one service process holds, apart from HTTP: the database, its streams, the
task queue, the background work and the metrics."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING

from cbeal.service.engine.archive import Archiver
from cbeal.service.engine.background import Background
from cbeal.service.engine.streams import Streams
from cbeal.service.engine.tasks import TaskOps
from cbeal.service.engine.tokens import TokenCache
from cbeal.service.metrics import Metrics
from cbeal.service.store import retention
from cbeal.service.store.db import connect, migrate

if TYPE_CHECKING:
    from cbeal.service.settings import Settings

__all__ = ["Service"]


class Service:
    """The decision engine of one process: streams, tasks, retraining, checkpoints."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = connect(settings.db, sqlite_sync=settings.sqlite_sync)
        migrate(self.engine)
        self.tokens = TokenCache(self.engine)
        self.streams = Streams(
            self.engine, owner=settings.owner, lease_seconds=settings.lease_seconds
        )
        self.tasks = TaskOps(
            self.streams,
            undo_seconds=settings.undo_seconds,
            lease_seconds=settings.task_lease_seconds,
            max_lease_seconds=settings.max_lease_seconds,
            max_open_leases=settings.max_open_leases,
        )
        self.background = Background(
            self.streams,
            self.tasks,
            checkpoint_every=settings.checkpoint_every,
            retrain=settings.retrain,
            trim_seconds=settings.trim_seconds,
        )
        self.archiver: Archiver | None = None
        if settings.retain_seconds is not None and settings.archive is not None:
            self.archiver = Archiver(
                self.streams,
                Path(settings.archive),
                settings.retain_seconds,
                checkpoint=self.background.checkpoint,
            )
            self.background.archiver = self.archiver
        self.metrics = Metrics()
        self.background.on_refit = self.metrics.refit.observe
        if settings.retrain == "sync":
            self.tasks.after_learning = self.background.refit_now

    def start(self) -> None:
        # loading a checkpoint needs skops, whose first import takes about 2 s (it lists
        # every scikit-learn estimator): pay that before serving, not in the first request
        # after a restart
        import skops.io  # noqa: F401

        # what is loaded by now (the libraries, the app) lives as long as the process: kept
        # out of the collector's full passes, which otherwise walk it again and again while
        # requests allocate (about a fifth of ingest's CPU for batches, measured)
        gc.collect()
        gc.freeze()
        self.background.start()

    def database_bytes(self) -> int:
        """The database's size on disk (see store.retention.database_bytes)."""
        with self.engine.connect() as conn:
            return retention.database_bytes(conn)

    def stop(self) -> None:
        self.background.stop()
        self.streams.release()
        self.engine.dispose()
