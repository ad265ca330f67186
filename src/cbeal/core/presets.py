"""The paper's agents and agent sets (Table 1 and Table A; spec §5), as data.

This is the paper's table and nothing else: names beyond the paper (entropy sampling, the
baselines, the recommended preset) and every name a user types are resolved by
:mod:`cbeal.catalog`.
"""

from __future__ import annotations

from typing import Any

from cbeal.core.agent import Agent
from cbeal.core.exceptions import ParameterError
from cbeal.core.low_density import LowDensityAgent
from cbeal.core.reinforced import ReinforcedAgent
from cbeal.core.space_filling import SpaceFillingAgent

__all__ = ["PAPER_AGENTS", "PAPER_PRESETS", "paper_agents", "single_agent"]

#: The paper's agents by their table name: the class and its parameters.
PAPER_AGENTS: dict[str, tuple[type[Agent], dict[str, Any]]] = {
    "LD1": (LowDensityAgent, {"window_size": 100, "sparsity_fraction": 0.01}),
    "LD2": (LowDensityAgent, {"window_size": 150, "sparsity_fraction": 0.005}),
    "LD3": (LowDensityAgent, {"window_size": 100, "sparsity_fraction": 0.005}),
    "SPF1": (SpaceFillingAgent, {"window_size": 60}),
    "RAL1": (ReinforcedAgent, {"theta0": 0.95, "eta": 0.005}),
    "RAL2": (ReinforcedAgent, {"theta0": 0.95, "eta": 0.01}),
    "RAL3": (ReinforcedAgent, {"theta0": 0.90, "eta": 0.01}),
    "RAL4": (ReinforcedAgent, {"theta0": 0.90, "eta": 0.005}),
}

#: The paper's presets: pairs of one exploration and one exploitation agent, in the order
#: of Table 1 (pair 1: LD1+RAL1, 2: LD2+RAL2, 3: SPF1+RAL3, 4: LD3+RAL4).
PAPER_PRESETS: dict[str, tuple[str, ...]] = {
    "CBEAL-2": ("LD1", "RAL1"),
    "CBEAL-4": ("LD1", "RAL1", "LD2", "RAL2"),
    "CBEAL-4*": ("LD1", "RAL1", "SPF1", "RAL3"),
    "CBEAL-6": ("LD1", "RAL1", "LD2", "RAL2", "SPF1", "RAL3"),
    "CBEAL-8": ("LD1", "RAL1", "LD2", "RAL2", "SPF1", "RAL3", "LD3", "RAL4"),
}


def single_agent(name: str) -> Agent:
    """A fresh agent of the paper's table by its name (``"LD1"`` … ``"RAL4"``, ``"SPF1"``).

    >>> single_agent("RAL3")
    ReinforcedAgent(theta0=0.9, eta=0.01)
    """
    try:
        cls, params = PAPER_AGENTS[name.upper()]
    except KeyError:
        raise ParameterError(
            f"unknown agent {name!r}; the paper's agents are {', '.join(PAPER_AGENTS)}"
        ) from None
    return cls(**params)


def paper_agents(name: str) -> list[tuple[str, Agent]]:
    """Fresh (name, agent) pairs of the paper's preset `name`.

    >>> [n for n, _ in paper_agents("CBEAL-6")]
    ['LD1', 'RAL1', 'LD2', 'RAL2', 'SPF1', 'RAL3']
    """
    key = name.upper().replace("_", "-")
    if key not in PAPER_PRESETS:
        raise ParameterError(
            f"unknown preset {name!r}; the paper's presets are {', '.join(PAPER_PRESETS)} "
            "(every preset by name: cbeal.preset_agents)"
        )
    return [(a, single_agent(a)) for a in PAPER_PRESETS[key]]
