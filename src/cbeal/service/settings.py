"""How a service process runs: the ``cbeal serve`` options."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass, field

from cbeal.service.store.db import default_url

__all__ = ["Settings"]


@dataclass
class Settings:
    """How a service process runs (the ``cbeal serve`` options)."""

    db: str = field(default_factory=default_url)
    open: bool = False  # no tokens: a local demo only
    undo_seconds: float = 60.0
    lease_seconds: float = 15.0
    task_lease_seconds: float = 300.0
    max_lease_seconds: float = 7 * 86400.0  # the longest lease a client may ask for
    max_open_leases: int = 1000  # tasks one token may hold leased at a time
    checkpoint_every: int = 5000
    max_body_bytes: int = 16 * 1024 * 1024
    max_samples: int = 10_000
    owner: str = field(
        default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    )
    retrain: str = "background"  # or "sync" (on the request path: reproducible) or "off"
    sqlite_sync: str = "NORMAL"  # "FULL": also survive a power cut (slower commits)
