"""A stream's configuration: what it is created with, checked once (names through the catalog)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

from cbeal.catalog import (
    RECOMMENDED,
    agent_entry,
    budget,
    budget_share,
    learner_entry,
    preset_entry,
)
from cbeal.core import BudgetError, ParameterError

__all__ = ["Initial", "Label", "Row", "StreamConfig", "Value"]

#: a class label: text, a number or a boolean, kept with its JSON type (``1`` is not
#: ``true``, ``"1"`` is not ``1``, ``1`` is not ``1.0``)
Label = Annotated[
    StrictStr | StrictInt | StrictBool | StrictFloat, Field(union_mode="left_to_right")
]
#: a feature value: a JSON number, or ``null`` for a missing one (imputed when
#: ``preprocess`` is ``impute-scale``); text and booleans are refused, not converted
Value = StrictFloat | None
#: a sample: values by feature name, or a list in the order of the stream's features
Row = dict[str, Value] | list[Value]
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


class Initial(BaseModel):
    """The initial labelled set ``D0``: rows and their labels."""

    model_config = ConfigDict(extra="forbid", strict=True)
    x: list[Row] = Field(min_length=1, max_length=100_000)
    y: list[Label] = Field(min_length=1, max_length=100_000)
    ids: list[str] | None = Field(
        default=None,
        description="the rows' sample ids (optional): "
        "sending one of them later returns it as a duplicate",
    )

    @model_validator(mode="after")
    def _same_length(self) -> Initial:
        if len(self.x) != len(self.y):
            raise ValueError(f"initial.x has {len(self.x)} rows but initial.y {len(self.y)} labels")
        if self.ids is not None and (
            len(self.ids) != len(self.x)
            or len(set(self.ids)) != len(self.ids)
            or not all(0 < len(i) <= 200 for i in self.ids)
        ):
            raise ValueError("initial.ids must be distinct ids of 1-200 characters, one per row")
        return self


class StreamConfig(BaseModel):
    """What a stream is created with (``POST /api/v1/streams``)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(description="letters, digits, '.', '_' or '-'; e.g. line3")
    features: list[str] = Field(min_length=1, max_length=5000)
    classes: list[Label] = Field(min_length=2, max_length=100)
    preset: str = Field(
        default=RECOMMENDED,
        description=f"a preset of the catalog; the recommended {RECOMMENDED} paces its agents "
        "to a rate budget; the paper's presets are CBEAL-2, -4, -4*, -6, -8",
    )
    agents: list[str] | None = Field(
        default=None, description="instead of preset: catalog agent names, e.g. LD2,RAL1"
    )
    learner: str = "logreg"
    budget: int | float | str = Field(
        default="5%", description="labels (100) or a rate (0.05, '5%')"
    )
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    preprocess: Literal["impute-scale", "none"] = "impute-scale"
    initial: Initial | None = Field(default=None, description="D0; none: cold start")
    history: list[Row] | None = Field(
        default=None, max_length=100_000, description="unlabelled rows to fit the preprocessing on"
    )
    failure_class: Label | None = Field(
        default=None,
        description="the class drawn in red (default: the rarest class of initial, else the last)",
    )
    cold_start: int = Field(
        default=10, ge=2, le=1000, description="labels asked before the model starts (no initial)"
    )
    task_ttl_seconds: float | None = Field(
        default=None, gt=0, description="open tasks older than this expire"
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError("name must be 1-100 letters, digits, '.', '_' or '-', e.g. line3")
        return v

    @field_validator("features")
    @classmethod
    def _features(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v) or not all(0 < len(f) <= 200 for f in v):
            raise ValueError("features must be distinct names of 1-200 characters")
        return v

    @field_validator("classes")
    @classmethod
    def _classes(cls, v: list[Any]) -> list[Any]:
        if len({(type(c), c) for c in v}) != len(v):
            raise ValueError("classes must be distinct")
        if len({type(c) for c in v}) != 1:
            raise ValueError(
                "classes must all have one JSON type: all text, all whole numbers, all "
                "decimal numbers or all booleans, e.g. ['ok', 'fail']"
            )
        return v

    @model_validator(mode="after")
    def _check(self) -> StreamConfig:
        try:
            spend = budget(self.budget)
            if self.agents is None:
                self.preset = preset_entry(self.preset).name
                paces = preset_entry(self.preset).paces
            else:
                if len(self.agents) < 2:
                    raise ValueError("agents needs at least two names, e.g. ['LD2', 'RAL1']")
                self.agents = [agent_entry(a).name for a in self.agents]
                paces = any(agent_entry(a).paces for a in self.agents)
            self.learner = learner_entry(self.learner).name
        except (ParameterError, BudgetError) as exc:
            raise ValueError(str(exc)) from None
        if paces and budget_share(spend) is None:
            what = f"the preset {self.preset}" if self.agents is None else "these agents"
            raise ValueError(
                f"{what} pace to a share of the samples, and a stream has no known length: "
                "give the budget as a rate such as '5%', or choose a paper preset such as "
                "CBEAL-6 for a number of labels"
            )
        if self.failure_class is not None and repr(self.failure_class) not in {
            repr(c) for c in self.classes
        }:
            raise ValueError(f"failure_class {self.failure_class!r} is not one of the classes")
        if self.initial is not None:
            unknown = {repr(y) for y in self.initial.y} - {repr(c) for c in self.classes}
            if unknown:
                raise ValueError(f"initial.y holds labels that are not classes: {sorted(unknown)}")
        return self


# ---------------------------------------------------------------------- replies
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
        description="share of learned labels the model predicted right before learning them"
    )
    prequential_labels: int
    queue: QueueInfo
    model_training: int | None = Field(description="the model version being trained, if any")
    last_retrain: float | None


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
    classes: list[Any]
    preset: str
    agents: list[str] | None
    learner: str
    budget: int | float | str
    budget_words: str = Field(description="the budget's meaning: a paced share or a count")
    agent_info: list[AgentInfo]
    weighting: WeightingOut
    failure_class: Any


class HistoryBin(BaseModel):
    t: float
    samples: int
    samples_total: int
    asked: int
    asked_total: int
    failures_labelled: int
    labels: int
    weights: list[float] | None
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
