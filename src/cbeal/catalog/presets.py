"""Every preset a user can name: the recommended one, those beyond the paper, the paper's.

A preset is data: its agents (catalog names), the bandit's options and ε. The recommended
preset is the one every front door uses when none is named (`RECOMMENDED`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cbeal.catalog._names import lookup
from cbeal.catalog.agents import agent_entry
from cbeal.core.agent import Agent
from cbeal.core.budget import DEFAULT_PACE
from cbeal.core.exceptions import ParameterError
from cbeal.core.exp4p import Exp4P
from cbeal.core.presets import PAPER_PRESETS

__all__ = ["PRESETS", "RECOMMENDED", "PresetEntry", "preset_agents", "preset_entry"]


@dataclass(frozen=True)
class PresetEntry:
    """One preset: ``agents`` by catalog name, ``solver`` the :class:`Exp4P` options
    (``None``: the paper's defaults), ``family`` ``"recommended"``, ``"extended"``,
    ``"paper"`` or ``"regression"`` (for regressors)."""

    name: str
    label: str
    description: str
    family: str
    agents: tuple[str, ...]
    solver: dict[str, Any] | None = None
    epsilon: float = 0.01
    notes: tuple[str, ...] = field(default=())
    #: score fusion instead of the bandit's vote: ``{"weights": "equal" | "evidence"}`` and
    #: the pacer's options of :class:`~cbeal.core.ScoreFusion` (``head_start``, ``horizon``, …)
    fusion: dict[str, Any] | None = None

    @property
    def paces(self) -> bool:
        """Whether some agent paces itself to the budget share (it needs a rate or ``n``)."""
        return self.fusion is not None or any(agent_entry(a).paces for a in self.agents)

    @property
    def paces_fusion(self) -> bool:
        """Whether one pacer spends the budget over the fused score (it needs a share)."""
        return self.fusion is not None

    @property
    def control_chart(self) -> bool:
        """Whether the bandit's EWMA chart flips the weights (the paper's default)."""
        return self.fusion is None and (self.solver is None or bool(self.solver.get("ewma", True)))

    def pool(self, budget_fraction: float | None = None) -> list[tuple[str, Agent]]:
        """Fresh (name, agent) pairs; agents that pace themselves need `budget_fraction`."""
        if self.paces and budget_fraction is None:
            raise ParameterError(
                f"{self.name} paces its agents to a share of the stream: give the budget as "
                "a rate (e.g. 0.05 or '5%'), or with a count budget the share it is of the "
                "stream (budget_fraction = labels / samples)"
            )
        return [(a, agent_entry(a).build(budget_fraction)) for a in self.agents]

    def make_solver(self) -> Exp4P | None:
        """The bandit: None means the paper's ``Exp4P()`` (and a fusion preset has none)."""
        return None if self.solver is None else Exp4P(**self.solver)


_PAPER_WORDS = {
    "CBEAL-2": "the paper's two-agent ensemble",
    "CBEAL-4": "the paper's four-agent ensemble",
    "CBEAL-4*": "the paper's four-agent ensemble with space filling",
    "CBEAL-6": "the paper's six-agent ensemble",
    "CBEAL-8": "the paper's eight-agent ensemble",
}

_ENTRIES = [
    PresetEntry(  # issue 32, round 5 (studies/BENCHMARK.md): chosen on 300 development cells
        "CBEAL-5D",
        "five fused scores, a pacer that can run ahead",
        "two uncertainty checkers, entropy and variable-uncertainty sampling and a minority "
        "seeker, scores fused with equal weights, one pacer led by the labels owed: it waits, "
        "catches up and takes labels ahead of the even pace when the parts score high",
        "recommended",
        ("RAL1", "RAL2", "ENT", "VU", "MIN"),
        epsilon=0.0,
        fusion={"weights": "equal", "pacer": "deficit"},
    ),
    PresetEntry(
        "CBEAL-5F",
        "five fused scores, one even pacer",
        "two uncertainty checkers, entropy and variable-uncertainty sampling and a minority "
        "seeker, scores fused with equal weights, one even pacer (a label only once it has "
        "accrued; the default before CBEAL-5D)",
        "extended",
        ("RAL1", "RAL2", "ENT", "VU", "MIN"),
        epsilon=0.0,
        # issue 23 round 3 (chosen on 228 cells): no head start, so the first label is
        # chosen among the first 1/b scores, and a horizon from the budget, so a count
        # budget is still spent in full (round 2: the head start over the first 1/b
        # samples; round 1: the head start at once, no horizon)
        fusion={"weights": "equal", "head_start": 0.0, "horizon": "auto"},
    ),
    PresetEntry(
        "CBEAL-4U",
        "four uncertainty agents, fast bandit",
        "two uncertainty checkers, entropy and variable-uncertainty sampling paced to the "
        "budget, weighed by Exp4.P (step 0.2, no control chart)",
        "extended",
        ("RAL1", "RAL2", "ENT", "VU"),
        {"eta": 0.2, "ewma": False},
    ),
    PresetEntry(  # regressors (issue 33, studies/REGRESSION.md round 2): chosen on its dev part
        "CBEAL-R",
        "uncertainty, diversity and drift, one pacer",
        "regressors: committee variance of the model's own regressor, distance to the last 50 "
        "labels and a drift watcher, each ranked among recent parts, fused with fixed equal "
        "weights, one pacer that can wait, catch up and run ahead",
        "regression",
        ("QBCRr", "DTLm", "DRIFT"),
        epsilon=0.0,
        fusion={"weights": "equal", "pacer": "deficit"},
    ),
    *(
        PresetEntry(
            name,
            _PAPER_WORDS[name],
            f"{', '.join(agents)} weighed by Exp4.P with the EWMA control chart "
            "(the paper's Table 1)",
            "paper",
            agents,
        )
        for name, agents in PAPER_PRESETS.items()
    ),
]

#: Every preset by name: the recommended one first, then the paper's.
PRESETS: dict[str, PresetEntry] = {e.name: e for e in _ENTRIES}

#: The preset used when none is named: `CbeAL.from_preset()`, `cbeal run`, `cbeal serve`.
RECOMMENDED = next(e.name for e in _ENTRIES if e.family == "recommended")


def preset_entry(name: str | None = None) -> PresetEntry:
    """The catalog entry of preset `name` (None: the recommended one).

    >>> preset_entry().name, preset_entry("cbeal-6").family
    ('CBEAL-5D', 'paper')
    """
    return PRESETS[RECOMMENDED] if name is None else lookup(PRESETS, name, "preset")


def preset_agents(
    name: str | None = None, budget_fraction: float | None = None
) -> list[tuple[str, Agent]]:
    """Fresh (name, agent) pairs of any preset `name` (None: the recommended one), the agents
    that pace themselves built for the budget share `budget_fraction` (default
    :data:`~cbeal.core.DEFAULT_PACE`). The one resolver of preset names;
    :func:`cbeal.core.paper_agents` holds the paper's table alone.

    >>> [n for n, _ in preset_agents("CBEAL-4U", 0.05)]
    ['RAL1', 'RAL2', 'ENT', 'VU']
    >>> [n for n, _ in preset_agents()], [n for n, _ in preset_agents("cbeal-2")]
    (['RAL1', 'RAL2', 'ENT', 'VU', 'MIN'], ['LD1', 'RAL1'])
    """
    entry = preset_entry(name)
    share = DEFAULT_PACE if budget_fraction is None and entry.paces else budget_fraction
    return entry.pool(share)
