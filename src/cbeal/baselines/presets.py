"""Agent pools of every preset, including those beyond the paper whose agents pace
themselves to the budget share (they live here because they use baseline agents)."""

from __future__ import annotations

from cbeal.baselines.entropy import EntropyAgent
from cbeal.baselines.simple import VariableUncertaintyAgent
from cbeal.core.agent import Agent
from cbeal.core.presets import EXTENDED_PRESETS, PRESETS, preset_agents, single_agent

__all__ = ["preset_pool"]


def preset_pool(name: str, budget_fraction: float = 0.1) -> list[tuple[str, Agent]]:
    """Fresh (name, agent) pairs of preset `name`, built for a budget of
    ``budget_fraction`` of the stream (the paper presets do not use it).

    >>> [n for n, _ in preset_pool("CBEAL-4U", 0.05)]
    ['RAL1', 'RAL2', 'ENT', 'VU']
    >>> preset_pool("CBEAL-4U", 0.05)[3][1]
    VariableUncertaintyAgent(budget_fraction=0.05)
    """
    key = name.upper().replace("_", "-")
    if key in PRESETS or key not in EXTENDED_PRESETS:
        return preset_agents(name)  # the paper's sets, or its error for an unknown name
    b = float(budget_fraction)
    make = {
        "ENT": lambda: EntropyAgent(budget_fraction=b),
        "VU": lambda: VariableUncertaintyAgent(budget_fraction=b),
    }
    return [
        (a, make[a]() if a in make else single_agent(a)) for a in EXTENDED_PRESETS[key]["agents"]
    ]
