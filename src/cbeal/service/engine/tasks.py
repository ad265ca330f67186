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
"""

from __future__ import annotations

from typing import Any

from cbeal.service.engine.explain import asked_by, explain, question
from cbeal.service.engine.streams import NotFound, Streams
from cbeal.service.store import events
from cbeal.service.store import streams as stream_rows
from cbeal.service.store import tasks as rows
from cbeal.service.store.events import LeaseLost, now

__all__ = ["Conflict", "TaskOps"]

OPEN_STATES = ("open",)


class Conflict(RuntimeError):
    """The request contradicts the task's state (already labelled, already learned, …)."""


class TaskOps:
    """Task operations of one service process."""

    def __init__(self, streams: Streams, *, undo_seconds: float, lease_seconds: float) -> None:
        self.streams = streams
        self.undo_seconds = undo_seconds
        self.lease_seconds = lease_seconds
        self.after_learning: Any = None  # called with (name, runtime) after a label is learned

    # ------------------------------------------------------------------ reading
    def _task(self, task_id: int) -> Any:
        with self.streams.engine.connect() as conn:
            row = rows.task_row(conn, task_id)
        if row is None:
            raise NotFound(f"no task {task_id}")
        return row

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
        }

    # ------------------------------------------------------------------ queue
    def lease_next(
        self, name: str, holder: str, lease_seconds: float | None = None, held: bool = True
    ) -> dict[str, Any] | None:
        """Lease the oldest open task (tasks skipped fewer times first); None if none.

        With `held`, a task the holder leased already comes back first (a page reload);
        without, the next free task does (a bulk puller such as the Label Studio bridge).
        """
        runtime = self.streams.get(name)  # the stream must exist (and be served here)
        seconds = lease_seconds or self.lease_seconds
        for _ in range(5):  # another expert may take the same task between read and update
            t = now()
            with self.streams.engine.begin() as conn:
                mine = rows.held_task(conn, runtime.stream_id, holder, t) if held else None
                if mine is not None:  # a page reload gets the same task back
                    return self.view(mine)
                free = rows.free_task(conn, runtime.stream_id, t)
                if free is None:
                    return None
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
            "oldest_age_seconds": round(t - min(r.created_at for r in open_), 1) if open_ else None,
        }

    # ------------------------------------------------------------------ answers
    def label(self, task_id: int, label: Any, request_id: str, by: str) -> dict[str, Any]:
        task = self._task(task_id)
        runtime = self.streams.get(self._stream_name(task.stream_id))
        value = runtime.label(label)  # unknown class: ValueError, nothing stored
        if task.status != "open":
            if task.request_id == request_id and task.label == value:
                return self.view(task_id)  # the same request again
            raise Conflict(f"task {task_id} is {task.status}; undo the answer first")
        with self.streams.engine.begin() as conn:
            done = rows.set_labelled(conn, task_id, value, request_id, by, now())
        if not done:
            return self.label(task_id, label, request_id, by)  # raced: answer from the new state
        if self.undo_seconds <= 0:
            self.learn_due(task_id)
        return self.view(task_id)

    def undo(self, task_id: int) -> dict[str, Any]:
        task = self._task(task_id)
        if task.status in ("learned", "cannot_tell", "expired"):
            raise Conflict(
                f"task {task_id} was {task.status} already; the model has used the "
                f"answer (the undo window is {self.undo_seconds:g} s)"
            )
        with self.streams.engine.begin() as conn:
            rows.reopen_task(conn, task_id)
        view = self.view(task_id)
        if view["status"] != "open":
            raise Conflict(f"task {task_id} is {view['status']}: too late to undo")
        return view

    def skip(self, task_id: int) -> dict[str, Any]:
        task = self._task(task_id)
        if task.status != "open":
            raise Conflict(f"task {task_id} is {task.status}; only open tasks can be skipped")
        with self.streams.engine.begin() as conn:
            rows.skip_task(conn, task_id)
        return self.view(task_id)

    def cannot_tell(self, task_id: int, request_id: str, by: str) -> dict[str, Any]:
        task = self._task(task_id)
        if task.status == "cannot_tell" and task.request_id == request_id:
            return self.view(task_id)
        if task.status != "open":
            raise Conflict(f"task {task_id} is {task.status}")
        self._close(task, "cannot_tell", refund=False, request_id=request_id, by=by)
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
            try:
                reward = runtime.reward(d, fresh.label)
                todo: list[tuple[str, dict[str, Any]]] = [
                    (
                        "label",
                        {
                            "task_id": task_id,
                            "decision_id": fresh.decision_id,
                            "label": fresh.label,
                        },
                    )
                ]
                if runtime.learn(fresh.decision_id, fresh.label):
                    runtime.start()
                    todo.append(("start", {}))
                correct = None if d["y_pred"] is None else d["y_pred"] == fresh.label
                with self.streams.engine.begin() as conn:
                    seq = self._append(conn, runtime, todo)
                    if not rows.mark_learned(conn, task_id, reward, correct, now()):
                        raise LeaseLost(f"task {task_id} changed while it was learned")
                runtime.seq = seq
            except BaseException:
                self.streams.drop(name, runtime)
                raise
            if self.after_learning is not None:
                self.after_learning(name, runtime)
        return 1

    def _append(self, conn: Any, runtime: Any, todo: list[tuple[str, dict[str, Any]]]) -> int:
        return events.append_events(
            conn,
            runtime.stream_id,
            self.streams.owner,
            runtime.seq,
            todo,
            self.streams.lease_seconds,
        )

    def _close(
        self, task: Any, status: str, *, refund: bool, request_id: str | None, by: str | None
    ) -> None:
        name = self._stream_name(task.stream_id)
        runtime = self.streams.get(name)
        with runtime.lock:
            try:
                runtime.cancel(task.decision_id, refund)
                event = {"task_id": task.id, "decision_id": task.decision_id, "refund": refund}
                with self.streams.engine.begin() as conn:
                    seq = self._append(conn, runtime, [("cancel", event)])
                    if not rows.close_task(conn, task.id, status, request_id, by, now()):
                        raise LeaseLost(f"task {task.id} changed while it was closed")
                runtime.seq = seq
            except BaseException:
                self.streams.drop(name, runtime)
                raise

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
                self._close(task, "expired", refund=True, request_id=None, by=None)
                n += 1
        return n

    def _stream_name(self, stream_id: int) -> str:
        for name, rt in self.streams.owned().items():
            if rt.stream_id == stream_id:
                return name
        with self.streams.engine.connect() as conn:
            found = stream_rows.stream_name(conn, stream_id)
        if found is None:
            raise NotFound(f"no stream {stream_id}")
        return found
