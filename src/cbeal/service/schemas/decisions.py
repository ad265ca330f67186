"""A decision as the API shows it: exactly :meth:`cbeal.Decision.to_dict`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["AgentRef", "DecisionOut", "QuestionOut"]


class DecisionOut(BaseModel):
    """``Decision.to_dict()``: a model's decision, or the service's own one (cold start,
    initial set) with the model's fields empty."""

    model_config = ConfigDict(extra="allow")  # a policy may add fields (e.g. a fused score)
    id: str | None = Field(description="the decision id; label a task by it")
    t: int | None = Field(description="position in the model's stream (None: no model yet)")
    acquire: bool = Field(description="whether the expert is asked for the label")
    p_acquire: float | None = Field(description="probability the acquire arm was drawn with")
    advice: list[float] = Field(description="each agent's acquisition probability")
    weights: list[float] = Field(description="the agents' standardized weights")
    agent_names: list[str]
    agent_kinds: list[str] = Field(description="exploration, exploitation or hybrid")
    y_pred: Any = Field(description="the model's prediction before learning this sample")
    proba: list[float] = Field(description="class probabilities, ordered as classes")
    classes: list[Any]
    certainty: float | None = Field(description="the largest class probability")
    budget_left: int | None = Field(description="labels that may still be spent now")
    reason: str | None = Field(description="'drawn', or why the budget refused the sample")
    learner_version: int = Field(description="which fit of the learner predicted")
    model_token: str | None = None


class AgentRef(BaseModel):
    name: str = Field(description="the agent's catalog name, e.g. RAL1")
    label: str = Field(description="its plain-words label, e.g. uncertainty checker 1")


class QuestionOut(BaseModel):
    kind: str = Field(description="exploration, exploitation, epsilon or cold start")
    title: str
    why: str = Field(description="why the part is asked, in words that follow its numbers")
