"""Many rows in one driver call: ``executemany`` with the driver's own parameters.

SQLAlchemy Core spends about 10 µs per row building and processing each row's parameters
(a dict per row, a bind processor per JSON column); the ingest path stores two rows per
sample (its event and the sample), so it hands the driver tuples it built itself, JSON
columns already encoded as SQLAlchemy's JSON type would encode them (orjson, see
:mod:`cbeal.service.store.db`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Table

from cbeal.service.store.db import json_text

__all__ = ["insert_one", "insert_rows", "json_text"]

_SQL: dict[tuple[str, str, tuple[str, ...]], str] = {}


def _sql(conn: Connection, table: Table, columns: tuple[str, ...]) -> str:
    dialect = conn.dialect
    key = (dialect.name, table.name, columns)
    sql = _SQL.get(key)
    if sql is None:
        mark = "?" if dialect.paramstyle == "qmark" else "%s"
        prepare = dialect.identifier_preparer
        names = ", ".join(prepare.quote(c) for c in columns)
        sql = _SQL[key] = (
            f"INSERT INTO {prepare.format_table(table)} ({names}) "
            f"VALUES ({', '.join([mark] * len(columns))})"
        )
    return sql


def insert_rows(
    conn: Connection, table: Table, columns: tuple[str, ...], rows: Sequence[tuple[Any, ...]]
) -> None:
    """``INSERT INTO table (columns) VALUES (…)`` for every row, in one ``executemany``."""
    if rows:
        conn.exec_driver_sql(_sql(conn, table, columns), list(rows))


def insert_one(
    conn: Connection, table: Table, columns: tuple[str, ...], row: tuple[Any, ...]
) -> int:
    """Insert one row; its ``id``, from the same statement (``RETURNING``)."""
    return int(conn.exec_driver_sql(_sql(conn, table, columns) + " RETURNING id", row).scalar_one())
