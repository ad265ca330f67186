"""Statements straight to the database driver: the ingest path's hot statements, and many
rows in one driver call (``executemany`` with the driver's own parameters).

Through SQLAlchemy, even as plain SQL (``exec_driver_sql``), a statement costs about
40 µs of CPU more than the driver's own call (its execution context and result
metadata), on a single-sample request of about 1 ms; :func:`run` calls the driver's
cursor of the same connection and transaction, and turns a driver error into the
:class:`~sqlalchemy.exc.DBAPIError` SQLAlchemy would raise, a lost connection
invalidated, so that outages are answered as before (:func:`~cbeal.service.store.db.outage`).

SQLAlchemy Core spends about 10 µs per row building and processing each row's parameters
(a dict per row, a bind processor per JSON column); the ingest path stores two rows per
sample (its event and the sample), so it hands the driver tuples it built itself, JSON
columns already encoded as SQLAlchemy's JSON type would encode them (orjson, see
:mod:`cbeal.service.store.db`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from sqlalchemy import Connection, Table
from sqlalchemy.exc import DBAPIError

from cbeal.service.store.db import json_text

__all__ = ["insert_one", "insert_rows", "json_text", "marks", "read_json", "run"]

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


def run(
    conn: Connection, sql: str, params: Any = (), *, many: bool = False
) -> tuple[list[Any], int]:
    """Run `sql` with the driver's cursor, in `conn`'s transaction: the rows it returned
    (if any) and its row count."""
    fairy = conn.connection
    cursor = fairy.cursor()
    try:
        if many:
            cursor.executemany(sql, params)
        else:
            cursor.execute(sql, params)
        rows = list(cursor.fetchall()) if cursor.description is not None else []
        return rows, cursor.rowcount
    except conn.dialect.loaded_dbapi.Error as exc:
        lost = conn.dialect.is_disconnect(exc, fairy.dbapi_connection, cursor)
        error = DBAPIError.instance(
            sql,
            params,
            exc,
            conn.dialect.loaded_dbapi.Error,
            connection_invalidated=lost,
            dialect=conn.dialect,
        )
        if lost:
            conn.invalidate(exc)
        raise error from exc
    finally:
        cursor.close()


def marks(conn: Connection, n: int) -> str:
    """`n` parameter marks of `conn`'s driver, comma-separated (``?, ?`` or ``%s, %s``)."""
    return ", ".join(["?" if conn.dialect.paramstyle == "qmark" else "%s"] * n)


def read_json(value: Any) -> Any:
    """A JSON column's value as plain driver SQL returns it: text on SQLite, already
    decoded where the driver decodes JSON itself."""
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def insert_rows(
    conn: Connection, table: Table, columns: tuple[str, ...], rows: Sequence[tuple[Any, ...]]
) -> None:
    """``INSERT INTO table (columns) VALUES (…)`` for every row, in one ``executemany``."""
    if rows:
        run(conn, _sql(conn, table, columns), list(rows), many=True)


def insert_one(
    conn: Connection, table: Table, columns: tuple[str, ...], row: tuple[Any, ...]
) -> int:
    """Insert one row; its ``id``, from the same statement (``RETURNING``)."""
    (found,), _ = run(conn, _sql(conn, table, columns) + " RETURNING id", row)
    return int(found[0])
