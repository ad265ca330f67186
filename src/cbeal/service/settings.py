"""How a service process runs: the ``cbeal serve`` options."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

__all__ = ["RETRAIN_MODES", "SQLITE_SYNC", "Settings", "default_of", "parse_duration"]

#: retrain in a worker thread, on the request path (every run reproducible), or never
RETRAIN_MODES = ("background", "sync", "off")
#: SQLite's synchronous mode: NORMAL survives a killed process, FULL a power cut too
SQLITE_SYNC = ("NORMAL", "FULL")

_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 7 * 86400.0}


def parse_duration(text: str) -> float:
    """Seconds in `text`: a positive number and one unit (s, m, h, d or w).

    >>> parse_duration("90s"), parse_duration("12h"), parse_duration("30d"), parse_duration("1.5m")
    (90.0, 43200.0, 2592000.0, 90.0)
    >>> parse_duration("30")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cannot read the duration '30': write a number and a unit, e.g. 90s, ...
    """
    said = text.strip().lower()
    unit = _UNITS.get(said[-1:]) if said else None
    try:
        value = float(said[:-1]) if unit is not None else float("nan")
    except ValueError:
        value = float("nan")
    if unit is None or not value > 0 or value == float("inf"):
        raise ValueError(
            f"cannot read the duration {text!r}: write a number and a unit, "
            "e.g. 90s, 15m, 12h, 30d or 2w"
        )
    return value * unit


@dataclass
class Settings:
    """How a service process runs (the ``cbeal serve`` options)."""

    db: str = field(default_factory=lambda: _default_db())
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
    retain_seconds: float | None = None  # unlabelled samples older than this leave the database
    archive: str | None = None  # ... for Parquet files in this folder (engine.archive)
    trim_seconds: float = 60.0  # give freed heap back to the system this often (0: never)

    def __post_init__(self) -> None:
        for name, allowed in (("retrain", RETRAIN_MODES), ("sqlite_sync", SQLITE_SYNC)):
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"{name} must be one of {', '.join(allowed)}, got {getattr(self, name)!r}"
                )
        if (self.retain_seconds is None) != (self.archive is None):
            raise ValueError(
                "retention needs both `retain_seconds` and an `archive` folder, "
                "e.g. Settings(retain_seconds=30 * 86400, archive='/var/lib/cbeal/archive')"
            )
        if self.retain_seconds is not None and not self.retain_seconds > 0:
            raise ValueError(f"the retention must be positive, got {self.retain_seconds}")


def default_of(name: str) -> Any:
    """The default of the setting `name`: the one place it is written (the CLI's flags and
    the engine read it from here).

    >>> default_of("checkpoint_every"), default_of("undo_seconds")
    (5000, 60.0)
    """
    for f in fields(Settings):
        if f.name == name and f.default is not MISSING:
            return f.default
    raise KeyError(f"no setting {name!r} with a fixed default")


def _default_db() -> str:
    # the database layer loads SQLAlchemy: only when a Settings is made, not for `--help`
    from cbeal.service.store.db import default_url

    return default_url()
