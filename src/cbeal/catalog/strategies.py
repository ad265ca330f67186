"""Comparison strategies: every agent alone and every preset, by one name."""

from __future__ import annotations

from cbeal.catalog._names import UnknownNameError, key
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
    by_key: dict[str, PresetEntry | AgentEntry] = {key(n): e for n, e in PRESETS.items()}
    by_key.update({key(n): e for n, e in AGENTS.items()})
    by_key.update({key(a): AGENTS[n] for a, n in ALIASES.items()})
    found = by_key.get(key(name)) if isinstance(name, str) else None
    if found is None:
        import difflib

        close = difflib.get_close_matches(key(str(name)), list(by_key), n=1, cutoff=0.6)
        hint = f"did you mean {by_key[close[0]].name!r}? " if close else ""
        raise UnknownNameError(
            f"unknown strategy {name!r}; {hint}choose a preset ({', '.join(PRESETS)}) or an "
            f"agent ({', '.join(AGENTS)})"
        )
    return found
