"""What ``cbeal run`` was asked to do, and the names it accepts (presets, agents, learners,
comparison methods, budgets), each checked with a message that says what to do."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.catalog import (
    UnknownNameError,
    agent_entry,
    budget,
    labels_allowed,
    learner_entry,
    preset_entry,
    strategy_entry,
)
from cbeal.core import Budget, BudgetError, InvalidInputError, LabelCount, ParameterError

__all__ = [
    "RunOptions",
    "comparison_methods",
    "ensemble",
    "learner_name",
    "run_budget",
]


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """What ``cbeal run`` was asked to do (validated by :func:`cbeal.tablerun.run`).

    >>> RunOptions(data=Path("line.csv"), label="fail").budget
    '10%'
    """

    data: Path
    label: str
    time: str | None = None
    features: str | None = None
    drop: str | None = None
    ids: str | None = None
    preset: str | None = None  # None: the recommended preset
    agents: str | None = None
    budget: str = "10%"
    learner: str = "logreg-l1"
    initial: int = 10
    test_fraction: float = 0.3
    positive: str | None = None
    compare: str = "RS"
    seed: int = 0
    repeats: int = 1
    refit_every: int = 1
    progress: bool | None = None

    def check(self) -> None:
        """Raise :class:`InvalidInputError` for counts out of range (the names are checked
        where they are used)."""
        for name in ("repeats", "refit_every"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(f"`{name}` must be a whole number ≥ 1, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        return {k: str(v) if isinstance(v, Path) else v for k, v in asdict(self).items()}


def ensemble(preset: str | None, agents: str | None) -> tuple[str, list[str] | None]:
    """CbeAL's display name and, for `agents`, their catalog names (None for a preset).

    >>> from cbeal.catalog import RECOMMENDED
    >>> ensemble(None, None) == (RECOMMENDED, None), ensemble("cbeal-6", None)
    (True, ('CBEAL-6', None))
    >>> ensemble(None, "ld2, ent")
    ('CbeAL(LD2,ENT)', ['LD2', 'ENT'])
    """
    try:
        if agents is None:
            return preset_entry(preset).name, None
        names = [agent_entry(a).name for a in agents.split(",") if a.strip()]
    except UnknownNameError as exc:
        raise InvalidInputError(str(exc)) from None
    if len(names) < 2 or len(set(names)) != len(names):
        raise InvalidInputError(
            f"`agents` needs at least two different agents, got {agents!r}; e.g. "
            "LD2,RAL1 (or choose a `preset`)"
        )
    return f"CbeAL({','.join(names)})", names


def learner_name(name: str, classes: np.ndarray | None = None) -> str:
    """A known learner's catalog name; `classes` checks it can learn them."""
    try:
        entry = learner_entry(name)
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

    >>> run_budget("2%", 485), run_budget("25", 485)
    ((LabelRate(rate=0.02), 9), (LabelCount(total=25), 25))
    """
    spend = budget(text)
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
