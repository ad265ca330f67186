"""Integrations: Label Studio's webhook."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from cbeal.service.deps import Annotate, ServiceDep
from cbeal.service.engine.labelstudio import webhook_answer
from cbeal.service.schemas.common import errors
from cbeal.service.schemas.integrations import LabelStudioEvent, WebhookOut

__all__ = ["router"]

router = APIRouter(prefix="/api/v1/integrations", tags=["integrations"])


@router.post(
    "/label-studio/webhook", response_model=WebhookOut, responses=errors(404, 409, 422, 503)
)
def label_studio_webhook(
    event: LabelStudioEvent, who: Annotate, service: ServiceDep
) -> dict[str, Any]:
    """Take a label from a Label Studio annotation (created, updated or cancelled)."""
    answer = webhook_answer(event)
    if answer is None:
        return {"ignored": event.action}
    task_id, kind, choice = answer
    if kind == "skip":
        return service.tasks.skip(task_id)
    view = service.tasks.view(task_id)
    classes = service.streams.get(view["stream"]).config.classes
    label = next((c for c in classes if str(c) == str(choice)), None)
    if label is None:
        raise ValueError(f"the Label Studio choice {choice!r} is not one of {classes}")
    annotation = event.annotation.id if event.annotation is not None else None
    rid = f"label-studio-{annotation}-{choice}"[:100]
    if kind == "relabel" and view["status"] == "labelled" and view["label"] != label:
        service.tasks.undo(task_id)
    return service.tasks.label(task_id, label, rid, f"label-studio:{who.name}")
