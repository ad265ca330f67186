"""Prometheus metrics of a service process (``GET /metrics``).

Beside the counters of what was served: per stream the model's version and age (seconds
since the serving model was trained in this process or, before its first retrain here,
since it was loaded), the labels spent and, with retention (`retain_seconds`), the samples
archived and the archive's lag (seconds the oldest sample due for the archive is late; 0
when on time); per process the streams waiting for a retrain, the retrains' durations, the
database's size in bytes and the process's resident memory.
"""

from __future__ import annotations

import os
import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

__all__ = ["Metrics"]


class Metrics:
    """Counters kept while serving, gauges read from the streams when scraped."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.samples = Counter("cbeal_samples_total", "samples decided", ["stream"], registry=r)
        self.acquired = Counter("cbeal_acquired_total", "samples asked for", ["stream"], registry=r)
        self.labels = Counter("cbeal_labels_total", "labels received", ["stream"], registry=r)
        self.latency = Histogram(
            "cbeal_request_seconds",
            "request time",
            ["route"],
            registry=r,
            buckets=(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
        )
        self.version = Gauge("cbeal_model_version", "model version serving", ["stream"], registry=r)
        self.spent = Gauge("cbeal_budget_spent", "labels spent", ["stream"], registry=r)
        self.age = Gauge(
            "cbeal_model_age_seconds",
            "seconds since the serving model was trained",
            ["stream"],
            registry=r,
        )
        self.refit_queue = Gauge(
            "cbeal_refit_queue", "streams with labels waiting for a retrain", registry=r
        )
        self.refit = Histogram(
            "cbeal_refit_seconds",
            "time to retrain a stream's model (background)",
            registry=r,
            buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
        )
        self.archived = Gauge(
            "cbeal_archived_samples", "samples moved to the archive", ["stream"], registry=r
        )
        self.archive_lag = Gauge(
            "cbeal_archive_lag_seconds",
            "how late the oldest sample due for the archive is",
            ["stream"],
            registry=r,
        )
        self.db_bytes = Gauge("cbeal_database_bytes", "the database's size on disk", registry=r)
        self.rss = Gauge("cbeal_resident_bytes", "the process's resident memory", registry=r)
        self.loaded: dict[str, float] = {}  # stream -> when this process first saw its model

    def render(self, service: Any) -> bytes:
        now = time.time()
        background = service.background
        waiting = 0
        for name, runtime in service.streams.owned().items():
            if runtime.model is not None:
                self.version.labels(name).set(runtime.model.learner_version)
                self.spent.labels(name).set(runtime.model.budget_used_)
                trained = background.last_retrain.get(name) or self.loaded.setdefault(name, now)
                self.age.labels(name).set(max(0.0, now - trained))
                waiting += bool(runtime.needs_refit())
        self.refit_queue.set(waiting)
        archiver = service.archiver
        if archiver is not None:
            for name, n in archiver.archived.items():
                self.archived.labels(name).set(n)
            for name, lag in archiver.lag.items():
                self.archive_lag.labels(name).set(lag)
        self.db_bytes.set(service.database_bytes())
        self.rss.set(resident_bytes())
        return generate_latest(self.registry)


def resident_bytes() -> int:
    """The process's resident memory (Linux: /proc/self/statm; elsewhere the peak)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024
