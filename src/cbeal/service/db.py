"""The database: an embedded SQLite file by default, or PostgreSQL by URL; schema by Alembic.

SQLite runs in WAL mode with ``synchronous=FULL``: a transaction the service acknowledged
survives a killed process and a power cut. ``migrate`` brings any database to the newest
schema (creating it on first start) with the migrations shipped in this package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event

__all__ = ["connect", "default_url", "migrate"]

MIGRATIONS = Path(__file__).parent / "migrations"


def default_url(path: str | Path = "cbeal-service.db") -> str:
    """The embedded default: a SQLite file."""
    return f"sqlite:///{Path(path).resolve()}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def connect(url: str) -> Engine:
    """An engine for `url` (``sqlite:///path`` or ``postgresql+psycopg://…``)."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10},
                               pool_size=8, max_overflow=8)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_size=8, max_overflow=8, pool_pre_ping=True)


def migrate(engine: Engine) -> None:
    """Create or upgrade the schema to the newest migration."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
