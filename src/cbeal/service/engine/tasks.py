"""The expert's queue: lease a task, label it, skip it, say "cannot tell", undo a label.

What each answer does (also in the README):

* **label** — stored at once (idempotent by ``request_id``); the model learns it after the
  undo window (``undo_seconds``), or at once when the window is 0: the reward is computed,
  the bandit and the agents update, the sample joins the labelled pool and a retrain is
  queued.
* **undo** — within the window, the label is withdrawn and the task is open again; after
  it, the model has learned the label and undo is refused (409).
* **skip** — "not now": the task goes back to the queue, behind the tasks never skipped.
  Nothing changes for the budget or the bandit.
* **cannot tell** — the task is closed without a label. The label stays spent (the
  expert's time was), the bandit and the agents treat the sample like a skipped one (no
  reward) and it never joins the labelled pool.
* **an expired lease** — the task is simply open again for the next expert.
* **an expired task** (``task_ttl_seconds``) — closed as if cancelled, and its label is
  given back to the budget.

Leases mean something (the rules are :mod:`~cbeal.service.engine.holds`): only a task's
holder answers it, only who labelled undoes, an admin's override is recorded. A lease
lasts at most ``max_lease_seconds`` and a token holds at most ``max_open_leases`` at a
time. Every change is one conditional update: of two answers racing for a task, the loser
changes nothing and gets a 409.
"""

from __future__ import annotations

from typing import Any

from cbeal.service.engine.experts import ExpertOps, record
from cbeal.service.engine.explain import asked_by, explain, question
from cbeal.service.engine.holds import Actor, Conflict, Forbidden, Unchanged
from cbeal.service.engine.streams import NotFound
from cbeal.service.store import answers as answer_rows
from cbeal.service.store import tasks as rows
from cbeal.service.store.events import now
from cbeal.service.store.tasks import Holder

__all__ = ["Actor", "Conflict", "Forbidden", "TaskOps"]

_FINAL = ("learned", "cannot_tell", "expired")  # the model has used (or dropped) the answer


