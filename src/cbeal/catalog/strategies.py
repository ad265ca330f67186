"""Comparison strategies: every agent alone and every preset, by one name."""

from __future__ import annotations

from cbeal.catalog._names import lookup
from cbeal.catalog.agents import AGENTS, ALIASES, AgentEntry
from cbeal.catalog.presets import PRESETS, PresetEntry

__all__ = ["strategy_entry", "strategy_names"]


def strategy_names() -> list[str]:
    """Every name a comparison can use: the presets, then each agent alone.

    >>> "CBEAL-6" in strategy_names(), "ENT" in strategy_names()
    (True, True)
    """
    return [*PRESETS, *AGENTS]


def strategy_entry(name: str) -> PresetEntry | AgentEntry:
    """The preset or the agent called `name`.

    >>> strategy_entry("ent").label
    'entropy sampler'
    """
    table: dict[str, PresetEntry | AgentEntry] = {**PRESETS, **AGENTS}
    return lookup(table, name, "strategy (a preset or an agent)", ALIASES)
