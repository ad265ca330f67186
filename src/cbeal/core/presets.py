"""The agent sets of the paper (Table 1 and Table A; spec §5)."""

from __future__ import annotations

from typing import Any

from cbeal.core.agent import Agent
from cbeal.core.exceptions import ParameterError
from cbeal.core.exp4p import Exp4P
from cbeal.core.low_density import LowDensityAgent
from cbeal.core.reinforced import ReinforcedAgent
from cbeal.core.space_filling import SpaceFillingAgent

__all__ = [
    "EXTENDED_PRESETS",
    "PRESETS",
    "RECOMMENDED",
    "preset_agents",
    "preset_solver",
    "single_agent",
]


def _pair(i: int) -> list[tuple[str, Agent]]:
    # One exploration and one exploitation agent per pair, in the order of Table 1.
    if i == 1:
        return [
            ("LD1", LowDensityAgent(window_size=100, sparsity_fraction=0.01)),
            ("RAL1", ReinforcedAgent(theta0=0.95, eta=0.005)),
        ]
    if i == 2:
        return [
            ("LD2", LowDensityAgent(window_size=150, sparsity_fraction=0.005)),
            ("RAL2", ReinforcedAgent(theta0=0.95, eta=0.01)),
        ]
    if i == 3:
        return [
            ("SPF1", SpaceFillingAgent(window_size=60)),
            ("RAL3", ReinforcedAgent(theta0=0.90, eta=0.01)),
        ]
    if i == 4:
        return [
            ("LD3", LowDensityAgent(window_size=100, sparsity_fraction=0.005)),
            ("RAL4", ReinforcedAgent(theta0=0.90, eta=0.005)),
        ]
    raise ParameterError(f"no agent pair {i}")


PRESETS: dict[str, tuple[int, ...]] = {
    "CBEAL-2": (1,),
    "CBEAL-4": (1, 2),
    "CBEAL-4*": (1, 3),
    "CBEAL-6": (1, 2, 3),
    "CBEAL-8": (1, 2, 3, 4),
}


def preset_agents(name: str) -> list[tuple[str, Agent]]:
    """Fresh (name, agent) pairs of preset `name` (``"CBEAL-6"`` is the recommended default).

    >>> [n for n, _ in preset_agents("CBEAL-6")]
    ['LD1', 'RAL1', 'LD2', 'RAL2', 'SPF1', 'RAL3']
    """
    key = name.upper().replace("_", "-")
    if key not in PRESETS:
        raise ParameterError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}")
    return [pair for i in PRESETS[key] for pair in _pair(i)]


def single_agent(name: str) -> Agent:
    """A fresh agent of the paper's table by its name (``"LD1"`` … ``"RAL4"``, ``"SPF1"``).

    >>> single_agent("RAL3")
    ReinforcedAgent(theta0=0.9, eta=0.01)
    """
    for i in (1, 2, 3, 4):
        for agent_name, agent in _pair(i):
            if agent_name == name.upper():
                return agent
    raise ParameterError(
        f"unknown agent {name!r}; choose one of LD1, LD2, LD3, SPF1, RAL1, RAL2, RAL3, RAL4"
    )


# ----------------------------------------------------------------- beyond the paper
#: The recommended preset, chosen on the development part of the benchmark suite by the
#: rule written down beforehand (BENCHMARK.md): two RAL agents and two uncertainty agents
#: that pace themselves to the budget share (``ENT``: entropy sampling, ``VU``: variable
#: uncertainty), weighed by Exp4.P with step 0.2 and no EWMA chart. The paper presets above
#: are unchanged.
RECOMMENDED = "CBEAL-4U"

#: Presets beyond the paper, as data: agent names (paper agents by their table name, and
#: ``ENT`` / ``VU`` built for the budget share by ``cbeal.baselines.preset_pool``), the
#: bandit's options and ε.
EXTENDED_PRESETS: dict[str, dict[str, Any]] = {
    "CBEAL-4U": {
        "agents": ("RAL1", "RAL2", "ENT", "VU"),
        "solver": {"eta": 0.2, "ewma": False},
        "epsilon": 0.01,
    },
}


def preset_solver(name: str) -> Exp4P | None:
    """The bandit of preset `name`: None (the paper's defaults) for the paper presets.

    >>> preset_solver("CBEAL-4U")
    Exp4P(ewma=False, eta=0.2)
    >>> preset_solver("CBEAL-6") is None
    True
    """
    key = name.upper().replace("_", "-")
    if key in EXTENDED_PRESETS:
        return Exp4P(**EXTENDED_PRESETS[key]["solver"])
    if key in PRESETS:
        return None
    raise ParameterError(
        f"unknown preset {name!r}; choose one of {sorted(PRESETS) + sorted(EXTENDED_PRESETS)}"
    )
