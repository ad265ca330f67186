"""What ``cbeal run`` was asked to do, and the names it accepts (presets, agents, learners,
comparison methods, budgets), each checked with a message that says what to do."""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.baselines import BASELINES
from cbeal.core import BudgetError, InvalidInputError, preset_agents, single_agent
from cbeal.core.agent import Agent
from cbeal.core.presets import PRESETS
from cbeal.learners import LEARNERS

__all__ = [
    "AGENT_NAMES",
    "RunOptions",
    "comparison_methods",
    "ensemble",
    "learner_name",
    "parse_budget",
]

AGENT_NAMES = ("LD1", "LD2", "LD3", "SPF1", "RAL1", "RAL2", "RAL3", "RAL4")


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
    preset: str = "CBEAL-6"
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


def _suggest(name: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(name.upper(), [c.upper() for c in choices], n=1)
    hit = [c for c in choices if close and c.upper() == close[0]]
    return f"did you mean {hit[0]!r}? " if hit else ""


def ensemble(preset: str, agents: str | None) -> tuple[str, list[tuple[str, Agent]]]:
    """The CbeAL display name and its (name, agent) pairs, from `preset` or `agents`."""
    if agents is None:
        key = preset.upper().replace("_", "-")
        if key not in PRESETS:
            raise InvalidInputError(
                f"unknown preset {preset!r}; {_suggest(preset, list(PRESETS))}"
                f"choose one of {', '.join(PRESETS)} (CBEAL-6 recommended)"
            )
        return key, preset_agents(key)
    names = [a.strip().upper() for a in agents.split(",") if a.strip()]
    for name in names:
        if name not in AGENT_NAMES:
            raise InvalidInputError(
                f"unknown agent {name!r}; {_suggest(name, list(AGENT_NAMES))}"
                f"choose from {', '.join(AGENT_NAMES)}"
            )
    if len(names) < 2 or len(set(names)) != len(names):
        raise InvalidInputError(
            f"`agents` needs at least two different agents, got {agents!r}; e.g. "
            "LD2,RAL1 (or choose a `preset`)"
        )
    return f"CbeAL({','.join(names)})", [(n, single_agent(n)) for n in names]


def learner_name(name: str, classes: np.ndarray | None = None) -> str:
    """A known learner name, lower-cased; `classes` checks it can learn them."""
    if name.lower() not in LEARNERS:
        raise InvalidInputError(
            f"unknown learner {name!r}; {_suggest(name, list(LEARNERS))}"
            f"choose one of {', '.join(LEARNERS)}"
        )
    if classes is not None and name.lower() == "logreg-l1" and classes.size > 2:
        raise InvalidInputError(  # liblinear is two-class only
            f"the learner 'logreg-l1' handles two classes only, but the training rows hold "
            f"{classes.size}; use another `learner`: logreg, svm, random-forest or "
            "gradient-boosting"
        )
    return name.lower()


def comparison_methods(text: str) -> list[str]:
    """The baselines named in `text` (e.g. ``"RS,US"``; ``"none"``: no comparison)."""
    if text.strip().lower() in ("", "none"):
        return []
    allowed = list(BASELINES)
    by_key = {n.upper(): n for n in allowed}
    chosen: list[str] = []
    for raw in (s.strip() for s in text.split(",") if s.strip()):
        if raw.upper() not in by_key:
            raise InvalidInputError(
                f"unknown comparison method {raw!r}; {_suggest(raw, allowed)}"
                f"choose from {', '.join(allowed)}, or 'none'"
            )
        if by_key[raw.upper()] not in chosen:
            chosen.append(by_key[raw.upper()])
    return chosen


def parse_budget(text: str | float, n_stream: int) -> int:
    """Number of labels from ``"10%"``, a share in (0, 1) of the stream, or a count.

    >>> parse_budget("10%", 485), parse_budget("0.1", 485), parse_budget("25", 485)
    (48, 48, 25)
    """
    spec = str(text).strip()
    try:
        value = float(spec[:-1]) / 100 if spec.endswith("%") else float(spec)
    except ValueError:
        raise BudgetError(
            f"cannot read the budget {text!r}; write a share such as 10% or "
            "0.1, or a number of labels such as 50"
        ) from None
    if not np.isfinite(value) or value <= 0:
        raise BudgetError(f"the budget must be positive, got {text!r}; e.g. 10% or 50")
    if spec.endswith("%") or value < 1:
        if value > 1:
            raise BudgetError(f"the budget {text!r} is more than 100% of the stream")
        labels = max(1, round(value * n_stream))
    elif value.is_integer():
        labels = int(value)
    else:
        raise BudgetError(
            f"the budget {text!r} is neither a share below 1 nor a whole number "
            "of labels; e.g. 0.1, 10% or 50"
        )
    if labels > n_stream:
        raise BudgetError(
            f"the budget of {labels} labels exceeds the stream of {n_stream} rows; "
            "lower the `budget` (e.g. 10%) or use more data"
        )
    return labels
