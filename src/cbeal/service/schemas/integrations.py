"""Label Studio's webhook events, validated: a malformed body is a 422, never a 500.

The shapes are those Label Studio 1.23 sends (recorded in
``tests/data/labelstudio_webhooks.json``): one annotation and its task for
``ANNOTATION_CREATED`` / ``ANNOTATION_UPDATED``, lists of both for ``ANNOTATIONS_CREATED``
(predictions accepted in bulk), a list of ``{"id"}`` for ``ANNOTATIONS_DELETED``. A
result holds ``{"choices": [...]}`` (a ``<Choices>`` control) or ``{"number": ...}`` (a
``<Number>`` control, a regression stream's measured value). Only the
fields cbeal reads are checked; Label Studio's others pass through.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["LabelStudioEvent", "WebhookOut", "WebhookResult"]

Id = Annotated[int, Field(ge=1, le=2**62)]


class _Open(BaseModel):
    # Label Studio sends more than cbeal reads; what cbeal reads has its JSON type
    model_config = ConfigDict(extra="allow", strict=True)


class ResultValue(_Open):
    choices: list[str] | None = None
    number: float | None = Field(
        default=None, description="the value typed in a Number control (a regression stream)"
    )


class ResultItem(_Open):
    from_name: str | None = None
    type: str | None = None
    value: ResultValue = Field(default_factory=ResultValue)


class Annotation(_Open):
    id: Id | None = None
    task: Id | None = Field(default=None, description="Label Studio's task id")
    was_cancelled: bool = False
    result: list[ResultItem] = Field(default_factory=list)
    updated_at: str | None = Field(
        default=None, max_length=40, description="when the annotation was last changed"
    )


class TaskData(_Open):
    cbeal_task: Id | None = None


class Task(_Open):
    id: Id | None = None
    data: TaskData = Field(default_factory=TaskData)


class AnnotationRef(_Open):
    id: Id


class LabelStudioEvent(_Open):
    """A webhook event as Label Studio sends it (the fields cbeal reads are checked)."""

    action: str = Field(max_length=100)
    task: Task | list[Task] | None = None
    annotation: Annotation | list[Annotation] | None = None
    annotations: list[AnnotationRef] | None = Field(
        default=None, description="the deleted annotations (ANNOTATIONS_DELETED)"
    )


class WebhookResult(BaseModel):
    annotation: int | None = Field(description="Label Studio's annotation id")
    task_id: int | None = Field(description="cbeal's task id")
    outcome: str = Field(
        description="labelled, relabelled, skipped, unchanged, stale, withdrawn, or refused"
    )
    status: int = Field(description="the HTTP status a single event would have had")
    detail: str | None = None


class WebhookOut(BaseModel):
    """The task (as ``GET /api/v1/tasks/{id}`` shows it) for an event about one
    annotation; one result per annotation for an event about several."""

    model_config = ConfigDict(extra="allow")
    ignored: str | None = Field(default=None, description="an event cbeal does not act on")
    outcome: str | None = Field(
        default=None, description="labelled, relabelled, skipped, unchanged or stale"
    )
    results: list[WebhookResult] | None = None
