"""What ``cbeal run`` was asked to do, and the names it accepts (presets, agents, learners,
comparison methods, budgets), each checked with a message that says what to do."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.catalog import (
    DEFAULT_BUDGET,
    LEARNERS,
    RECOMMENDED,
    REGRESSORS,
    UnknownNameError,
    agent_entry,
    budget,
    labels_allowed,
    learner_entry,
    preset_entry,
    regressor_entry,
    strategy_entry,
)
from cbeal.catalog._names import key
from cbeal.core import Budget, BudgetError, InvalidInputError, LabelCount, LabelRate, ParameterError

__all__ = [
    "CLASSIFIER",
    "REGRESSION_PRESET",
    "REGRESSOR",
    "RunOptions",
    "comparison_methods",
    "ensemble",
    "learner_name",
    "run_budget",
]


CLASSIFIER = "logreg-l1"  # the default learner for class labels
REGRESSOR = "bayesian-ridge"  # the default learner for measured values (with a tolerance)
REGRESSION_PRESET = "CBEAL-R"  # the default preset for measured values


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """What ``cbeal run`` was asked to do (validated by :func:`cbeal.tablerun.run`).

    With a `tolerance` (the half-width of the band around the measured value, in the
    label column's unit) the label column holds measured values and the run is a
    regression: the default preset is CBEAL-R and the default learner Bayesian ridge.

    >>> RunOptions(data=Path("line.csv"), label="fail").budget
    '10%'
    >>> RunOptions(data=Path("line.csv"), label="thickness", tolerance=0.05).measured
    True
    """

    data: Path
    label: str
    time: str | None = None
    features: str | None = None
    drop: str | None = None
    ids: str | None = None
    preset: str | None = None  # None: the recommended preset
    agents: str | None = None
    budget: str = DEFAULT_BUDGET
    learner: str | None = None  # None: logreg-l1, or bayesian-ridge with a tolerance
    tolerance: float | None = None  # a regression run: the band's half-width
    #: the label column holds measured values even without a tolerance (`cbeal run --target`):
    #: the tolerance is then the default from D0 (:func:`cbeal.core.regression.default_tolerance`)
    measured_values: bool = False
    #: how the tolerance came about: "given", or "default" (set by :func:`cbeal.tablerun.prepare`)
    tolerance_rule: str = "given"
    regression_reward: str = "band"
    initial: int = 10
    test_fraction: float = 0.3
    positive: str | None = None
    compare: str = "RS"
    seed: int = 0
    repeats: int = 1
    refit_every: int = 1
    progress: bool | None = None

    @property
    def measured(self) -> bool:
        """Whether the label column holds measured values (a regression run)."""
        return self.tolerance is not None or self.measured_values

    def check(self) -> None:
        """Raise :class:`InvalidInputError` for counts or a tolerance out of range (the
        names are checked where they are used)."""
        for name in ("repeats", "refit_every"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(f"`{name}` must be a whole number ≥ 1, got {value!r}")
        tol = self.tolerance
        if tol is not None and (
            isinstance(tol, bool)
            or not isinstance(tol, (int, float))
            or not math.isfinite(tol)
            or tol <= 0
        ):
            raise InvalidInputError(
                f"`tolerance` must be a number > 0, got {tol!r}: the half-width of the band "
                "around the measured value, in the label column's unit (e.g. 0.05 for "
                "±0.05 mm)"
            )
        if self.measured and self.positive is not None:
            raise InvalidInputError(
                "`positive` names the failure class of class labels; measured values (with a "
                "`tolerance`) have none: leave out `positive`"
            )
        if self.regression_reward not in ("band", "normalized"):
            raise InvalidInputError(
                f"`regression_reward` must be 'band' or 'normalized', got "
                f"{self.regression_reward!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        return {k: str(v) if isinstance(v, Path) else v for k, v in asdict(self).items()}


def ensemble(
    preset: str | None, agents: str | None, *, measured: bool = False
) -> tuple[str, list[str] | None]:
    """CbeAL's display name and, for `agents`, their catalog names (None for a preset);
    without either, the recommended preset (CBEAL-R for `measured` values).

    >>> from cbeal.catalog import RECOMMENDED
    >>> ensemble(None, None) == (RECOMMENDED, None), ensemble("cbeal-6", None)
    (True, ('CBEAL-6', None))
    >>> ensemble(None, "ld2, ent"), ensemble(None, None, measured=True)
    (('CbeAL(LD2,ENT)', ['LD2', 'ENT']), ('CBEAL-R', None))
    """
    try:
        if agents is None:
            default = REGRESSION_PRESET if measured else RECOMMENDED
            return preset_entry(preset or default).name, None
        names = [agent_entry(a).name for a in agents.split(",") if a.strip()]
    except UnknownNameError as exc:
        raise InvalidInputError(str(exc)) from None
    if len(names) < 2 or len(set(names)) != len(names):
        raise InvalidInputError(
            f"`agents` needs at least two different agents, got {agents!r}; e.g. "
            "LD2,RAL1 (or choose a `preset`)"
        )
    return f"CbeAL({','.join(names)})", names


def learner_name(
    name: str | None, classes: np.ndarray | None = None, *, measured: bool = False
) -> str:
    """A known learner's catalog name (default: logreg-l1, or bayesian-ridge for
    `measured` values); `classes` checks it can learn them.

    >>> learner_name(None), learner_name("BAYESIAN_RIDGE", measured=True)
    ('logreg-l1', 'bayesian-ridge')
    """
    if name is None:
        return REGRESSOR if measured else CLASSIFIER
    other = LEARNERS if measured else REGRESSORS
    if isinstance(name, str) and key(name) in {key(n) for n in other}:
        if measured:
            raise InvalidInputError(
                f"the learner {name!r} is a classifier; a measured label (with a `tolerance`) "
                "needs a regressor with a predictive spread: choose the `learner` among "
                + ", ".join(REGRESSORS)
            )
        raise InvalidInputError(
            f"the learner {name!r} is a regressor; give the `tolerance` of the measurement to "
            "predict measured values, or choose a classifier as `learner`: " + ", ".join(LEARNERS)
        )
    try:
        entry = regressor_entry(name) if measured else learner_entry(name)
        if classes is not None:
            entry.check_classes(classes.size)
    except ParameterError as exc:
        raise InvalidInputError(
            str(exc).replace("choose another learner", "choose another `learner`")
        ) from None
    return entry.name


def comparison_methods(text: str) -> list[str]:
    """The strategies named in `text` (presets or agents, e.g. ``"RS,ENT"``; ``"none"``).

    >>> comparison_methods("rs, ent, cbeal-6")
    ['RS', 'ENT', 'CBEAL-6']
    """
    if text.strip().lower() in ("", "none"):
        return []
    chosen: list[str] = []
    for raw in (s.strip() for s in text.split(",") if s.strip()):
        try:
            name = strategy_entry(raw).name
        except UnknownNameError as exc:
            raise InvalidInputError(f"{exc}, or 'none' (in `compare`)") from None
        if name not in chosen:
            chosen.append(name)
    return chosen


def run_budget(text: str | float, n_stream: int) -> tuple[Budget, int]:
    """The budget of `text` (a share is a paced rate, a whole number a count) and the most
    labels it allows over a stream of `n_stream` rows.

    A share of a file's rows is also a total: ``"2%"`` of 485 rows is at most 9 labels,
    paced with the rate's token bucket (a few labels ahead of ``0.02 · t`` when the rows
    score high), never more than 2 % of the file.

    >>> run_budget("2%", 485), run_budget("25", 485)
    ((LabelRate(rate=0.02, burst=5.0, total=9), 9), (LabelCount(total=25), 25))
    """
    spend = budget(text)
    if isinstance(spend, LabelRate) and spend.total is None:
        share = math.floor(float(spend.rate) * n_stream + 1e-9)
        if share < 1:
            raise BudgetError(
                f"the budget {text!r} allows no label over a stream of {n_stream} rows; raise "
                "the `budget` or use more data"
            )
        spend = spend.set_params(total=share)
    labels = labels_allowed(spend, n_stream)
    if isinstance(spend, LabelCount) and spend.total > n_stream:
        raise BudgetError(
            f"the budget of {spend.total} labels exceeds the stream of {n_stream} rows; "
            "lower the `budget` (e.g. 10%) or use more data"
        )
    if labels < 1:
        raise BudgetError(
            f"the budget {text!r} allows no label over a stream of {n_stream} rows; raise "
            "the `budget` or use more data"
        )
    return spend, labels
