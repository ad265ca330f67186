"""Samples and their decisions: the duplicate check and the inserts of one ingest request."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, insert, select

from cbeal.service.store.tables import samples, tasks

__all__ = ["insert_samples", "insert_tasks", "stored_samples"]

# built once: every request runs them
_STORED = (
    select(
        samples.c.id,
        samples.c.sample_id,
        samples.c.seq,
        samples.c.decision,
        tasks.c.id.label("task_id"),
    )
    .select_from(samples.outerjoin(tasks, tasks.c.sample_pk == samples.c.id))
    .where(
        samples.c.stream_id == bindparam("b_stream"),
        samples.c.sample_id.in_(bindparam("b_ids", expanding=True)),
    )
)
_NEW_SAMPLES = insert(samples).returning(
    samples.c.id, samples.c.sample_id, sort_by_parameter_order=True
)
_NEW_TASKS = insert(tasks).returning(tasks.c.id, tasks.c.sample_pk, sort_by_parameter_order=True)


def stored_samples(conn: Connection, stream_id: int, ids: list[str]) -> list[Any]:
    """The stored samples among `ids`: sample_id, seq, decision and task_id (or None)."""
    return list(conn.execute(_STORED, {"b_stream": stream_id, "b_ids": ids}))


def insert_samples(
    conn: Connection,
    stream_id: int,
    first_seq: int,
    received_at: float,
    items: list[tuple[str, list[float | None], dict[str, Any]]],
) -> list[int]:
    """Store (sample id, row, decision) items at events ``first_seq`` …; their row keys."""
    inserted = conn.execute(
        _NEW_SAMPLES,
        [
            {
                "stream_id": stream_id,
                "sample_id": sid,
                "seq": first_seq + i,
                "x": row,
                "received_at": received_at,
                "decision_id": d["id"],
                "acquire": d["acquire"],
                "p_acquire": d["p_acquire"],
                "prediction": d["y_pred"],
                "certainty": d["certainty"],
                "model_version": d["learner_version"],
                "decision": d,
            }
            for i, (sid, row, d) in enumerate(items)
        ],
    ).all()
    return [r.id for r in inserted]


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
    return {r.sample_pk: r.id for r in conn.execute(_NEW_TASKS, rows)}
