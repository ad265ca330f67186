"""Label Studio's webhook events, validated: a malformed body is a 422, never a 500."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["LabelStudioEvent", "WebhookOut"]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")  # Label Studio sends more than cbeal reads


class ResultValue(_Open):
    choices: list[str] | None = None


class ResultItem(_Open):
    from_name: str | None = None
    type: str | None = None
    value: ResultValue = Field(default_factory=ResultValue)


class Annotation(_Open):
    id: int | None = None
    was_cancelled: bool = False
    result: list[ResultItem] = Field(default_factory=list)


class TaskData(_Open):
    cbeal_task: int | None = Field(default=None, ge=1, le=2**62)


class Task(_Open):
    data: TaskData = Field(default_factory=TaskData)


class LabelStudioEvent(_Open):
    """A webhook event as Label Studio sends it (the fields cbeal reads are checked)."""

    action: str = Field(max_length=100)
    task: Task | None = None
    annotation: Annotation | None = None


class WebhookOut(BaseModel):
    model_config = ConfigDict(extra="allow")  # the task, as GET /api/v1/tasks/{id} shows it
    ignored: str | None = Field(default=None, description="an event cbeal does not act on")
