"""The HTTP API, one router per resource: streams, samples, tasks, integrations, operations."""

from cbeal.service.api import integrations, operations, samples, streams, tasks

__all__ = ["ROUTERS"]

ROUTERS = (streams.router, samples.router, tasks.router, integrations.router, operations.router)
