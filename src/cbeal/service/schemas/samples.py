"""Samples in, decisions out (``POST /api/v1/streams/{name}/samples``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from cbeal.service.schemas.decisions import DecisionOut
from cbeal.service.schemas.streams import Row

__all__ = ["SampleIn", "SampleReply", "SamplesIn", "SamplesReply"]


class SampleIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    id: str = Field(min_length=1, max_length=200, description="your id of the part (idempotent)")
    x: Row


class SamplesIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    samples: list[SampleIn] = Field(min_length=1, max_length=10_000)


class SampleReply(BaseModel):
    sample_id: str
    seq: int = Field(description="the sample's event number in the stream's log")
    acquire: bool = Field(description="ask the expert for this part's label (= decision.acquire)")
    task_id: int | None = Field(description="the task that asks for the label, if acquired")
    explanation: str = Field(description="the decision in one sentence")
    decision: DecisionOut
    duplicate: bool = Field(description="the id was seen before: its stored decision")


class SamplesReply(BaseModel):
    decisions: list[SampleReply] = Field(description="one per sample, in the request's order")
