"""The OPC UA bridge's journal: the parts it has read but the service has not yet stored.

An OPC UA server, unlike an MQTT broker, keeps no queue for a client that is away: the
values of a part are there until the next part overwrites them. So the bridge holds
every part it reads in a small SQLite file, written (and synced) before anything else
happens to the part, and removes it only once the service has stored it or refused its
content for good. The same transaction moves the *cursor*, the last part read (its
trigger value, source timestamp and features), from where a restarted bridge catches up.

Examples
--------
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "journal.db"
>>> journal = Journal(path)
>>> journal.add("part-7", [1.5, None], stamp=100.0)
1
>>> [(row.seq, row.sample_id, row.x) for row in journal.pending()]
[(1, 'part-7', [1.5, None])]
>>> journal.cursor().sample_id
'part-7'
>>> journal.done([1])
>>> journal.pending()
[]
>>> Journal(path).cursor().stamp  # a restart reads it back
100.0
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Cursor", "Journal", "Pending"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    sample_id TEXT NOT NULL,
    x TEXT NOT NULL,
    read_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS cursor (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    sample_id TEXT NOT NULL,
    stamp REAL,
    x TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS refused (
    sample_id TEXT NOT NULL,
    x TEXT NOT NULL,
    reason TEXT NOT NULL,
    at REAL NOT NULL
);
"""


@dataclass(frozen=True)
class Pending:
    """A part read from the line and not yet stored by the service."""

    seq: int
    sample_id: str
    x: list[float | None]


@dataclass(frozen=True)
class Cursor:
    """The last part read: its sample id, trigger source time (POSIX seconds) and features."""

    sample_id: str
    stamp: float | None
    x: list[float | None]


class Journal:
    """The bridge's SQLite journal at `path` (created if missing).

    `durable` syncs every part to disk before the bridge goes on (SQLite
    ``synchronous=FULL``): a part survives a power cut, not only a killed process.
    """

    def __init__(self, path: str | Path, *, durable: bool = True) -> None:
        self.path = Path(path)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self.db.executescript(_SCHEMA)

    def close(self) -> None:
        self.db.close()

    def add(self, sample_id: str, x: list[float | None], *, stamp: float | None) -> int:
        """Hold a part and make it the cursor, in one transaction; its sequence number."""
        data = json.dumps(x)
        with self._tx():
            cur = self.db.execute(
                "INSERT INTO outbox (sample_id, x, read_at) VALUES (?, ?, ?)",
                (sample_id, data, time.time()),
            )
            self._move(sample_id, stamp, data)
        return int(cur.lastrowid or 0)

    def skip(self, sample_id: str, x: list[float | None], *, stamp: float | None) -> None:
        """Move the cursor past a part that cannot be sent (its features are lost)."""
        with self._tx():
            self._move(sample_id, stamp, json.dumps(x))

    def pending(self, limit: int = 1000) -> list[Pending]:
        """The oldest parts not yet stored, in the order they were read."""
        rows = self.db.execute(
            "SELECT seq, sample_id, x FROM outbox ORDER BY seq LIMIT ?", (limit,)
        ).fetchall()
        return [Pending(int(s), str(i), json.loads(x)) for s, i, x in rows]

    def done(self, seqs: list[int]) -> None:
        """The service stored these parts: forget them."""
        with self._tx():
            self.db.executemany("DELETE FROM outbox WHERE seq = ?", [(s,) for s in seqs])

    def refuse(self, part: Pending, reason: str) -> None:
        """The service refused this part's content for good: keep it aside, with the reason."""
        with self._tx():
            self.db.execute(
                "INSERT INTO refused (sample_id, x, reason, at) VALUES (?, ?, ?, ?)",
                (part.sample_id, json.dumps(part.x), reason, time.time()),
            )
            self.db.execute("DELETE FROM outbox WHERE seq = ?", (part.seq,))

    def cursor(self) -> Cursor | None:
        """The last part read, or None before the first one."""
        row = self.db.execute("SELECT sample_id, stamp, x FROM cursor").fetchone()
        return None if row is None else Cursor(str(row[0]), row[1], json.loads(row[2]))

    def count(self, table: str) -> int:
        """Rows in ``outbox`` (waiting) or ``refused``."""
        if table not in ("outbox", "refused"):
            raise ValueError(f"no table {table!r} in the journal")
        return int(self.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def _move(self, sample_id: str, stamp: float | None, data: str) -> None:
        self.db.execute(
            "INSERT INTO cursor (one, sample_id, stamp, x) VALUES (1, ?, ?, ?) "
            "ON CONFLICT (one) DO UPDATE SET sample_id = excluded.sample_id, "
            "stamp = excluded.stamp, x = excluded.x",
            (sample_id, stamp, data),
        )

    def _tx(self) -> Any:
        return _Transaction(self.db)


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT (ROLLBACK on error) on an autocommit connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: Any, value: Any, tb: Any) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
