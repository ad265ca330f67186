"""The service's side of the Label Studio bridge: which answer a webhook event carries.

The client side (the labelling configuration, pushing tasks) is
:mod:`cbeal.bridges.labelstudio`; the event's shape is checked by
:class:`~cbeal.service.schemas.integrations.LabelStudioEvent` before it gets here.
"""

from __future__ import annotations

from typing import Any

from cbeal.bridges.labelstudio import CONTROL
from cbeal.service.schemas.integrations import LabelStudioEvent

__all__ = ["webhook_answer"]

ACTIONS = ("ANNOTATION_CREATED", "ANNOTATION_UPDATED")


def webhook_answer(event: LabelStudioEvent) -> tuple[int, str, Any] | None:
    """``(cbeal task id, kind, label)`` for a Label Studio webhook event, else None.

    kind is ``"label"``, ``"relabel"`` (an updated annotation) or ``"skip"``; an event
    that cannot be acted on raises ValueError (a 422) saying why.
    """
    if event.action not in ACTIONS:
        return None
    task_id = event.task.data.cbeal_task if event.task is not None else None
    if task_id is None:
        raise ValueError(
            "the Label Studio task carries no cbeal_task id; push tasks with "
            "`cbeal labelstudio push`"
        )
    annotation = event.annotation
    if annotation is None:
        raise ValueError("the event carries no annotation")
    if annotation.was_cancelled:
        return task_id, "skip", None
    for item in annotation.result:
        if item.from_name == CONTROL and item.type == "choices":
            choices = item.value.choices or []
            if len(choices) == 1:
                kind = "label" if event.action == "ANNOTATION_CREATED" else "relabel"
                return task_id, kind, choices[0]
    raise ValueError(f"the annotation has no single '{CONTROL}' choice")
