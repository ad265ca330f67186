"""The service's side of the Label Studio bridge: the webhook events it takes labels from.

The client side (the labelling configuration, pushing tasks) is
:mod:`cbeal.bridges.labelstudio`.
"""

from __future__ import annotations

from typing import Any

from cbeal.bridges.labelstudio import CONTROL

__all__ = ["webhook_answer"]


def webhook_answer(event: dict[str, Any]) -> tuple[int, str, Any] | None:
    """``(cbeal task id, kind, label)`` for a Label Studio webhook event, else None.

    kind is ``"label"``, ``"relabel"`` (an updated annotation) or ``"skip"``.
    """
    action = event.get("action")
    if action not in ("ANNOTATION_CREATED", "ANNOTATION_UPDATED"):
        return None
    task = event.get("task") or {}
    annotation = event.get("annotation") or {}
    task_id = (task.get("data") or {}).get("cbeal_task")
    if not isinstance(task_id, int):
        raise ValueError(
            "the Label Studio task carries no cbeal_task id; push tasks with "
            "`cbeal labelstudio push`"
        )
    if annotation.get("was_cancelled"):
        return task_id, "skip", None
    for item in annotation.get("result") or []:
        if item.get("from_name") == CONTROL and item.get("type") == "choices":
            choices = (item.get("value") or {}).get("choices") or []
            if len(choices) == 1:
                kind = "label" if action == "ANNOTATION_CREATED" else "relabel"
                return task_id, kind, choices[0]
    raise ValueError(f"the annotation has no single '{CONTROL}' choice")