class TaskOps(ExpertOps):
    """Task operations of one service process."""

    # ------------------------------------------------------------------ reading
    def view(self, task_id: int) -> dict[str, Any]:
        """A task as the API shows it: the sample, its decision and the answer so far."""
        with self.streams.engine.connect() as conn:
            r = rows.task_view_row(conn, task_id)
        if r is None:
            raise NotFound(f"no task {task_id}")
        d = r.decision
        return {
            "task_id": r.id,
            "stream": self._stream_name(r.stream_id),
            "status": r.status,
            "sample_id": r.sample_id,
            "x": r.x,
            "received_at": r.received_at,
            "created_at": r.created_at,
            "skips": r.skips,
            "lease_until": r.lease_until,
            "label": r.label,
            "labelled_at": r.labelled_at,
            "learned_at": r.learned_at,
            "reward": r.reward,
            "correct": r.correct,
            "question": question(d),
            "explanation": explain(d),
            "asked_by": asked_by(d),
            "decision": d,
            **self.answers_view(r),
        }

    # ------------------------------------------------------------------ queue
    def lease_next(
        self, name: str, holder: str, lease_seconds: float | None = None, held: bool = True
    ) -> dict[str, Any] | None:
        """Lease the oldest open task (tasks skipped fewer times first); None if none.

        With `held`, a task the holder leased already comes back first (a page reload);
        without, the next free task does (a bulk puller such as the Label Studio bridge).
        A lease lasts at most ``max_lease_seconds``; a holder holds at most
        ``max_open_leases`` (over every stream).
        """
        runtime = self.streams.get(name)  # the stream must exist (and be served here)
        seconds = lease_seconds or self.lease_seconds
        if seconds > self.max_lease_seconds:
            raise ValueError(
                f"lease_seconds may be at most {self.max_lease_seconds:g} "
                "(the service's maximum lease); ask for a shorter lease"
            )
        for _ in range(5):  # another expert may take the same task between read and update
            t = now()
            with self.streams.engine.begin() as conn:
                mine = rows.held_task(conn, runtime.stream_id, holder, t) if held else None
                if mine is not None:  # a page reload gets the same task back
                    return self.view(mine)
                free = rows.free_task(conn, runtime.stream_id, t, holder)
                if free is None:
                    return None
                holding = rows.open_leases(conn, holder, t)
                if holding >= self.max_open_leases:
                    raise Conflict(
                        f"this token holds {holding} task leases already (at most "
                        f"{self.max_open_leases}); answer or release some first "
                        "(POST /api/v1/tasks/{id}/release)"
                    )
                got = rows.lease_task(conn, free, holder, t, t + seconds)
            if got:
                return self.view(free)
        raise Conflict("the queue is busy; retry")

    def queue(self, name: str) -> dict[str, Any]:
        runtime = self.streams.get(name)
        t = now()
        with self.streams.engine.connect() as conn:
            found = rows.queue_rows(conn, runtime.stream_id)
        open_ = [r for r in found if r.status == "open"]
        leased = [r for r in open_ if r.lease_until is not None and r.lease_until > t]
        return {
            "open": len(open_),
            "leased": len(leased),
            "waiting_to_learn": sum(r.status == "labelled" for r in found),
            "waiting_for_review": sum(r.status == "disputed" for r in found),
            "oldest_age_seconds": round(t - min(r.created_at for r in open_), 1) if open_ else None,
        }

    # ------------------------------------------------------------------ answers
    def label(self, task_id: int, label: Any, request_id: str, actor: Actor) -> dict[str, Any]:
        task = self._task(task_id)
        runtime = self.streams.get(self._stream_name(task.stream_id))
        value = runtime.label(label)  # unknown class: ValueError, nothing stored
        if task.status == "disputed":
            self.settle(task, runtime, value, request_id, actor)
            return self._after_answer(task_id, "labelled")
        if self.several(task, runtime.config):
            outcome = self.answer(task, runtime, value, request_id, actor)
            return self._after_answer(task_id, outcome)
        if not actor.labeller:
            raise Forbidden(
                f"task {task_id} waits for a labeller's answer; a token with role review "
                "settles disputed parts only (GET /api/v1/streams/{name}/reviews/next)"
            )
        if task.status != "open":
            if task.request_id == request_id and task.label == value:
                return self.view(task_id)  # the same request again
            if task.status in _FINAL:
                raise self._final(task)
            raise Conflict(
                f"task {task_id} is {task.status}; undo that answer first "
                f"(POST /api/v1/tasks/{task_id}/undo, within {self.undo_seconds:g} s of it)"
            )

        def write(conn: Any, holder: Holder | None, t: float) -> bool:
            done = rows.set_labelled(
                conn, task_id, value, request_id, actor.name, t, holder, actor.key
            )
            if done:  # the answer, as every answer (the agreement report, the export)
                record(conn, task, "label", value, actor, request_id, t)
            return done

        if not self._change(task, actor, "label", write):
            again = self._task(task_id)
            free = again.lease_until is None or again.lease_until <= now()
            mine = actor.admin or actor.holds(again.lease_owner)
            if again.status == "open" and not free and not mine:
                raise self._held_elsewhere(again, "label")
            return self.label(task_id, label, request_id, actor)  # answer from the new state
        if self.undo_seconds <= 0:
            self.learn_due(task_id)
        return self.view(task_id)

    def _after_answer(self, task_id: int, outcome: str | None) -> dict[str, Any]:
        if outcome == "labelled" and self.undo_seconds <= 0:
            self.learn_due(task_id)
        return self.view(task_id)

    def undo(self, task_id: int, actor: Actor) -> dict[str, Any]:
        """Withdraw a label within the undo window: the task is open again, leased to
        `actor` (who will label it again). Only who labelled it (or an admin) may."""
        task = self._task(task_id)
        if task.status in ("open", "labelled", "disputed") and self.several(
            task, self.config_of(task.stream_id)
        ):
            self.withdraw(task, self.answers_of(task_id), actor)
            return self.view(task_id)

        def write(conn: Any, holder: Holder | None, t: float) -> bool:
            done = rows.reopen_task(conn, task_id, t, holder, actor.key, t + self.lease_seconds)
            if done:
                answer_rows.delete_answer(conn, task_id, "label")
            return done

        if task.status == "labelled" and self._change(task, actor, "undo", write):
            return self.view(task_id)
        task = self._task(task_id)
        if task.status in _FINAL:
            raise self._final(task)
        if task.status == "open":
            raise Conflict(f"task {task_id} is open: it holds no answer to undo")
        raise self._held_elsewhere(task, "undo")

    def _final(self, task: Any) -> Conflict:
        # no advice to undo here: past the window nothing can, so say what is final
        when = (
            "at once (the undo window is 0 s)"
            if self.undo_seconds <= 0
            else f"{self.undo_seconds:g} s after it is given (the undo window)"
        )
        return Conflict(
            f"task {task.id} was {task.status.replace('_', ' ')} already: its answer is final "
            f"(the model takes an answer {when}; after that it cannot be changed or undone)"
        )

    def skip(self, task_id: int, actor: Actor) -> dict[str, Any]:
        task = self._task(task_id)
        if task.status != "open":
            raise Conflict(f"task {task_id} is {task.status}; only open tasks can be skipped")

        def write(conn: Any, holder: Holder | None, t: float) -> bool:
            return rows.skip_task(conn, task_id, t, holder)

        if not self._change(task, actor, "skip", write):
            raise self._refusal(task_id, "skip")
        return self.view(task_id)

    def release(self, task_id: int, actor: Actor) -> dict[str, Any]:
        """Give the lease of an open task back: the task is free for the next expert."""
        task = self._task(task_id)
        t = now()
        held = task.status in ("open", "disputed")  # a labeller's lease, or a review's
        if not held or task.lease_until is None or task.lease_until <= t:
            raise Conflict(f"task {task_id} is not leased ({task.status}): nothing to release")

        def write(conn: Any, holder: Holder | None, t: float) -> bool:
            return rows.release_task(conn, task_id, t, holder)

        if not self._change(task, actor, "release", write):
            raise self._refusal(task_id, "release")
        return self.view(task_id)

    def cannot_tell(self, task_id: int, request_id: str, actor: Actor) -> dict[str, Any]:
        task = self._task(task_id)
        if task.status == "cannot_tell" and task.request_id == request_id:
            return self.view(task_id)
        if task.status == "disputed" and not actor.reviewer:
            raise Forbidden(f"task {task_id} is disputed; only a reviewer may close it")
        if task.status == "open":
            runtime = self.streams.get(self._stream_name(task.stream_id))
            if self.several(task, runtime.config):
                self.answer(task, runtime, None, request_id, actor, kind="cannot_tell")
                return self.view(task_id)
        if task.status not in ("open", "disputed"):
            raise Conflict(f"task {task_id} is {task.status}")
        self._close(task, "cannot_tell", refund=False, request_id=request_id, actor=actor)
        return self.view(task_id)

    # ------------------------------------------------------------------ to the model
    def learn_due(self, task_id: int | None = None) -> int:
        """Teach the model the labels whose undo window has passed (or task `task_id`)."""
        with self.streams.engine.connect() as conn:
            due = rows.due_labels(conn, task_id, now() - self.undo_seconds)
        owned = {rt.stream_id for rt in self.streams.owned().values()}
        done = 0
        for row in due:
            if task_id is None and row.stream_id not in owned:
                continue  # another process serves that stream
            done += self._learn(row.id)
        return done

    def _learn(self, task_id: int) -> int:
        task = self._task(task_id)
        name = self._stream_name(task.stream_id)
        runtime = self.streams.get(name)
        with runtime.lock:
            with self.streams.engine.connect() as conn:
                fresh = rows.task_with_decision(conn, task_id)
            if fresh is None or fresh.status != "labelled":
                return 0  # undone, or learned by another call
            d = fresh.decision
            reward = runtime.reward(d, fresh.label)  # reads the model, changes nothing
            correct = runtime.correct(d, fresh.label)
            event = {"task_id": task_id, "decision_id": fresh.decision_id, "label": fresh.label}
            todo: list[tuple[str, dict[str, Any]]] = [("label", event)]
            changed = False  # once the model changed, a failure must drop it
            try:
                with self.streams.engine.begin() as conn:
                    # first the task (it stays locked to the commit): an undo that won the
                    # race leaves it unchanged, and the model untouched
                    if not rows.mark_learned(conn, task_id, reward, correct, now()):
                        raise Unchanged
                    changed = True
                    if runtime.learn(fresh.decision_id, fresh.label):
                        runtime.start()
                        todo.append(("start", {}))
                    seq = self._append(conn, runtime, todo)
            except Unchanged:
                return 0
            except BaseException:
                if changed:
                    self.streams.drop(name, runtime)
                raise
            runtime.seq = seq
            if self.after_learning is not None:
                self.after_learning(name, runtime)
        return 1

    def _close(
        self,
        task: Any,
        status: str,
        *,
        refund: bool,
        request_id: str | None,
        actor: Actor | None,
    ) -> None:
        """Close an open task without a label (cannot tell: by `actor`; expired: by the
        service, `actor` None). A lost race changes nothing and raises Conflict."""
        name = self._stream_name(task.stream_id)
        runtime = self.streams.get(name)
        t = now()
        override = self._overrides(task, actor, t)
        holder = None if actor is None or override else actor.holder
        by = None if actor is None else actor.name
        with runtime.lock:
            changed = False  # once the model changed, a failure must drop it
            try:
                with self.streams.engine.begin() as conn:
                    # first the task (it stays locked to the commit), then the model
                    if not rows.close_task(conn, task.id, status, request_id, by, t, holder):
                        raise Unchanged
                    todo = [self._override(task, actor, status)] if override and actor else []
                    changed = True
                    runtime.cancel(task.decision_id, refund)
                    event = {"task_id": task.id, "decision_id": task.decision_id, "refund": refund}
                    todo.append(("cancel", event))
                    seq = self._append(conn, runtime, todo)
            except Unchanged:
                raise self._refusal(task.id, "close") from None
            except BaseException:
                if changed:
                    self.streams.drop(name, runtime)
                raise
            runtime.seq = seq

    def expire(self) -> int:
        """Close open tasks older than their stream's ``task_ttl_seconds`` (label refunded)."""
        n = 0
        for runtime in self.streams.owned().values():
            ttl = runtime.config.task_ttl_seconds
            if ttl is None:
                continue
            with self.streams.engine.connect() as conn:
                old = rows.old_open_tasks(conn, runtime.stream_id, now() - ttl)
            for task in old:
                try:
                    self._close(task, "expired", refund=True, request_id=None, actor=None)
                except Conflict:
                    continue  # answered meanwhile
                n += 1
        return n
