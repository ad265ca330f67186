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
import logging
import math
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cbeal.core import ParameterError

__all__ = ["Cursor", "Journal", "Pending"]

log = logging.getLogger("cbeal.opcua")

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
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self.db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise ParameterError(
                f"`journal` {str(self.path)!r} cannot be the bridge's journal, an SQLite "
                f"file ({exc}): name a new file, or move this one aside if it is a journal"
            ) from None
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
        held = [(p.sample_id, _dump(p.x), now) for p, hold in parts if hold]
        with self._tx():
            self.db.executemany("INSERT INTO outbox (sample_id, x, read_at) VALUES (?, ?, ?)", held)
            last = parts[-1][0]
            self._move(last.sample_id, last.stamp, _dump(last.x))
        return len(held)

    def pending(self, limit: int = 1000) -> list[Pending]:
        """The oldest parts not yet stored, in the order they were read.

        A row that cannot be read as a part (its features are not a JSON list of numbers,
        say after an edit by hand) is set aside in the ``refused`` table, with why, and
        the log names it: it could never be sent, and the parts behind it go on. A NaN
        or ±inf held by a journal from before is a missing value (None), as when read.
        """
        while True:
            with self._lock:
                rows = self.db.execute(
                    "SELECT seq, sample_id, x FROM outbox ORDER BY seq LIMIT ?", (limit,)
                ).fetchall()
            parts, bad = [], []
            for seq, sid, data in rows:
                try:
                    parts.append(Pending(int(seq), str(sid), _load(data)))
                except ValueError as exc:
                    bad.append((int(seq), str(sid), str(data), str(exc)))
            if not bad:
                return parts
            self._set_aside(bad)

    def _set_aside(self, bad: list[tuple[int, str, str, str]]) -> None:
        with self._tx():
            for seq, sid, data, why in bad:
                reason = f"unreadable journal row (outbox seq {seq}): {why}"
                self.db.execute(
                    "INSERT INTO refused (sample_id, x, reason, at) VALUES (?, ?, ?, ?)",
                    (sid, data, reason, time.time()),
                )
                self.db.execute("DELETE FROM outbox WHERE seq = ?", (seq,))
        for seq, sid, _, why in bad:
            log.warning(
                "journal %s: row seq %d of the outbox (part %s) is unreadable (%s); set aside "
                "in the journal's refused table, the parts behind it go on",
                self.path, seq, sid, why,
            )  # fmt: skip

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
                    (part.sample_id, _dump(part.x), reason, time.time()),
                )
                self.db.execute("DELETE FROM outbox WHERE seq = ?", (part.seq,))

    def cursor(self) -> Cursor | None:
        """The last part read, or None before the first one."""
        with self._lock:
            row = self.db.execute("SELECT sample_id, stamp, x FROM cursor").fetchone()
        if row is None:
            return None
        try:
            x = _load(row[2])
        except ValueError as exc:  # its features only fill a history read's gaps
            log.warning(
                "journal %s: the cursor's features are unreadable (%s); features a history "
                "read finds unchanged since part %s are sent as missing", self.path, exc, row[0],
            )  # fmt: skip
            x = []
        stamp = row[1] if isinstance(row[1], int | float) else None
        return Cursor(str(row[0]), stamp, x)

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


def _finite(v: Any) -> float | None:
    return v if v is None or math.isfinite(v) else None


def _dump(x: list[float | None]) -> str:
    """A part's features as stored: JSON, NaN and ±inf as null (a missing value)."""
    return json.dumps([_finite(v) for v in x], allow_nan=False)


def _load(data: Any) -> list[float | None]:
    """A part's features as stored; ValueError if they are not a list of numbers or null."""
    if not isinstance(data, str):
        raise ValueError(f"its features are not text but {type(data).__name__}")
    try:
        x = json.loads(data)
    except ValueError as exc:
        raise ValueError(f"its features are not JSON: {exc}") from None
    if not isinstance(x, list) or not all(
        v is None or (isinstance(v, int | float) and not isinstance(v, bool)) for v in x
    ):
        raise ValueError("its features are not a JSON list of numbers or null")
    try:
        return [_finite(None if v is None else float(v)) for v in x]
    except OverflowError:  # an integer beyond a float's range
        raise ValueError("its features hold a number beyond a float's range") from None
