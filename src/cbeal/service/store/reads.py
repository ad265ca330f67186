"""What the dashboard, the labelling page and the exports read: counts, the labelled pool,
a stream's recent history and every sample with its answer."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Integer, Select, func, or_, select

from cbeal.service.store.tables import samples, streams, tasks

__all__ = [
    "export_query",
    "learned_values",
    "pool_rows",
    "samples_since",
    "stream_counts",
    "tasks_since",
]

POOL_STATES = ("initial", "labelled", "learned")


def stream_counts(conn: Connection, stream_id: int) -> dict[str, int]:
    """Samples received (those retention archived too), labels received, labels learned and
    how many were predicted right."""
    learned, right = conn.execute(
        select(func.count(), func.sum(func.cast(tasks.c.correct, Integer))).where(
            tasks.c.stream_id == stream_id, tasks.c.correct.is_not(None)
        )
    ).one()
    received = conn.execute(
        select(func.count()).where(
            tasks.c.stream_id == stream_id, tasks.c.status.in_(("labelled", "learned"))
        )
    ).scalar_one()
    n_samples = conn.execute(
        select(func.count()).where(samples.c.stream_id == stream_id, samples.c.seq > 0)
    ).scalar_one()
    archived = conn.execute(
        select(streams.c.archived).where(streams.c.id == stream_id)
    ).scalar_one_or_none()
    return {
        "samples": int(n_samples) + int(archived or 0),
        "labels": int(received),
        "learned": int(learned),
        "right": int(right or 0),
    }


def pool_rows(conn: Connection, stream_id: int) -> list[Any]:
    """Raw rows and labels of every labelled sample (D0 and the answered tasks)."""
    return list(
        conn.execute(
            select(samples.c.x, tasks.c.label)
            .select_from(samples.join(tasks, tasks.c.sample_pk == samples.c.id))
            .where(samples.c.stream_id == stream_id, tasks.c.status.in_(POOL_STATES))
        )
    )


def learned_values(conn: Connection, stream_id: int) -> list[Any]:
    """Every learned label beyond D0 with the prediction made before it was learned, in
    the order the experts answered: sample id, answer time, label and prediction (None
    during a cold start: the model did not exist yet)."""
    return list(
        conn.execute(
            select(samples.c.sample_id, tasks.c.labelled_at, tasks.c.label, samples.c.prediction)
            .select_from(samples.join(tasks, tasks.c.sample_pk == samples.c.id))
            .where(samples.c.stream_id == stream_id, tasks.c.status == "learned")
            .order_by(tasks.c.labelled_at, tasks.c.id)
        )
    )


def samples_since(conn: Connection, stream_id: int, after: int, last: int) -> list[Any]:
    """The samples after event `after` (at most the `last` latest), oldest first: seq,
    arrival, asked, model version and decision."""
    rows = conn.execute(
        select(
            samples.c.seq,
            samples.c.received_at,
            samples.c.acquire,
            samples.c.model_version,
            samples.c.decision,
        )
        .where(samples.c.stream_id == stream_id, samples.c.seq > after)
        .order_by(samples.c.seq.desc())
        .limit(last)
    ).all()
    return list(rows[::-1])


def tasks_since(conn: Connection, stream_id: int, after: int, ids: list[int]) -> list[Any]:
    """The tasks beyond D0 created after task `after`, and the tasks `ids`: times, status,
    label and whether the model predicted it."""
    new = tasks.c.id > after
    return list(
        conn.execute(
            select(
                tasks.c.id,
                tasks.c.created_at,
                tasks.c.labelled_at,
                tasks.c.learned_at,
                tasks.c.status,
                tasks.c.label,
                tasks.c.correct,
            ).where(
                tasks.c.stream_id == stream_id,
                tasks.c.status != "initial",
                or_(new, tasks.c.id.in_(ids)) if ids else new,
            )
        )
    )


def export_query(stream_id: int) -> Select[Any]:
    """Every sample of the stream in arrival order, with its decision and its task."""
    return (
        select(
            samples.c.sample_id,
            samples.c.seq,
            samples.c.received_at,
            samples.c.x,
            samples.c.acquire,
            samples.c.decision_id,
            samples.c.p_acquire,
            samples.c.prediction,
            samples.c.certainty,
            samples.c.model_version,
            samples.c.decision,
            tasks.c.id.label("task_id"),
            tasks.c.status,
            tasks.c.label,
            tasks.c.labelled_at,
            tasks.c.labelled_by,
            tasks.c.learned_at,
            tasks.c.reward,
            tasks.c.correct,
        )
        .select_from(samples.outerjoin(tasks, tasks.c.sample_pk == samples.c.id))
        .where(samples.c.stream_id == stream_id)
        .order_by(samples.c.seq)
    )
