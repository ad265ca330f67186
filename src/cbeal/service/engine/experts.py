"""Several experts on one part: answers collected, agreement found, disputes reviewed.

A part that needs several answers (:func:`~cbeal.service.engine.agreement.needed`) stays
open while they come in: each labeller answers it once (its lease is given back with the
answer, so the next labeller may take it), and ``tasks/next`` offers it to no token that
answered it. When it has its answers and they agree, the task is labelled with the agreed
label and the model learns it once, after the undo window, as any label. When they differ,
the task is ``disputed``: a reviewer (role ``review``, or an admin) leases it with
``reviews/next``, sees every answer and who gave it, and settles it with a label, which the
model learns. Every answer, outcome and settlement is an event of the stream's log (which a
replay passes over: the model changes only by ``label`` events, as before).

Undo withdraws the caller's own answer (the part is open again, leased back to them), or a
reviewer's settlement (disputed again); "cannot tell" is an abstention, and a part closes
as ``cannot_tell`` only when as many experts abstained as it needs answers.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from cbeal.service.engine.agreement import agree, needed
from cbeal.service.engine.holds import Actor, Conflict, Forbidden, TaskBase, Unchanged
from cbeal.service.store import answers as rows
from cbeal.service.store import streams as stream_rows
from cbeal.service.store import tasks as task_rows
from cbeal.service.store.events import now

__all__ = ["ExpertOps", "record"]


class _Again(Exception):
    """The caller's answer arrived meanwhile (a request sent twice at once)."""


