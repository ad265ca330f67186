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

from sqlalchemy import and_, or_, select, update

from cbeal.service import store
from cbeal.service.explain import explain, question_kind
from cbeal.service.schema import samples, tasks
from cbeal.service.streams import NotFound, Streams

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
            row = conn.execute(select(tasks).where(tasks.c.id == task_id)).first()
        if row is None:
            raise NotFound(f"no task {task_id}")
        return row

    def view(self, task_id: int) -> dict[str, Any]:
        """A task as the API shows it: the sample, the decision and the answer so far."""
        q = (
            select(
                tasks, samples.c.sample_id, samples.c.x, samples.c.decision, samples.c.received_at
            )
            .select_from(tasks.join(samples, samples.c.id == tasks.c.sample_pk))
            .where(tasks.c.id == task_id)
        )
        with self.streams.engine.connect() as conn:
            r = conn.execute(q).first()
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
            "decision_id": d["id"],
            "prediction": d["y_pred"],
            "certainty": d["certainty"],
            "question": question_kind(d),
            "explanation": explain(d),
            "asked_by": [
                n
                for n, p in zip(d.get("agent_names", []), d.get("advice", []), strict=True)
                if p >= 0.5
            ],
            "model_version": d["learner_version"],
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
            t = store.now()
            with self.streams.engine.begin() as conn:
                mine = (
                    None
                    if not held
                    else conn.execute(
                        select(tasks.c.id)
                        .where(
                            tasks.c.stream_id == runtime.stream_id,
                            tasks.c.status == "open",
                            tasks.c.lease_owner == holder,
                            tasks.c.lease_until > t,
                        )
                        .order_by(tasks.c.id)
                        .limit(1)
                    ).first()
                )
                if mine is not None:  # a page reload gets the same task back
                    return self.view(mine.id)
                free = or_(tasks.c.lease_until.is_(None), tasks.c.lease_until <= t)
                row = conn.execute(
                    select(tasks.c.id)
                    .where(tasks.c.stream_id == runtime.stream_id, tasks.c.status == "open", free)
                    .order_by(tasks.c.skips, tasks.c.id)
                    .limit(1)
                ).first()
                if row is None:
                    return None
                got = conn.execute(
                    update(tasks)
                    .where(tasks.c.id == row.id, free, tasks.c.status == "open")
                    .values(lease_owner=holder, lease_until=t + seconds)
                )
            if got.rowcount == 1:
                return self.view(row.id)
        raise Conflict("the queue is busy; retry")

    def queue(self, name: str) -> dict[str, Any]:
        runtime = self.streams.get(name)
        t = store.now()
        with self.streams.engine.connect() as conn:
            rows = conn.execute(
                select(tasks.c.status, tasks.c.created_at, tasks.c.lease_until).where(
                    tasks.c.stream_id == runtime.stream_id, tasks.c.status.in_(("open", "labelled"))
                )
            ).all()
        open_ = [r for r in rows if r.status == "open"]
        leased = [r for r in open_ if r.lease_until is not None and r.lease_until > t]
        return {
            "open": len(open_),
            "leased": len(leased),
            "waiting_to_learn": sum(r.status == "labelled" for r in rows),
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
            res = conn.execute(
                update(tasks)
                .where(tasks.c.id == task_id, tasks.c.status == "open")
                .values(
                    status="labelled",
                    label=value,
                    request_id=request_id,
                    labelled_at=store.now(),
                    labelled_by=by,
                    lease_owner=None,
                    lease_until=None,
                )
            )
        if res.rowcount != 1:
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
            conn.execute(
                update(tasks)
                .where(tasks.c.id == task_id, tasks.c.status == "labelled")
                .values(
                    status="open", label=None, request_id=None, labelled_at=None, labelled_by=None
                )
            )
        view = self.view(task_id)
        if view["status"] != "open":
            raise Conflict(f"task {task_id} is {view['status']}: too late to undo")
        return view

    def skip(self, task_id: int) -> dict[str, Any]:
        task = self._task(task_id)
        if task.status != "open":
            raise Conflict(f"task {task_id} is {task.status}; only open tasks can be skipped")
        with self.streams.engine.begin() as conn:
            conn.execute(
                update(tasks)
                .where(tasks.c.id == task_id, tasks.c.status == "open")
                .values(skips=tasks.c.skips + 1, lease_owner=None, lease_until=None)
            )
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
        t = store.now()
        cond = [tasks.c.status == "labelled"]
        cond.append(
            tasks.c.id == task_id
            if task_id is not None
            else tasks.c.labelled_at <= t - self.undo_seconds
        )
        with self.streams.engine.connect() as conn:
            due = conn.execute(
                select(tasks.c.id, tasks.c.stream_id)
                .where(and_(*cond))
                .order_by(tasks.c.labelled_at, tasks.c.id)
            ).all()
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
                fresh = conn.execute(
                    select(tasks, samples.c.decision)
                    .select_from(tasks.join(samples, samples.c.id == tasks.c.sample_pk))
                    .where(tasks.c.id == task_id)
                ).first()
            if fresh is None or fresh.status != "labelled":
                return 0  # undone, or learned by another call
            d = fresh.decision
            try:
                reward = runtime.reward(d, fresh.label)
                events: list[tuple[str, dict[str, Any]]] = [
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
                    events.append(("start", {}))
                with self.streams.engine.begin() as conn:
                    seq = store.append_events(
                        conn,
                        runtime.stream_id,
                        self.streams.owner,
                        runtime.seq,
                        events,
                        self.streams.lease_seconds,
                    )
                    res = conn.execute(
                        update(tasks)
                        .where(tasks.c.id == task_id, tasks.c.status == "labelled")
                        .values(
                            status="learned",
                            learned_at=store.now(),
                            reward=reward,
                            correct=None if d["y_pred"] is None else d["y_pred"] == fresh.label,
                        )
                    )
                    if res.rowcount != 1:
                        raise store.LeaseLost(f"task {task_id} changed while it was learned")
                runtime.seq = seq
            except BaseException:
                self.streams.drop(name, runtime)
                raise
            if self.after_learning is not None:
                self.after_learning(name, runtime)
        return 1

    def _close(
        self, task: Any, status: str, *, refund: bool, request_id: str | None, by: str | None
    ) -> None:
        name = self._stream_name(task.stream_id)
        runtime = self.streams.get(name)
        with runtime.lock:
            try:
                runtime.cancel(task.decision_id, refund)
                with self.streams.engine.begin() as conn:
                    seq = store.append_events(
                        conn,
                        runtime.stream_id,
                        self.streams.owner,
                        runtime.seq,
                        [
                            (
                                "cancel",
                                {
                                    "task_id": task.id,
                                    "decision_id": task.decision_id,
                                    "refund": refund,
                                },
                            )
                        ],
                        self.streams.lease_seconds,
                    )
                    res = conn.execute(
                        update(tasks)
                        .where(tasks.c.id == task.id, tasks.c.status == "open")
                        .values(
                            status=status,
                            request_id=request_id,
                            labelled_at=store.now(),
                            labelled_by=by,
                            lease_owner=None,
                            lease_until=None,
                        )
                    )
                    if res.rowcount != 1:
                        raise store.LeaseLost(f"task {task.id} changed while it was closed")
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
                old = conn.execute(
                    select(tasks).where(
                        tasks.c.stream_id == runtime.stream_id,
                        tasks.c.status == "open",
                        tasks.c.created_at < store.now() - ttl,
                    )
                ).all()
            for task in old:
                self._close(task, "expired", refund=True, request_id=None, by=None)
                n += 1
        return n

    def _stream_name(self, stream_id: int) -> str:
        for name, rt in self.streams.owned().items():
            if rt.stream_id == stream_id:
                return name
        from cbeal.service.schema import streams

        with self.streams.engine.connect() as conn:
            row = conn.execute(select(streams.c.name).where(streams.c.id == stream_id)).first()
        if row is None:
            raise NotFound(f"no stream {stream_id}")
        return str(row.name)
