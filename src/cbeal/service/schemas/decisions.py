"""A decision as the API shows it: exactly :meth:`cbeal.Decision.to_dict`, and for a
regression stream the prediction's spread, interval and tolerance besides."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["AgentRef", "DecisionOut", "QuestionOut"]


def _absent(value: Any) -> bool:
    return value is None


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
    y_pred: Any = Field(
        description="the model's prediction before learning this sample (regression: the "
        "predicted value)"
    )
    proba: list[float] = Field(
        description="class probabilities, ordered as classes (regression: of being within "
        "and outside the tolerance)"
    )
    classes: list[Any]
    certainty: float | None = Field(
        description="the largest class probability (regression: P(within the tolerance))"
    )
    budget_left: int | None = Field(description="labels that may still be spent now")
    reason: str | None = Field(description="'drawn', or why the budget refused the sample")
    learner_version: int = Field(description="which fit of the learner predicted")
    model_token: str | None = None
    # a regression stream's decisions only (absent, not null, in a classification stream's)
    spread: float | None = Field(
        default=None,
        exclude_if=_absent,
        description="regression: the predictive standard deviation σ of y_pred",
    )
    interval: list[float] | None = Field(
        default=None,
        exclude_if=_absent,
        description="regression: y_pred ± 2σ, about a 95 % interval for the measured value",
    )
    tolerance: float | None = Field(
        default=None,
        exclude_if=_absent,
        description="regression: the band's half-width; certainty is P(|y − y_pred| ≤ tolerance)",
    )
    unit: str | None = Field(
        default=None, exclude_if=_absent, description="regression: the measured value's unit"
    )


class AgentRef(BaseModel):
    name: str = Field(description="the agent's catalog name, e.g. RAL1")
    label: str = Field(description="its plain-words label, e.g. uncertainty checker 1")


class QuestionOut(BaseModel):
    kind: str = Field(description="exploration, exploitation, epsilon or cold start")
    title: str
    why: str = Field(description="why the part is asked, in words that follow its numbers")
