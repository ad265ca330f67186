"""Who may change a task: the caller as the queue sees it (:class:`Actor`), the rules of a
lease, and the one-transaction conditional update every answer goes through.

While a task is leased, only its holder may answer or release it; only who labelled it may
undo the label; after a lease ran out its holder may still answer unless someone else
leased the task since. An admin may override, and the override is recorded: an
``override`` event in the stream's log (which a replay passes over) and a line on the
logger ``cbeal.audit``. The rules are checked twice: here, to explain a refusal and to
spot an override, and in the database, as the condition of the update itself, so that a
lost race changes nothing (:class:`Conflict`, a 409).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from cbeal.service.engine.streams import NotFound, Streams
from cbeal.service.store import events
from cbeal.service.store import streams as stream_rows
from cbeal.service.store import tasks as rows
from cbeal.service.store.events import now
from cbeal.service.store.tasks import Holder

__all__ = ["Actor", "Conflict", "Forbidden", "TaskBase", "Unchanged"]

audit = logging.getLogger("cbeal.audit")


class Conflict(RuntimeError):
    """The request contradicts the task's state (already labelled, already learned, …)."""


class Forbidden(RuntimeError):
    """The caller's role may not do this to this task (a 403): a labeller settling a
    disputed part, or a reviewer answering a part that waits for labellers."""


class Unchanged(Exception):
    """A conditional update changed nothing: the task's state or holder changed."""


@dataclass(frozen=True)
class Actor:
    """Who answers a task: the token's `name` (recorded with the answer), the `key` its
    leases are held under, whether it is an `admin` (who may override another's lease),
    the `group` of lease keys it also answers for (Label Studio's webhook answers for
    every Label Studio lease), and whether it may answer parts (`labeller`: role annotate
    or admin) and settle disputed ones (`reviewer`: role review or admin).

    >>> Actor("alice", "alice#3").holds("alice#3"), Actor("ls", "ls#4").holds("alice#3")
    (True, False)
    """

    name: str
    key: str
    admin: bool = False
    group: str | None = None
    labeller: bool = True
    reviewer: bool = False

    def holds(self, owner: str | None) -> bool:
        return owner is not None and (
            owner == self.key or (self.group is not None and owner.startswith(self.group))
        )

    @property
    def holder(self) -> Holder:
        return Holder(self.key, self.group)


class TaskBase:
    """The task queue's settings and the rules of who may change a task (the operations
    are :class:`~cbeal.service.engine.tasks.TaskOps`)."""

    def __init__(
        self,
        streams: Streams,
        *,
        undo_seconds: float,
        lease_seconds: float,
        max_lease_seconds: float,
        max_open_leases: int,
    ) -> None:
        self.streams = streams
        self.undo_seconds = undo_seconds
        self.lease_seconds = lease_seconds
        self.max_lease_seconds = max_lease_seconds
        self.max_open_leases = max_open_leases
        self.after_learning: Any = None  # called with (name, runtime) after a label is learned

    def _task(self, task_id: int) -> Any:
        with self.streams.engine.connect() as conn:
            row = rows.task_row(conn, task_id)
        if row is None:
            raise NotFound(f"no task {task_id}")
        return row

    def _overrides(self, task: Any, actor: Actor | None, t: float) -> bool:
        """True when `actor` acts on a task someone else holds (allowed to an admin only;
        Conflict for anyone else)."""
        if actor is None or task.lease_owner is None or actor.holds(task.lease_owner):
            return False
        free = task.lease_until is None or task.lease_until <= t
        if task.status in ("open", "disputed") and free:
            return False  # the lease ran out and nobody took the task since
        if not actor.admin:
            raise self._held_elsewhere(task, "answer")
        return True

    def _held_elsewhere(self, task: Any, doing: str) -> Conflict:
        if task.status in ("open", "disputed") and task.lease_until is not None:
            left = max(0.0, task.lease_until - now())
            return Conflict(
                f"task {task.id} is leased to someone else for another {left:.0f} s; only "
                f"the holder (or an admin) may {doing} it: take the next task with "
                "GET /api/v1/streams/{name}/tasks/next"
            )
        if task.status == "labelled":
            return Conflict(
                f"task {task.id} was labelled by someone else ({task.labelled_by}); only "
                "they (or an admin) may undo that label"
            )
        return Conflict(f"task {task.id} is held by someone else; only they (or an admin) may")

    def _refusal(self, task_id: int, doing: str) -> Conflict:
        """Why a conditional update changed nothing, from the task's state now."""
        task = self._task(task_id)
        if task.status not in ("open", "disputed"):
            return Conflict(f"task {task_id} is {task.status} now: the {doing} changed nothing")
        return self._held_elsewhere(task, doing)

    def _change(self, task: Any, actor: Actor, action: str, write: Any) -> bool:
        """Run `write(conn, holder, t)` in one transaction: conditional on `actor` holding
        the task or the task being free, or, for an admin overriding another's lease,
        unconditional and recorded. False when the update changed nothing."""
        t = now()
        if not self._overrides(task, actor, t):
            with self.streams.engine.begin() as conn:
                return bool(write(conn, actor.holder, t))
        name = self._stream_name(task.stream_id)
        runtime = self.streams.get(name)
        with runtime.lock:
            try:
                with self.streams.engine.begin() as conn:
                    if not write(conn, None, t):
                        raise Unchanged
                    seq = self._append(conn, runtime, [self._override(task, actor, action)])
            except Unchanged:
                return False
            runtime.seq = seq  # nothing in memory changed: a failure needs no reload
        return True

    def _override(self, task: Any, actor: Actor, action: str) -> tuple[str, dict[str, Any]]:
        """The audit record of an admin acting on a task someone else holds."""
        record = {
            "task_id": task.id,
            "action": action,
            "by": actor.name,
            "holder": task.lease_owner,
            "lease_until": task.lease_until,
        }
        audit.warning(
            "admin %s overrode %s's hold on task %s (%s)",
            actor.name,
            task.lease_owner,
            task.id,
            action,
        )
        return ("override", record)

    def _append(self, conn: Any, runtime: Any, todo: list[tuple[str, dict[str, Any]]]) -> int:
        return events.append_events(
            conn,
            runtime.stream_id,
            self.streams.owner,
            runtime.seq,
            todo,
            self.streams.lease_seconds,
        )

    def _stream_name(self, stream_id: int) -> str:
        for name, rt in self.streams.owned().items():
            if rt.stream_id == stream_id:
                return name
        with self.streams.engine.connect() as conn:
            found = stream_rows.stream_name(conn, stream_id)
        if found is None:
            raise NotFound(f"no stream {stream_id}")
        return found
