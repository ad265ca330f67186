"""Prometheus metrics of a service process (``GET /metrics``)."""

from __future__ import annotations

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

    def render(self, service: Any) -> bytes:
        for name, runtime in service.streams.owned().items():
            if runtime.model is not None:
                self.version.labels(name).set(runtime.model.learner_version)
                self.spent.labels(name).set(runtime.model.budget_used_)
        return generate_latest(self.registry)
