"""The expert's tasks: what a task shows, and the answers to it."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from cbeal.service.schemas.decisions import AgentRef, DecisionOut, QuestionOut
from cbeal.service.schemas.streams import Label

__all__ = ["AnswerIn", "AnswerOut", "ContextOut", "LabelIn", "TaskOut"]

RequestId = Annotated[str, Field(min_length=1, max_length=100)]


class LabelIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    label: Label
    request_id: RequestId


class AnswerIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    request_id: RequestId


class AnswerOut(BaseModel):
    kind: str = Field(description="label, cannot_tell, or settle (a reviewer's)")
    label: Any
    by: str = Field(description="the name of the token that answered")
    at: float = Field(description="when (UTC seconds)")


class TaskOut(BaseModel):
    task_id: int
    stream: str
    status: str = Field(
        description="open, labelled, learned, cannot_tell, expired, or disputed (several "
        "answers differ: waiting for review)"
    )
    sample_id: str
    x: list[float | None] = Field(description="the part's values in the stream's feature order")
    received_at: float
    created_at: float
    skips: int
    lease_until: float | None
    label: Any
    labelled_at: float | None
    learned_at: float | None
    reward: float | None
    correct: bool | None = Field(
        description="whether the model's prediction was right (regression: within the tolerance)"
    )
    question: QuestionOut | None
    explanation: str
    asked_by: list[AgentRef]
    decision: DecisionOut
    answers_needed: int = Field(
        default=1, description="how many experts answer this part (the stream's settings)"
    )
    answers_given: int = Field(default=0, description="experts' answers so far")
    answers: list[AnswerOut] = Field(
        default_factory=list,
        description="who answered what, once the answers are in (never while open)",
    )


class FeatureOut(BaseModel):
    name: str
    value: float | None
    percentile: float | None
    z: float | None
    unusual: bool


class StripOut(BaseModel):
    name: str
    value: float | None
    pool: dict[str, list[float]] = Field(
        description="labelled values of the feature, by class (regression: one group)"
    )


class ContextOut(BaseModel):
    features: list[FeatureOut] = Field(description="most unusual first")
    strips: list[StripOut]
    pool_size: int
    failure_class: Any
    classes: list[Any] = Field(description="the classes (regression: the one group's name)")
    task: str = Field(description="classification or regression")
    tolerance: float | None = Field(description="regression: the band's half-width")
    unit: str | None = Field(description="regression: the measured value's unit")
    show_guess: bool = Field(
        description="the stream's setting: the page shows the model's guess (off by default "
        "for classes: seeing it first pulls the answer towards it)"
    )
