"""The database: an embedded SQLite file by default, or PostgreSQL by URL; schema by Alembic.

SQLite runs in WAL mode with ``synchronous=NORMAL`` by default: a transaction the service
acknowledged survives a killed process (``kill -9``: the log is in the operating system's
hands), and commits take about 0.1 ms. ``sqlite_sync="FULL"`` also survives a power cut or
an operating-system crash, at about 5 ms per commit on this project's machines.
``migrate`` brings any database to the newest schema (creating it on first start) with the
migrations shipped in this package.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, create_engine, event

__all__ = [
    "Connection",
    "DatabaseUnavailable",
    "LostOnReturn",
    "Outage",
    "connect",
    "default_url",
    "json_text",
    "migrate",
    "outage",
    "redact",
]

MIGRATIONS = Path(__file__).parent.parent / "migrations"


class DatabaseUnavailable(RuntimeError):
    """The database cannot be reached or opened; the message is one line saying what to do."""


class Outage(RuntimeError):
    """The database failed this request for a reason outside the request: a lost
    connection, a full disk. The same request may succeed later (a 503)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


_FULL = ("disk is full", "no space left", "disk full", "could not extend file", "disk i/o error")


def outage(exc: BaseException) -> Outage | None:
    """What a database error means for the caller: an :class:`Outage` (retry later) for a
    lost connection, an unreachable server, a busy pool or a full disk; None for any
    other error (a fault of the request or of the service).

    >>> import sqlite3
    >>> from sqlalchemy.exc import OperationalError
    >>> full = sqlite3.OperationalError("database or disk is full")
    >>> outage(OperationalError("INSERT ...", {}, full)).retry_after
    30
    >>> outage(ValueError("no")) is None
    True
    """
    import errno

    from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return Outage("the server's disk is full", 30)
    if isinstance(exc, PoolTimeout):
        return Outage("every database connection is busy", 2)
    lost = isinstance(exc, DBAPIError) and exc.connection_invalidated
    if not (lost or isinstance(exc, OperationalError | InterfaceError | DisconnectionError)):
        return None
    said = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    first = said[0] if said else type(exc).__name__
    if any(k in first.lower() for k in _FULL):
        return Outage(f"the database cannot write: {first}", 30)
    return Outage(f"the database connection failed: {first}", 2)


def redact(url: str) -> str:
    """`url` with its password hidden, for messages and logs.

    >>> redact("postgresql+psycopg://cbeal:s3cret@db/cbeal")
    'postgresql+psycopg://cbeal:***@db/cbeal'
    """
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<unreadable database URL>"


def default_url(path: str | Path = "cbeal-service.db") -> str:
    """The embedded default: a SQLite file."""
    return f"sqlite:///{Path(path).resolve()}"


def json_text(value: Any) -> str:
    """`value` as the JSON columns store it (None as ``null``, as SQLAlchemy's JSON does).

    >>> json_text({"x": [1.0, None]})
    '{"x":[1.0,null]}'
    """
    return orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY).decode()


_dumps = json_text


def _loads(value: Any) -> Any:
    # SQLite hands back a JSON number stored in a JSON column (a label 1) as a number; the
    # stdlib's json.loads raises TypeError there, which SQLAlchemy's SQLite type catches,
    # but orjson raises its own error
    if isinstance(value, int | float):
        return value
    return orjson.loads(value)


# orjson for the JSON columns (several times faster than the stdlib); module-level
# functions, since psycopg warns that closures registered as its JSON codecs may leak
_JSON: dict[str, Any] = {"json_serializer": _dumps, "json_deserializer": _loads}


def connect(url: str, *, sqlite_sync: str = "NORMAL") -> Engine:
    """An engine for `url` (``sqlite:///path`` or ``postgresql+psycopg://…``)."""
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        return _engine(url, sqlite_sync)
    except (ArgumentError, NoSuchModuleError) as exc:
        raise DatabaseUnavailable(
            f"cannot read the database URL {redact(url)!r} ({exc}); write sqlite:///path/file.db "
            "or postgresql+psycopg://user@host:5432/database"
        ) from None


def _engine(url: str, sqlite_sync: str) -> Engine:
    if url.startswith("sqlite"):
        if sqlite_sync.upper() not in ("NORMAL", "FULL"):
            raise ValueError(f"sqlite_sync must be NORMAL or FULL, got {sqlite_sync!r}")
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 10},
            pool_size=8,
            max_overflow=8,
            **_JSON,
        )

        def pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA synchronous={sqlite_sync.upper()}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=10000")
            # the write-ahead log is cut back to 64 MiB after each checkpoint (else it keeps
            # the size of its largest burst): with retention the files plateau
            cursor.execute("PRAGMA journal_size_limit=67108864")
            cursor.close()

        event.listen(engine, "connect", pragmas)
        return engine
    # no pool_pre_ping: it costs a round trip on every checkout. A connection that died
    # in the pool fails its request, which answers 503 (see `outage`) and drops the
    # connection (SQLAlchemy invalidates it, and the whole pool on a disconnect); the
    # client's retry gets a fresh one.
    engine = create_engine(url, pool_size=8, max_overflow=8, **_JSON)
    logger = engine.pool.logger  # a Logger, or an InstanceLogger around one (echo_pool)
    pool_logger = logger if isinstance(logger, logging.Logger) else logger.logger
    if not any(isinstance(f, LostOnReturn) for f in pool_logger.filters):
        pool_logger.addFilter(LostOnReturn())
    return engine


class LostOnReturn(logging.Filter):
    r"""A connection killed while the pool resets it on return (a database restart, an
    operator's ``pg_terminate_backend``) is discarded by the pool and harms nothing: one
    warning line instead of SQLAlchemy's error with a traceback.

    >>> record = logging.LogRecord("sqlalchemy.pool", logging.ERROR, "", 0,
    ...     "Exception during reset or similar", (), (OSError, OSError("gone\nmore"), None))
    >>> LostOnReturn().filter(record), record.levelname, record.exc_info, record.getMessage()
    (True, 'WARNING', None, 'a database connection was lost while returned to the pool (OSError: gone); the pool discards it')
    """  # noqa: E501

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and str(record.msg).startswith("Exception during reset"):
            exc = record.exc_info[1]
            first = str(exc).splitlines()[0] if str(exc) else ""
            record.msg = (
                f"a database connection was lost while returned to the pool "
                f"({type(exc).__name__}: {first}); the pool discards it"
            )
            record.args = ()
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def migrate(engine: Engine) -> None:
    """Create or upgrade the schema to the newest migration.

    An unreachable database raises :class:`DatabaseUnavailable` with one line.
    """
    from alembic import command
    from alembic.config import Config
    from sqlalchemy.exc import DBAPIError, OperationalError

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
    except (OperationalError, DBAPIError) as exc:
        first = str(getattr(exc, "orig", exc)).strip().splitlines()
        raise DatabaseUnavailable(
            f"cannot open the database {redact(str(engine.url))}: "
            f"{first[0] if first else type(exc).__name__}; check that the database server "
            "is running and that the URL (host, port, user, database name) is right"
        ) from None
