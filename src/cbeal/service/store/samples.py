"""Samples and their decisions: the duplicate check and the inserts of one ingest request.

The inserts are plain ``executemany`` (one driver call for a whole batch, see
:mod:`~cbeal.service.store.bulk` for the samples); the row keys are
then read back with one query. ``INSERT … RETURNING`` in order would cost one statement per
row on SQLite (no multi-row RETURNING in parameter order), 100 statements for a batch of 100.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sqlalchemy import Connection, bindparam, insert, select

from cbeal.service.store.bulk import insert_one, insert_rows, json_text, marks, read_json, run
from cbeal.service.store.tables import samples, tasks

__all__ = ["insert_samples", "insert_tasks", "stored_samples"]

# straight to the driver: every request runs it (see store.bulk)
_STORED = (
    "SELECT s.id, s.sample_id, s.seq, s.decision, t.id FROM samples AS s "
    "LEFT OUTER JOIN tasks AS t ON t.sample_pk = s.id "
    "WHERE s.stream_id = {mark} AND s.sample_id IN ({ids})"
)


class Stored(NamedTuple):
    id: int
    sample_id: str
    seq: int
    decision: dict[str, Any]
    task_id: int | None


_SAMPLE_COLUMNS = (
    "stream_id",
    "sample_id",
    "seq",
    "x",
    "received_at",
    "decision_id",
    "acquire",
    "p_acquire",
    "prediction",
    "certainty",
    "model_version",
    "decision",
)
_NEW_TASKS = insert(tasks)
# the keys of the samples just stored: their sequence numbers are new (fenced by the events)
_KEYS = (
    select(samples.c.id, samples.c.seq)
    .where(
        samples.c.stream_id == bindparam("b_stream"),
        samples.c.seq.between(bindparam("b_first"), bindparam("b_last")),
    )
    .order_by(samples.c.seq)
)
_TASK_KEYS = select(tasks.c.id, tasks.c.sample_pk).where(
    tasks.c.stream_id == bindparam("b_stream"),
    tasks.c.sample_pk.in_(bindparam("b_pks", expanding=True)),
)


def stored_samples(conn: Connection, stream_id: int, ids: list[str]) -> list[Stored]:
    """The stored samples among `ids`: sample_id, seq, decision and task_id (or None)."""
    sql = _STORED.format(mark=marks(conn, 1), ids=marks(conn, len(ids)))
    found, _ = run(conn, sql, (stream_id, *ids))
    return [Stored(r[0], r[1], r[2], read_json(r[3]), r[4]) for r in found]


def insert_samples(
    conn: Connection,
    stream_id: int,
    first_seq: int,
    received_at: float,
    items: list[tuple[str, list[float | None], dict[str, Any]]],
) -> list[int]:
    """Store (sample id, row, decision) items at events ``first_seq`` …; their row keys."""
    rows = [
        (
            stream_id,
            sid,
            first_seq + i,
            json_text(row),
            received_at,
            d["id"],
            bool(d["acquire"]),
            float(d["p_acquire"]),
            json_text(d["y_pred"]),
            None if d["certainty"] is None else float(d["certainty"]),
            int(d["learner_version"]),
            json_text(d),
        )
        for i, (sid, row, d) in enumerate(items)
    ]
    if len(rows) == 1:  # one statement: the key comes back with the insert
        return [insert_one(conn, samples, _SAMPLE_COLUMNS, rows[0])]
    insert_rows(conn, samples, _SAMPLE_COLUMNS, rows)
    last = first_seq + len(items) - 1
    keys = conn.execute(_KEYS, {"b_stream": stream_id, "b_first": first_seq, "b_last": last})
    pks = [r.id for r in keys]
    if len(pks) != len(items):  # pragma: no cover - the fence makes the range ours
        raise RuntimeError(f"stored {len(items)} samples but found {len(pks)} at their seqs")
    return pks


def insert_tasks(
    conn: Connection, stream_id: int, created_at: float, asked: list[tuple[int, str]]
) -> dict[int, int]:
    """Open tasks for (sample key, decision id) pairs; task ids by sample key."""
    if not asked:
        return {}
    rows = [
        {
            "stream_id": stream_id,
            "sample_pk": pk,
            "decision_id": did,
            "status": "open",
            "created_at": created_at,
            "skips": 0,
        }
        for pk, did in asked
    ]
    conn.execute(_NEW_TASKS, rows)
    found = conn.execute(_TASK_KEYS, {"b_stream": stream_id, "b_pks": [pk for pk, _ in asked]})
    return {r.sample_pk: r.id for r in found}
