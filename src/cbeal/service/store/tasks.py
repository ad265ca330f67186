"""The expert's queue in SQL: tasks, their leases and the answers they hold.

Every update is conditional on the task's current status and on who holds it, so a lost
race changes nothing and the caller sees ``False``. An open task is held by its live
lease (``lease_owner`` until ``lease_until``); a labelled one by whoever labelled it
(``lease_owner``, no end), so that only they may undo it. A :class:`Holder` is the caller
the conditions test: its lease key, and the prefix of keys it also answers for (Label
Studio answers for every Label Studio lease); ``None`` skips the test (an admin's
override, the service's own expiry).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sqlalchemy import Connection, and_, case, exists, func, or_, select, true, update

from cbeal.service.store.tables import answers, samples, tasks

__all__ = [
    "NO_ANSWER",
    "Holder",
    "close_task",
    "due_labels",
    "free_task",
    "held_task",
    "lease_task",
    "mark_learned",
    "may",
    "old_open_tasks",
    "open_leases",
    "queue_rows",
    "release_task",
    "reopen_task",
    "set_labelled",
    "skip_task",
    "task_row",
    "task_view_row",
    "task_with_decision",
    "tasks_by_request_prefix",
]


class Holder(NamedTuple):
    key: str  # the lease key, e.g. "alice#3"
    group: str | None = None  # also answers for the keys starting with this


#: the columns of a task's answer, cleared (an answer withdrawn)
NO_ANSWER: dict[str, Any] = {
    "label": None,
    "request_id": None,
    "labelled_at": None,
    "labelled_by": None,
}


def may(holder: Holder | None, t: float) -> Any:
    """The task is free (no holder, or a lease run out) or held by `holder`."""
    if holder is None:
        return true()
    cond = [
        tasks.c.lease_owner.is_(None),
        tasks.c.lease_until <= t,
        tasks.c.lease_owner == holder.key,
    ]
    if holder.group:
        cond.append(tasks.c.lease_owner.startswith(holder.group, autoescape=True))
    return or_(*cond)


def open_leases(conn: Connection, key: str, t: float) -> int:
    """How many open (or disputed) tasks, over every stream, `key` leases now."""
    return int(
        conn.execute(
            select(func.count()).where(
                tasks.c.status.in_(("open", "disputed")),
                tasks.c.lease_owner == key,
                tasks.c.lease_until > t,
            )
        ).scalar_one()
    )


def task_row(conn: Connection, task_id: int) -> Any:
    return conn.execute(select(tasks).where(tasks.c.id == task_id)).first()


def tasks_by_request_prefix(conn: Connection, prefix: str) -> list[Any]:
    """The tasks whose answer's request id starts with `prefix` (an integration's own ids)."""
    return list(
        conn.execute(select(tasks).where(tasks.c.request_id.startswith(prefix, autoescape=True)))
    )


def task_view_row(conn: Connection, task_id: int) -> Any:
    """The task with its sample: id, row, decision and arrival time."""
    return conn.execute(
        select(tasks, samples.c.sample_id, samples.c.x, samples.c.decision, samples.c.received_at)
        .select_from(tasks.join(samples, samples.c.id == tasks.c.sample_pk))
        .where(tasks.c.id == task_id)
    ).first()


def task_with_decision(conn: Connection, task_id: int) -> Any:
    return conn.execute(
        select(tasks, samples.c.decision)
        .select_from(tasks.join(samples, samples.c.id == tasks.c.sample_pk))
        .where(tasks.c.id == task_id)
    ).first()


def _free(t: float) -> Any:
    return or_(tasks.c.lease_until.is_(None), tasks.c.lease_until <= t)


def held_task(conn: Connection, stream_id: int, holder: str, t: float) -> int | None:
    """The oldest open task `holder` leases now, if any."""
    row = conn.execute(
        select(tasks.c.id)
        .where(
            tasks.c.stream_id == stream_id,
            tasks.c.status == "open",
            tasks.c.lease_owner == holder,
            tasks.c.lease_until > t,
        )
        .order_by(tasks.c.id)
        .limit(1)
    ).first()
    return None if row is None else int(row.id)


def free_task(conn: Connection, stream_id: int, t: float, key: str | None = None) -> int | None:
    """The next open task nobody leases that `key` has not answered: a part waiting for
    more answers first, then fewest skips, then oldest."""
    answered = exists().where(answers.c.task_id == tasks.c.id)
    cond = [tasks.c.stream_id == stream_id, tasks.c.status == "open", _free(t)]
    if key is not None:
        cond.append(~exists().where(answers.c.task_id == tasks.c.id, answers.c.lease_key == key))
    row = conn.execute(
        select(tasks.c.id)
        .where(*cond)
        .order_by(case((answered, 0), else_=1), tasks.c.skips, tasks.c.id)
        .limit(1)
    ).first()
    return None if row is None else int(row.id)


def lease_task(conn: Connection, task_id: int, holder: str, t: float, until: float) -> bool:
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, _free(t), tasks.c.status == "open")
        .values(lease_owner=holder, lease_until=until)
    )
    return res.rowcount == 1


def queue_rows(conn: Connection, stream_id: int) -> list[Any]:
    """Status, creation time and lease of the open and labelled tasks."""
    return list(
        conn.execute(
            select(tasks.c.status, tasks.c.created_at, tasks.c.lease_until).where(
                tasks.c.stream_id == stream_id,
                tasks.c.status.in_(("open", "labelled", "disputed")),
            )
        )
    )


def set_labelled(
    conn: Connection,
    task_id: int,
    label: Any,
    request_id: str,
    by: str,
    t: float,
    holder: Holder | None,
    key: str,
) -> bool:
    """Label an open task `holder` may answer; `key` holds the label (may undo it)."""
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status == "open", may(holder, t))
        .values(
            status="labelled",
            label=label,
            request_id=request_id,
            labelled_at=t,
            labelled_by=by,
            lease_owner=key,
            lease_until=None,
        )
    )
    return res.rowcount == 1


def reopen_task(
    conn: Connection, task_id: int, t: float, holder: Holder | None, key: str, until: float
) -> bool:
    """Withdraw a label the model has not learned yet: the task is open again, leased to
    `key` until `until` (who undid it, to label it again)."""
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status == "labelled", may(holder, t))
        .values(status="open", **NO_ANSWER, lease_owner=key, lease_until=until)
    )
    return res.rowcount == 1


def skip_task(conn: Connection, task_id: int, t: float, holder: Holder | None) -> bool:
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status == "open", may(holder, t))
        .values(skips=tasks.c.skips + 1, lease_owner=None, lease_until=None)
    )
    return res.rowcount == 1


def release_task(conn: Connection, task_id: int, t: float, holder: Holder | None) -> bool:
    """Give up a live lease of an open task (`holder`'s, or anyone's for None)."""
    res = conn.execute(
        update(tasks)
        .where(
            tasks.c.id == task_id,
            tasks.c.status.in_(("open", "disputed")),
            tasks.c.lease_until > t,
            may(holder, t),
        )
        .values(lease_owner=None, lease_until=None)
    )
    return res.rowcount == 1


def due_labels(conn: Connection, task_id: int | None, labelled_before: float) -> list[Any]:
    """Labelled tasks (id, stream_id) to teach the model: `task_id`, or every one labelled
    before `labelled_before`, oldest first."""
    cond = [tasks.c.status == "labelled"]
    cond.append(
        tasks.c.id == task_id if task_id is not None else tasks.c.labelled_at <= labelled_before
    )
    return list(
        conn.execute(
            select(tasks.c.id, tasks.c.stream_id)
            .where(and_(*cond))
            .order_by(tasks.c.labelled_at, tasks.c.id)
        )
    )


def mark_learned(
    conn: Connection, task_id: int, reward: float | None, correct: bool | None, t: float
) -> bool:
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status == "labelled")
        .values(status="learned", learned_at=t, reward=reward, correct=correct)
    )
    return res.rowcount == 1


def close_task(
    conn: Connection,
    task_id: int,
    status: str,
    request_id: str | None,
    by: str | None,
    t: float,
    holder: Holder | None,
) -> bool:
    """Close an open (or disputed) task without a label (cannot tell, expired)."""
    res = conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status.in_(("open", "disputed")), may(holder, t))
        .values(
            status=status,
            request_id=request_id,
            labelled_at=t,
            labelled_by=by,
            lease_owner=None,
            lease_until=None,
        )
    )
    return res.rowcount == 1


def old_open_tasks(conn: Connection, stream_id: int, created_before: float) -> list[Any]:
    return list(
        conn.execute(
            select(tasks).where(
                tasks.c.stream_id == stream_id,
                tasks.c.status == "open",
                tasks.c.created_at < created_before,
            )
        )
    )