class ExpertOps(TaskBase):
    """The several-answers half of the task queue (:class:`~.tasks.TaskOps` is the rest)."""

    # ------------------------------------------------------------------ reading
    def config_of(self, stream_id: int) -> Any:
        """The stream's settings: from its runtime if this process serves it, else stored."""
        for rt in self.streams.owned().values():
            if rt.stream_id == stream_id:
                return rt.config
        name = self._stream_name(stream_id)
        with self.streams.engine.connect() as conn:
            row = stream_rows.stream_row(conn, name)
        return SimpleNamespace(**dict(row.config))

    def _needed(self, task: Any, config: Any) -> int:
        with self.streams.engine.connect() as conn:
            row = task_rows.task_with_decision(conn, task.id)
        certainty = None if row is None else row.decision.get("certainty")
        return needed(config, certainty)

    def answers_of(self, task_id: int) -> list[Any]:
        with self.streams.engine.connect() as conn:
            return rows.task_answers(conn, task_id)

    def several(self, task: Any, config: Any) -> bool:
        """Whether the task goes the several-answers way: it needs two or more, or holds
        answers of several experts (or a review) already."""
        given = self.answers_of(task.id)
        if any(a.kind == "settle" for a in given) or task.status == "disputed":
            return True
        if task.status == "open" and given:
            return True
        return len(given) >= 2 or self._needed(task, config) >= 2

    def answers_view(self, task: Any) -> dict[str, Any]:
        """The answers part of the view of `task` (a row with its ``decision``): how many
        it needs and has, and (once the answers are in, never while labellers are still
        answering) who gave which."""
        config = self.config_of(task.stream_id)
        given = self.answers_of(task.id)
        shown = [] if task.status == "open" else given
        return {
            "answers_needed": needed(config, task.decision.get("certainty")),
            "answers_given": sum(a.kind != "settle" for a in given),
            "answers": [
                {"kind": a.kind, "label": a.label, "by": a.answered_by, "at": a.answered_at}
                for a in shown
            ],
        }

    # ------------------------------------------------------------------ review queue
    def lease_review(
        self, name: str, actor: Actor, lease_seconds: float | None = None
    ) -> dict[str, Any] | None:
        """Lease the oldest disputed part the reviewer gave no answer to (the one it holds
        already comes back first); None if none waits."""
        if not actor.reviewer:
            raise Forbidden("a review needs a token with role review (or admin)")
        runtime = self.streams.get(name)
        seconds = lease_seconds or self.lease_seconds
        if seconds > self.max_lease_seconds:
            raise ValueError(
                f"lease_seconds may be at most {self.max_lease_seconds:g} "
                "(the service's maximum lease); ask for a shorter lease"
            )
        for _ in range(5):
            t = now()
            with self.streams.engine.begin() as conn:
                mine = rows.held_review(conn, runtime.stream_id, actor.key, t)
                if mine is not None:
                    return self.view(mine)  # type: ignore[attr-defined]
                free = rows.free_review(conn, runtime.stream_id, actor.key, t)
                if free is None:
                    return None
                holding = task_rows.open_leases(conn, actor.key, t)
                if holding >= self.max_open_leases:
                    raise Conflict(
                        f"this token holds {holding} task leases already (at most "
                        f"{self.max_open_leases}); answer or release some first"
                    )
                got = rows.lease_review(conn, free, actor.key, t, t + seconds)
            if got:
                return self.view(free)  # type: ignore[attr-defined]
        raise Conflict("the review queue is busy; retry")

    # ------------------------------------------------------------------ answers
    def answer(
        self, task: Any, runtime: Any, value: Any, rid: str, actor: Actor, kind: str = "label"
    ) -> str | None:
        """One expert's answer (`kind` label or cannot_tell) to a part that needs several;
        returns the task's outcome when this answer completed it (labelled, disputed,
        cannot_tell), else None."""
        if not actor.labeller:
            raise Forbidden(
                f"task {task.id} waits for labellers' answers; a token with role review "
                "settles disputed parts only (GET /api/v1/streams/{name}/reviews/next)"
            )
        given = self.answers_of(task.id)
        mine = [a for a in given if a.lease_key == actor.key]
        if mine:
            if any(a.request_id == rid and a.kind == kind and a.label == value for a in mine):
                return None  # the same request again
            raise Conflict(
                f"you answered task {task.id} already ({mine[0].kind} {mine[0].label!r}); to "
                f"change it, undo it first (POST /api/v1/tasks/{task.id}/undo)"
            )
        if task.status != "open":
            raise Conflict(f"task {task.id} is {task.status}: it takes no more answers")
        need = self._needed(task, runtime.config)
        t = now()
        override = self._overrides(task, actor, t)
        holder = None if override else actor.holder
        outcome: str | None = None
        with runtime.lock:
            try:
                with self.streams.engine.begin() as conn:
                    if not rows.release_for_answers(conn, task.id, t, holder):
                        raise Unchanged
                    if any(a.lease_key == actor.key for a in rows.task_answers(conn, task.id)):
                        raise _Again
                    record(conn, task, kind, value, actor, rid, t)
                    todo = [self._override(task, actor, kind)] if override else []
                    todo.append(("answer", _event(task, kind, value, actor.name)))
                    now_given = rows.task_answers(conn, task.id)
                    labels = [a for a in now_given if a.kind == "label"]
                    abstained = sum(a.kind == "cannot_tell" for a in now_given)
                    if len(labels) >= need:
                        ok, final = agree([a.label for a in labels], runtime.config)
                        outcome = "labelled" if ok else "disputed"
                        by = ", ".join(a.answered_by for a in labels)[:100] if ok else None
                        rows.set_outcome(conn, task.id, outcome, final, by, rid, t)
                        todo.append((outcome, {"task_id": task.id, "label": final}))
                    elif abstained >= need:
                        outcome = "cannot_tell"
                    seq = self._append(conn, runtime, todo)
            except Unchanged:
                raise self._refusal(task.id, "answer") from None
            except _Again:
                return self.answer(self._task(task.id), runtime, value, rid, actor, kind)
            runtime.seq = seq
        if outcome == "cannot_tell":
            self._close(  # type: ignore[attr-defined]
                self._task(task.id), "cannot_tell", refund=False, request_id=rid, actor=None
            )
        return outcome

    def settle(self, task: Any, runtime: Any, value: Any, rid: str, actor: Actor) -> None:
        """A reviewer's label for a disputed part: the part is labelled with it."""
        if not actor.reviewer:
            raise Forbidden(
                f"task {task.id} is disputed (its answers differ); only a token with role "
                "review (or an admin) may settle it"
            )
        t = now()
        override = self._overrides(task, actor, t)
        holder = None if override else actor.holder
        with runtime.lock:
            try:
                with self.streams.engine.begin() as conn:
                    if not rows.settle(conn, task.id, value, rid, actor.name, t, holder, actor.key):
                        raise Unchanged
                    record(conn, task, "settle", value, actor, rid, t)
                    todo = [self._override(task, actor, "settle")] if override else []
                    todo.append(("settle", _event(task, "settle", value, actor.name)))
                    seq = self._append(conn, runtime, todo)
            except Unchanged:
                raise self._refusal(task.id, "settle") from None
            runtime.seq = seq

    def withdraw(self, task: Any, given: list[Any], actor: Actor) -> None:
        """Undo for a part of several answers: the caller's own answer is withdrawn (the
        part is open again, leased back to them), or a reviewer's settlement (disputed
        again). 409 when the model learned the label already, or the caller gave none."""
        if task.status in ("learned", "cannot_tell", "expired"):
            raise Conflict(
                f"task {task.id} was {task.status} already; the model has used the answers "
                f"(the undo window is {self.undo_seconds:g} s)"
            )
        settled = [a for a in given if a.kind == "settle"]
        mine = [a for a in given if a.lease_key == actor.key and a.kind != "settle"]
        if settled and task.status == "labelled":
            if settled[0].lease_key != actor.key and not actor.admin:
                raise Conflict(
                    f"task {task.id} was settled by someone else ({settled[0].answered_by}); "
                    "only they (or an admin) may undo the settlement"
                )
            mine, kind = settled, "settle"
        elif not mine:
            raise Conflict(f"task {task.id} holds no answer of yours to undo")
        else:
            kind = mine[0].kind
        name = self._stream_name(task.stream_id)
        runtime = self.streams.get(name)
        t = now()
        until = t + self.lease_seconds
        with runtime.lock:
            try:
                with self.streams.engine.begin() as conn:
                    if kind == "settle":
                        back = rows.unsettle(conn, task.id, actor.key, t, until)
                    elif task.status == "open":  # still collecting: the lease stays as it is
                        back = True
                    else:
                        back = rows.withdraw(conn, task.id, actor.key, t, until)
                    if not back or not rows.delete_answer(conn, task.id, kind, mine[0].lease_key):
                        raise Unchanged
                    event = _event(task, kind, mine[0].label, mine[0].answered_by)
                    seq = self._append(conn, runtime, [("withdraw", event)])
            except Unchanged:
                raise self._refusal(task.id, "undo") from None
            runtime.seq = seq


def record(conn: Any, task: Any, kind: str, value: Any, actor: Actor, rid: str, t: float) -> None:
    """Store one answer of `actor` to `task` (in the caller's transaction)."""
    rows.insert_answer(
        conn,
        task_id=task.id,
        stream_id=task.stream_id,
        kind=kind,
        label=value,
        by=actor.name,
        key=actor.key,
        request_id=rid,
        t=t,
    )


def _event(task: Any, kind: str, label: Any, by: str) -> dict[str, Any]:
    return {
        "task_id": task.id,
        "decision_id": task.decision_id,
        "kind": kind,
        "label": label,
        "by": by,
    }
