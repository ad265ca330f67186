"""Integrations: Label Studio's webhook."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter

from cbeal.core import CbealError
from cbeal.service.api.routing import StrictRoute
from cbeal.service.api.tasks import actor
from cbeal.service.deps import Answer, ServiceDep
from cbeal.service.engine.labelstudio import ONE, answer_of, pairs, take, withdraw
from cbeal.service.engine.service import Service
from cbeal.service.engine.streams import NotFound
from cbeal.service.engine.tasks import Conflict, Forbidden
from cbeal.service.schemas.common import errors
from cbeal.service.schemas.integrations import LabelStudioEvent, WebhookOut

__all__ = ["router"]

router = APIRouter(prefix="/api/v1/integrations", tags=["integrations"], route_class=StrictRoute)

LEARNS = ("labelled", "relabelled")

# what an item of a bulk event answers instead of an error reply (as errors.py maps them)
_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (NotFound, 404),
    (Conflict, 409),
    (Forbidden, 403),
    (ValueError, 422),
    (CbealError, 422),
)


def _each(
    annotation: int | None, task_id: int | None, act: Callable[[], tuple[str, int | None]]
) -> dict[str, Any]:
    """One result of a bulk event: the outcome, or the refusal a single event would get."""
    try:
        outcome, done = act()
    except tuple(e for e, _ in _STATUS) as exc:
        status = next(s for e, s in _STATUS if isinstance(exc, e))
        return {
            "annotation": annotation,
            "task_id": task_id,
            "outcome": "refused",
            "status": status,
            "detail": str(exc),
        }
    return {"annotation": annotation, "task_id": done, "outcome": outcome, "status": 200}


@router.post(
    "/label-studio/webhook", response_model=WebhookOut, responses=errors(404, 409, 413, 422)
)
def label_studio_webhook(
    event: LabelStudioEvent, who: Answer, service: ServiceDep
) -> dict[str, Any]:
    """Take an answer from Label Studio: an annotation created, updated, skipped or deleted.

    An event about one annotation (``ANNOTATION_CREATED``, ``ANNOTATION_UPDATED``) answers
    with the task and the outcome, or the error the label endpoint would give; one about
    several (``ANNOTATIONS_CREATED``, ``ANNOTATIONS_DELETED``) with one result each. Other
    events are acknowledged and ignored.
    """
    by = actor(who, "label-studio")
    if event.action in ONE:
        ((annotation, task),) = pairs(event)
        outcome, view = take(service.tasks, answer_of(annotation, task), by)
        _count(service, outcome, view)
        return {**view, "outcome": outcome}
    if event.action == "ANNOTATIONS_CREATED":
        results = []
        for annotation, task in pairs(event):

            def act(annotation: Any = annotation, task: Any = task) -> tuple[str, int | None]:
                outcome, view = take(service.tasks, answer_of(annotation, task), by)
                _count(service, outcome, view)
                return outcome, view["task_id"]

            known = task.data.cbeal_task if task is not None else None
            results.append(_each(annotation.id, known, act))
        return {"results": results}
    if event.action == "ANNOTATIONS_DELETED":
        results = []
        for ref in event.annotations or []:

            def undo(annotation: int = ref.id) -> tuple[str, int | None]:
                reopened = withdraw(service.tasks, annotation, by)
                return ("withdrawn", reopened[0]) if reopened else ("unchanged", None)

            results.append(_each(ref.id, None, undo))
        return {"results": results}
    return {"ignored": event.action}


def _count(service: Service, outcome: str, view: dict[str, Any]) -> None:
    if outcome in LEARNS:
        service.metrics.labels.labels(view["stream"]).inc()
