"""What the stream routes reply: the status, the configuration and the history."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AgentInfo",
    "BandOut",
    "BandPoint",
    "BudgetOut",
    "HistoryBin",
    "HistoryOut",
    "QueueInfo",
    "StreamConfigOut",
    "StreamListOut",
    "StreamStatusOut",
    "WeightingOut",
]


class StreamListOut(BaseModel):
    streams: list[str]


class BudgetOut(BaseModel):
    kind: str = Field(description="LabelRate (a paced share) or LabelCount")
    spec: str = Field(description="the budget in words")
    spent: int
    left_now: int


class QueueInfo(BaseModel):
    open: int
    leased: int
    waiting_to_learn: int
    waiting_for_review: int = Field(
        default=0, description="disputed parts: their answers differ, a reviewer settles them"
    )
    oldest_age_seconds: float | None


class StreamStatusOut(BaseModel):
    """A stream's state; a cold stream has no model yet, so the model's fields are absent."""

    name: str
    state: str = Field(description="'running', or 'cold start' until the first labels")
    samples_seen: int | None = None
    labels_learned: int | None = None
    budget: BudgetOut | None = None
    weights: dict[str, float] | None = None
    model_version: int | None = None
    labels_since_refit: int | None = None
    labels_wanted: int | None = None
    samples_received: int
    labels_received: int
    prequential_accuracy: float | None = Field(
        description="share of learned labels the model predicted right before learning them "
        "(regression: within the tolerance)"
    )
    prequential_labels: int
    queue: QueueInfo
    model_training: int | None = Field(description="the model version being trained, if any")
    last_retrain: float | None
    labels_per_part: int = Field(default=1, description="experts who answer each asked part")
    second_opinion_below: float | None = Field(
        default=None,
        description="a part the model was less sure of than this gets a second opinion",
    )


class AgentInfo(BaseModel):
    name: str
    label: str = Field(description="plain words, from the catalog")
    description: str
    kind: str = Field(description="exploration, exploitation or hybrid")


class WeightingOut(BaseModel):
    """How the agents' advice becomes one decision, for the dashboard's explanations."""

    method: str = Field(description="e.g. 'Exp4.P bandit'")
    control_chart: bool = Field(description="whether an EWMA control chart flips the weights")
    words: str = Field(description="one sentence for the dashboard")


class StreamConfigOut(BaseModel):
    """The stream's configuration (without its initial set and history), with its agents
    and weighting in words."""

    model_config = ConfigDict(extra="allow")
    name: str
    features: list[str]
    task: str = Field(description="classification or regression")
    classes: list[Any] | None = Field(description="the classes (None: a regression stream)")
    tolerance: float | None = Field(description="regression: the band's half-width")
    unit: str | None = Field(description="regression: the measured value's unit")
    preset: str
    agents: list[str] | None
    learner: str
    budget: int | float | str
    budget_words: str = Field(description="the budget's meaning: a paced share or a count")
    agent_info: list[AgentInfo]
    weighting: WeightingOut
    failure_class: Any = Field(description="the class drawn in red (None: regression)")
    show_guess: bool = Field(description="the expert's page shows the model's guess")


class HistoryBin(BaseModel):
    t: float
    samples: int
    samples_total: int
    asked: int
    asked_total: int
    failures_labelled: int
    labels: int
    weights: list[float] | None
    drivers: list[float] | None = Field(
        description="which agents drove the asks: each agent's mean share of the weighted "
        "advice (under score fusion: of the fused score) over the parts asked up to the "
        "bin's end (None: none asked yet)"
    )
    prequential_accuracy: float | None
    queue: int
    label_delay_s: float | None
    seconds_per_label: float | None
    model_version: int | None = Field(description="the version serving at the bin's end")
    budget_allowed: int | None = Field(description="labels the budget allows by the bin's end")


class HistoryOut(BaseModel):
    failure_class: Any
    agents: list[str]
    budget: BudgetOut | None
    bins: list[HistoryBin]


class BandPoint(BaseModel):
    t: float = Field(description="when the expert answered (UTC seconds)")
    sample_id: str
    y: float = Field(description="the measured value")
    y_pred: float = Field(description="the model's prediction before it learned the value")
    error: float = Field(description="y − y_pred")
    inside: bool = Field(description="|error| ≤ tolerance")


class BandOut(BaseModel):
    """A regression stream's learned labels against its tolerance band (the dashboard)."""

    tolerance: float
    unit: str | None
    labels: int = Field(description="learned labels the model had predicted")
    in_band: float | None = Field(description="share of them predicted within ± tolerance")
    rmse: float | None
    mae: float | None
    points: list[BandPoint] = Field(description="the latest labels, oldest first")
