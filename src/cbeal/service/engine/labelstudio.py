"""The service's side of the Label Studio bridge: what a webhook event does to cbeal's tasks.

The client side (the labelling configuration, push and pull) is
:mod:`cbeal.bridges.labelstudio`; the event's shape is checked by
:class:`~cbeal.service.schemas.integrations.LabelStudioEvent` before it gets here.

An annotation's answer is stored with the request id ``label-studio-<annotation id>@<its
updated_at>``, so the webhook and ``cbeal labelstudio pull`` (which sends the same events)
give each annotation to cbeal exactly once, a newer version of it replaces an older one
while the undo window is open, an older one arriving late changes nothing, and a deleted
annotation (whose event carries only its id) finds the task it labelled.

A classification stream's annotation answers with one choice of its ``<Choices>``
control, a regression stream's with the number typed in its ``<Number>`` control (a
measured value, checked as the label endpoint checks it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from cbeal.bridges.labelstudio import CONTROL
from cbeal.service.engine.tasks import Actor, Conflict, TaskOps
from cbeal.service.schemas.integrations import Annotation, LabelStudioEvent, Task
from cbeal.service.schemas.measured import measured_value
from cbeal.service.store import answers as answer_rows
from cbeal.service.store import tasks as rows

__all__ = [
    "ONE",
    "PREFIX",
    "Answer",
    "answer_of",
    "pairs",
    "request_id",
    "take",
    "withdraw",
]

PREFIX = "label-studio-"
ONE = ("ANNOTATION_CREATED", "ANNOTATION_UPDATED")  # events about one annotation


@dataclass(frozen=True)
class Answer:
    """What one Label Studio annotation says about one cbeal task."""

    task_id: int
    annotation: int
    version: str  # the annotation's updated_at ("" if Label Studio sent none)
    value: str | float | None  # a choice, a typed number; None: the annotator skipped
    annotator: int | None = None  # Label Studio's user id (completed_by), if sent


def request_id(annotation: int, version: str) -> str:
    return f"{PREFIX}{annotation}@{version}"


def _held(rid: str | None) -> tuple[int, str] | None:
    """(annotation id, version) of a request id this module stored, else None."""
    if not rid or not rid.startswith(PREFIX) or "@" not in rid:
        return None
    head, _, version = rid[len(PREFIX) :].partition("@")
    return (int(head), version) if head.isdigit() else None


def _when(version: str) -> datetime | None:
    if not version:
        return None
    try:
        when = datetime.fromisoformat(version)
    except ValueError:
        raise ValueError(
            f"the annotation's updated_at {version!r} is not an ISO 8601 date and time"
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def _older(version: str, than: str) -> bool:
    a, b = _when(version), _when(than)
    return b is not None and (a is None or a < b)


def pairs(event: LabelStudioEvent) -> list[tuple[Annotation, Task | None]]:
    """Each annotation of a created/updated event with its task.

    An event about one annotation (`ONE`) must carry one annotation and one task; the bulk
    event ``ANNOTATIONS_CREATED`` carries lists, matched by the annotation's ``task``.
    """
    annotation, task = event.annotation, event.task
    if annotation is None:
        raise ValueError(f"the {event.action} event carries no annotation")
    if event.action in ONE:
        if isinstance(annotation, list) or isinstance(task, list):
            raise ValueError(
                f"a {event.action} event carries one annotation and its task, not lists"
            )
        return [(annotation, task)]
    found = annotation if isinstance(annotation, list) else [annotation]
    tasks = task if isinstance(task, list) else [] if task is None else [task]
    by_id = {t.id: t for t in tasks if t.id is not None}
    alone = tasks[0] if len(tasks) == 1 else None
    return [(a, by_id.get(a.task, alone) if a.task is not None else alone) for a in found]


def answer_of(annotation: Annotation, task: Task | None) -> Answer:
    """The answer an annotation gives; ValueError (a 422) saying why there is none."""
    task_id = task.data.cbeal_task if task is not None else None
    if task_id is None:
        raise ValueError(
            "the Label Studio task carries no cbeal_task id; push tasks with "
            "`cbeal labelstudio push`"
        )
    if annotation.id is None:
        raise ValueError("the annotation has no id")
    version = annotation.updated_at or ""
    _when(version)  # a malformed date is refused before anything changes
    who = getattr(annotation, "completed_by", None)
    who = who.get("id") if isinstance(who, dict) else who
    annotator = who if isinstance(who, int) and not isinstance(who, bool) else None
    if annotation.was_cancelled:
        return Answer(task_id, annotation.id, version, None, annotator)
    for item in annotation.result:
        if item.from_name != CONTROL:
            continue
        if item.type == "choices":
            choices = item.value.choices or []
            if len(choices) == 1:
                return Answer(task_id, annotation.id, version, choices[0], annotator)
        if item.type == "number" and item.value.number is not None:
            return Answer(task_id, annotation.id, version, item.value.number, annotator)
    raise ValueError(f"the annotation has no single '{CONTROL}' choice and no '{CONTROL}' number")


def _label(stream: str, config: Any, value: str | float) -> Any:
    """The label an answer gives a task of `stream`; ValueError (a 422) saying why none."""
    if config.classes is None:  # a regression stream: a measured value
        if isinstance(value, str):
            raise ValueError(
                f"stream {stream!r} takes measured values, and the annotation chose "
                f"{value!r}: set the project up with `cbeal labelstudio config`, whose "
                f"'{CONTROL}' control is a number box"
            )
        return measured_value(value, config.unit)
    if not isinstance(value, str):
        raise ValueError(
            f"stream {stream!r} takes one of the classes {config.classes}, and the annotation "
            f"typed the number {value!r}: set the project up with `cbeal labelstudio config`"
        )
    label = next((c for c in config.classes if str(c) == value), None)
    if label is None:
        raise ValueError(f"the Label Studio choice {value!r} is not one of {config.classes}")
    return label


def take(tasks: TaskOps, answer: Answer, actor: Actor) -> tuple[str, dict[str, Any]]:
    """Make the cbeal task hold the annotation's answer: ``(outcome, the task)``.

    outcome is ``labelled``, ``relabelled`` (a newer version of the same annotation, within
    the undo window), ``skipped``, ``unchanged`` (cbeal has this answer already) or
    ``stale`` (an older version than the one cbeal holds). A task another answer holds, or
    whose label the model has learned already, raises :class:`Conflict` (a 409); a choice
    that is not one of the stream's classes, or a number that is not a plausible measured
    value (or the wrong kind of answer for the stream), ValueError (a 422).
    """
    task_id = answer.task_id
    view = tasks.view(task_id)  # NotFound (a 404) for an unknown task
    with tasks.streams.engine.connect() as conn:
        row = rows.task_row(conn, task_id)
    config = tasks.streams.get(view["stream"]).config
    if tasks.several(row, config):
        return _take_one_of_several(tasks, answer, annotator(actor, answer), row, config, view)
    held = _held(row.request_id)
    ours = held is not None and held[0] == answer.annotation
    if ours and held is not None and _older(answer.version, held[1]):
        return "stale", view
    status = row.status
    if answer.value is None:  # skipped in Label Studio: "not now"
        if ours and status == "labelled":
            tasks.undo(task_id, actor)
            status = "open"
        if status == "open":
            return "skipped", tasks.skip(task_id, actor)
        raise Conflict(
            f"task {task_id} is {status}; annotation {answer.annotation} was skipped in "
            "Label Studio, which changes nothing now"
        )
    label = _label(view["stream"], config, answer.value)
    rid = request_id(answer.annotation, answer.version)
    if status == "open":
        return "labelled", tasks.label(task_id, label, rid, actor)
    if ours and row.label == label:
        return "unchanged", view
    if ours and status == "labelled":
        tasks.undo(task_id, actor)  # Conflict if the window closed meanwhile
        return "relabelled", tasks.label(task_id, label, rid, actor)
    if ours and status == "learned":
        raise Conflict(
            f"task {task_id} was learned already with {row.label!r} (the undo window is "
            f"{tasks.undo_seconds:g} s); the change to {label!r} in Label Studio is not taken"
        )
    raise Conflict(
        f"task {task_id} is {status} by another answer ({row.labelled_by}); Label Studio "
        f"annotation {answer.annotation} is not taken"
    )


def annotator(actor: Actor, answer: Answer) -> Actor:
    """The webhook's caller acting for one annotation: on a part several experts answer,
    each Label Studio annotation is one answer (its own lease key), given by its annotator.

    >>> a = annotator(Actor("label-studio:hook", "label-studio:hook#2", group="label-studio:"),
    ...               Answer(7, 41, "", "ok", 3))
    >>> a.name, a.key, a.holds("label-studio:hook#2")
    ('label-studio:user-3', 'label-studio:annotation-41', True)
    """
    group = actor.group or ""
    name = f"{group}user-{answer.annotator}" if answer.annotator is not None else actor.name
    return replace(actor, name=name, key=f"{group}annotation-{answer.annotation}")


def _take_one_of_several(
    tasks: TaskOps, answer: Answer, by: Actor, row: Any, config: Any, view: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """An annotation of a part several experts answer: one answer of its own (a newer
    version replaces it, an older one changes nothing), or, on a disputed part and from a
    webhook whose token may review, the settlement."""
    task_id = answer.task_id
    mine = [a for a in tasks.answers_of(task_id) if a.lease_key == by.key]
    held = _held(mine[0].request_id) if mine else None
    if held is not None and _older(answer.version, held[1]):
        return "stale", view
    if answer.value is None:  # skipped: withdraw this annotation's answer, then "not now"
        if mine:
            tasks.undo(task_id, by)
        if tasks.view(task_id)["status"] == "open":
            return "skipped", tasks.skip(task_id, by)
        raise Conflict(
            f"task {task_id} is {row.status}; annotation {answer.annotation} was skipped in "
            "Label Studio, which changes nothing now"
        )
    label = _label(view["stream"], config, answer.value)
    rid = request_id(answer.annotation, answer.version)
    if mine and mine[0].label == label:
        return "unchanged", view
    if mine:
        tasks.undo(task_id, by)  # Conflict once the model learned the label
        return "relabelled", tasks.label(task_id, label, rid, by)
    return "labelled", tasks.label(task_id, label, rid, by)


def withdraw(tasks: TaskOps, annotation: int, actor: Actor) -> list[int]:
    """Withdraw the label a deleted annotation gave: the task is open again.

    Returns the tasks reopened (none if cbeal holds no label of the annotation: it was a
    skip, or never reached cbeal). After the undo window the model has learned the label
    and :class:`Conflict` (a 409) says so; the label stays.
    """
    with tasks.streams.engine.connect() as conn:
        found = rows.tasks_by_request_prefix(conn, f"{PREFIX}{annotation}@")
        several = answer_rows.answers_by_request_prefix(conn, f"{PREFIX}{annotation}@")
    done = []
    for row in found:
        if tasks.several(row, tasks.config_of(row.stream_id)):
            continue  # a part of several answers: withdrawn by its answer, below
        tasks.undo(row.id, actor)
        done.append(row.id)
    for got in several:
        with tasks.streams.engine.connect() as conn:
            task = rows.task_row(conn, got.task_id)
        if got.kind == "label" and tasks.several(task, tasks.config_of(task.stream_id)):
            tasks.undo(got.task_id, replace(actor, key=got.lease_key, name=got.answered_by))
            done.append(int(got.task_id))
    return done
