"""A stream's configuration: what it is created with, checked once (names through the catalog).

A stream classifies parts (``classes``) or predicts a measured value (``task="regression"``
with a ``tolerance``; see :mod:`~cbeal.service.schemas.measured`).
"""

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
    DEFAULT_BUDGET,
    RECOMMENDED,
    agent_entry,
    budget,
    learner_entry,
    preset_entry,
)
from cbeal.core import BudgetError, LabelCount, ParameterError
from cbeal.service.names import STREAM_NAME
from cbeal.service.schemas.measured import check_classification, check_regression, is_regressor_name
from cbeal.service.schemas.stream_replies import (
    HistoryOut,
    StreamConfigOut,
    StreamListOut,
    StreamStatusOut,
)

__all__ = [
    "HistoryOut",
    "Initial",
    "Label",
    "Row",
    "StreamConfig",
    "StreamConfigOut",
    "StreamListOut",
    "StreamStatusOut",
    "Value",
]

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
_NAME = re.compile(STREAM_NAME)


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
    task: Literal["classification", "regression"] | None = Field(
        default=None,
        description="classification (labels are classes) or regression (labels are measured "
        "values); default: regression when learner is a regressor, else classification",
    )
    classes: list[Label] | None = Field(
        default=None,
        min_length=2,
        max_length=100,
        description="every label a part can get (classification; absent for regression)",
    )
    tolerance: float | None = Field(
        default=None,
        description="regression: the half-width of the band a prediction must fall in, in "
        "the target's unit (a part predicted further off counts as a model error)",
    )
    unit: str | None = Field(
        default=None, min_length=1, max_length=20, description="regression: e.g. 'mm'"
    )
    preset: str | None = Field(
        default=None,
        description=f"a preset of the catalog; default: the recommended {RECOMMENDED} (it "
        "paces its agents to the budget; the paper's presets are CBEAL-2, -4, -4*, -6, -8), "
        "for regression CBEAL-R",
    )
    agents: list[str] | None = Field(
        default=None, description="instead of preset: catalog agent names, e.g. LD2,RAL1"
    )
    learner: str | None = Field(
        default=None,
        description="default logreg; for regression bayesian-ridge (or rbf-bayesian-ridge, "
        "gaussian-process)",
    )
    budget: int | float | str = Field(
        default=DEFAULT_BUDGET,
        description="labels (100: at most that many) or a rate (0.05, '5%': about one part "
        "in twenty, a few labels ahead at most)",
    )
    budget_fraction: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="with a count budget: the share of the parts to spend it at while it "
        "lasts (default 0.05); with a rate: the rate itself",
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
    show_guess: bool | None = Field(
        default=None,
        description="the expert's page shows the model's guess (its class and certainty) and "
        "offers to pre-select it; default off for classes, since seeing the guess first pulls "
        "the answer towards it; a regression stream's page is drawn around the prediction's "
        "band, so it is on there (and cannot be turned off)",
    )
    labels_per_part: int = Field(
        default=1,
        ge=1,
        le=10,
        description="how many experts answer each asked part (each token answers a part once)",
    )
    second_opinion_below: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="a part the model was less sure of than this certainty gets "
        "max(2, labels_per_part) answers, the others labels_per_part (none: no second opinions)",
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
    def _classes(cls, v: list[Any] | None) -> list[Any] | None:
        if v is None:
            return v
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
        if self.task is None:
            self.task = "regression" if is_regressor_name(self.learner) else "classification"
        try:
            spend = budget(self.budget)  # one message for every budget it cannot read
            if self.budget_fraction is not None and not isinstance(spend, LabelCount):
                raise ValueError(
                    "budget_fraction is the pace of a count budget (e.g. budget 100, "
                    "budget_fraction 0.02); a rate such as '5%' is its own pace"
                )
            if self.task == "regression":
                check_regression(self)
            else:
                check_classification(self)
                self.learner = learner_entry(self.learner or "logreg").name
            if self.agents is None:
                self.preset = preset_entry(self.preset).name
            else:
                if len(self.agents) < 2:
                    raise ValueError("agents needs at least two names, e.g. ['LD2', 'RAL1']")
                self.agents = [agent_entry(a).name for a in self.agents]
        except (ParameterError, BudgetError) as exc:
            raise ValueError(str(exc)) from None
        if self.classes is None:  # regression: its labels were checked as measured values
            if self.show_guess is False:
                raise ValueError(
                    "show_guess: a regression stream's page is drawn around the model's "
                    "prediction and its tolerance band; leave show_guess out"
                )
            self.show_guess = True
            return self
        if self.show_guess is None:
            self.show_guess = False
        if self.failure_class is not None and repr(self.failure_class) not in {
            repr(c) for c in self.classes
        }:
            raise ValueError(f"failure_class {self.failure_class!r} is not one of the classes")
        if self.initial is not None:
            unknown = {repr(y) for y in self.initial.y} - {repr(c) for c in self.classes}
            if unknown:
                raise ValueError(f"initial.y holds labels that are not classes: {sorted(unknown)}")
        return self
