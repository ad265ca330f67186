"""Several experts on one part, in SQL: their answers, the outcome, and the reviews.

Each answer is a row of ``answers`` (one per task, lease key and kind). A task that needs
several answers stays ``open`` while they come in (each answer gives its lease back), then
becomes ``labelled`` (they agree: the agreed label) or ``disputed`` (they do not: it waits
for a reviewer, who leases it like a task and settles it with a ``settle`` answer).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, delete, exists, insert, select, update

from cbeal.service.store.tables import answers, samples, tasks
from cbeal.service.store.tasks import NO_ANSWER, Holder, may

__all__ = [
    "REVIEW_STATES",
    "answer_rows",
    "answers_by_request_prefix",
    "delete_answer",
    "free_review",
    "held_review",
    "insert_answer",
    "lease_review",
    "release_for_answers",
    "set_outcome",
    "settle",
    "stream_answers",
    "task_answers",
    "unsettle",
    "withdraw",
]

#: the states of a task a reviewer works on
REVIEW_STATES = ("disputed",)


def task_answers(conn: Connection, task_id: int) -> list[Any]:
    """The task's answers, oldest first: kind, label, who (name and key), request id, when."""
    return list(
        conn.execute(select(answers).where(answers.c.task_id == task_id).order_by(answers.c.id))
    )


def answer_rows(conn: Connection, task_ids: list[int]) -> dict[int, list[Any]]:
    """The answers of `task_ids`, by task, oldest first."""
    out: dict[int, list[Any]] = {i: [] for i in task_ids}
    if task_ids:
        for r in conn.execute(
            select(answers).where(answers.c.task_id.in_(task_ids)).order_by(answers.c.id)
        ):
            out[int(r.task_id)].append(r)
    return out


def answers_by_request_prefix(conn: Connection, prefix: str) -> list[Any]:
    """The answers whose request id starts with `prefix` (an integration's own ids)."""
    return list(
        conn.execute(
            select(answers).where(answers.c.request_id.startswith(prefix, autoescape=True))
        )
    )


def insert_answer(
    conn: Connection,
    *,
    task_id: int,
    stream_id: int,
    kind: str,
    label: Any,
    by: str,
    key: str,
    request_id: str,
    t: float,
) -> None:
    conn.execute(
        insert(answers).values(
            task_id=task_id,
            stream_id=stream_id,
            kind=kind,
            label=label,
            answered_by=by,
            lease_key=key,
            request_id=request_id,
            answered_at=t,
        )
    )


def delete_answer(conn: Connection, task_id: int, kind: str, key: str | None = None) -> int:
    """Remove the task's answers of `kind` (by `key` only, if given); how many."""
    cond = [answers.c.task_id == task_id, answers.c.kind == kind]
    if key is not None:
        cond.append(answers.c.lease_key == key)
    return int(conn.execute(delete(answers).where(*cond)).rowcount)


def release_for_answers(conn: Connection, task_id: int, t: float, holder: Holder | None) -> bool:
    """An open task `holder` may answer gives its lease back (the answer is in): the next
    expert may take it. False when the task is not open or another holds it."""
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status == "open", may(holder, t))
        .values(lease_owner=None, lease_until=None)
    )
    return res.rowcount == 1


def set_outcome(
    conn: Connection, task_id: int, status: str, label: Any, by: str | None, rid: str, t: float
) -> bool:
    """The answers are in: ``labelled`` with the agreed `label`, or ``disputed``."""
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status == "open")
        .values(
            status=status,
            label=label,
            request_id=rid,
            labelled_at=t,
            labelled_by=by,
            lease_owner=None,
            lease_until=None,
        )
    )
    return res.rowcount == 1


def withdraw(conn: Connection, task_id: int, key: str, t: float, until: float) -> bool:
    """An expert withdraws an answer the model has not learned: the task is open again
    (collecting answers), leased to `key` until `until` to answer again."""
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status.in_(("open", "labelled", "disputed")))
        .values(status="open", **NO_ANSWER, lease_owner=key, lease_until=until)
    )
    return res.rowcount == 1


def held_review(conn: Connection, stream_id: int, key: str, t: float) -> int | None:
    """The oldest disputed task `key` leases now, if any."""
    row = conn.execute(
        select(tasks.c.id)
        .where(
            tasks.c.stream_id == stream_id,
            tasks.c.status.in_(REVIEW_STATES),
            tasks.c.lease_owner == key,
            tasks.c.lease_until > t,
        )
        .order_by(tasks.c.id)
        .limit(1)
    ).first()
    return None if row is None else int(row.id)


def free_review(conn: Connection, stream_id: int, key: str, t: float) -> int | None:
    """The oldest disputed task nobody leases that `key` gave no answer to."""
    answered = exists().where(answers.c.task_id == tasks.c.id, answers.c.lease_key == key)
    row = conn.execute(
        select(tasks.c.id)
        .where(
            tasks.c.stream_id == stream_id,
            tasks.c.status.in_(REVIEW_STATES),
            may(Holder(key), t),
            ~answered,
        )
        .order_by(tasks.c.id)
        .limit(1)
    ).first()
    return None if row is None else int(row.id)


def lease_review(conn: Connection, task_id: int, key: str, t: float, until: float) -> bool:
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status.in_(REVIEW_STATES), may(Holder(key), t))
        .values(lease_owner=key, lease_until=until)
    )
    return res.rowcount == 1


def settle(
    conn: Connection,
    task_id: int,
    label: Any,
    rid: str,
    by: str,
    t: float,
    holder: Holder | None,
    key: str,
) -> bool:
    """A reviewer settles a disputed task: labelled with `label`, held by `key` (who may
    undo the settlement within the undo window)."""
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status.in_(REVIEW_STATES), may(holder, t))
        .values(
            status="labelled",
            label=label,
            request_id=rid,
            labelled_at=t,
            labelled_by=by,
            lease_owner=key,
            lease_until=None,
        )
    )
    return res.rowcount == 1


def unsettle(conn: Connection, task_id: int, key: str, t: float, until: float) -> bool:
    """A settlement withdrawn within the undo window: disputed again, leased to `key`."""
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status == "labelled")
        .values(status="disputed", **NO_ANSWER, lease_owner=key, lease_until=until)
    )
    return res.rowcount == 1


def stream_answers(conn: Connection, stream_id: int) -> list[Any]:
    """Every answer of the stream with its task's state, final label and sample id, in the
    order they were given (the agreement report and the export)."""
    return list(
        conn.execute(
            select(
                answers.c.task_id,
                answers.c.kind,
                answers.c.label,
                answers.c.answered_by,
                answers.c.answered_at,
                answers.c.request_id,
                tasks.c.status,
                tasks.c.label.label("final_label"),
                samples.c.sample_id,
            )
            .select_from(
                answers.join(tasks, tasks.c.id == answers.c.task_id).join(
                    samples, samples.c.id == tasks.c.sample_pk
                )
            )
            .where(answers.c.stream_id == stream_id)
            .order_by(answers.c.id)
        )
    )
