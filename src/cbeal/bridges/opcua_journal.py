"""The OPC UA bridge's journal: the parts it has read but the service has not yet stored.

An OPC UA server, unlike an MQTT broker, keeps no queue for a client that is away: the
values of a part are there until the next part overwrites them. So the bridge holds
every part it reads in a small SQLite file, written (and synced) before the part is
sent, and removes it only once the service has stored it or refused its content for
good. The same transaction moves the *cursor*, the last part read (its trigger value,
source timestamp and features), from where a restarted bridge catches up. Parts read
together are written in one transaction (one sync), and every method may be called
from any thread.

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
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

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
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self.db.close()

    def add(self, sample_id: str, x: list[float | None], *, stamp: float | None) -> int:
        """Hold a part and make it the cursor, in one transaction; its sequence number."""
        return self.add_many([(Cursor(sample_id, stamp, x), True)])

    def skip(self, sample_id: str, x: list[float | None], *, stamp: float | None) -> None:
        """Move the cursor past a part that cannot be sent (its features are lost)."""
        self.add_many([(Cursor(sample_id, stamp, x), False)])

    def add_many(self, parts: list[tuple[Cursor, bool]]) -> int:
        """Hold the parts marked True, skip the others, and make the last one the cursor,
        in one transaction; the number held."""
        if not parts:
            return 0
        now = time.time()
        held = [(p.sample_id, json.dumps(p.x), now) for p, hold in parts if hold]
        with self._tx():
            self.db.executemany("INSERT INTO outbox (sample_id, x, read_at) VALUES (?, ?, ?)", held)
            last = parts[-1][0]
            self._move(last.sample_id, last.stamp, json.dumps(last.x))
        return len(held)

    def pending(self, limit: int = 1000) -> list[Pending]:
        """The oldest parts not yet stored, in the order they were read."""
        with self._lock:
            rows = self.db.execute(
                "SELECT seq, sample_id, x FROM outbox ORDER BY seq LIMIT ?", (limit,)
            ).fetchall()
        return [Pending(int(s), str(i), json.loads(x)) for s, i, x in rows]

    def done(self, seqs: list[int]) -> None:
        """The service stored these parts: forget them."""
        with self._tx():
            self.db.executemany("DELETE FROM outbox WHERE seq = ?", [(s,) for s in seqs])

    def refuse(self, refused: list[tuple[Pending, str]]) -> None:
        """The service refused these parts' content for good: keep them aside, with why."""
        with self._tx():
            for part, reason in refused:
                self.db.execute(
                    "INSERT INTO refused (sample_id, x, reason, at) VALUES (?, ?, ?, ?)",
                    (part.sample_id, json.dumps(part.x), reason, time.time()),
                )
                self.db.execute("DELETE FROM outbox WHERE seq = ?", (part.seq,))

    def cursor(self) -> Cursor | None:
        """The last part read, or None before the first one."""
        with self._lock:
            row = self.db.execute("SELECT sample_id, stamp, x FROM cursor").fetchone()
        return None if row is None else Cursor(str(row[0]), row[1], json.loads(row[2]))

    def count(self, table: str) -> int:
        """Rows in ``outbox`` (waiting) or ``refused``."""
        if table not in ("outbox", "refused"):
            raise ValueError(f"no table {table!r} in the journal")
        with self._lock:
            return int(self.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def _move(self, sample_id: str, stamp: float | None, data: str) -> None:
        self.db.execute(
            "INSERT INTO cursor (one, sample_id, stamp, x) VALUES (1, ?, ?, ?) "
            "ON CONFLICT (one) DO UPDATE SET sample_id = excluded.sample_id, "
            "stamp = excluded.stamp, x = excluded.x",
            (sample_id, stamp, data),
        )

    @contextmanager
    def _tx(self) -> Iterator[None]:
        """BEGIN IMMEDIATE … COMMIT (ROLLBACK on error), holding the lock."""
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
