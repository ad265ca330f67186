"""The catalog: one place that resolves every name a user types.

Presets (the recommended one, those beyond the paper, the paper's), agents (the paper's,
entropy sampling, the baselines), learners, comparison strategies and budget text. Each
agent, preset and learner has one plain-words label and a one-line description, which the
command line, the reports, the labelling page and the dashboard all show. Every front door
builds its models through here (:func:`cbeal.models.stream_model`).

>>> from cbeal.catalog import RECOMMENDED, agent_entry, describe_budget, preset_entry
>>> preset_entry(RECOMMENDED).family       # the default of every front door
'recommended'
>>> agent_entry("ENT").label, describe_budget("50")
('entropy sampler', '50 labels, spent whenever the agents ask')
"""

from cbeal.catalog._names import UnknownNameError
from cbeal.catalog.agents import AGENTS, AgentEntry, agent, agent_entry
from cbeal.catalog.budgets import (
    DEFAULT_BUDGET,
    budget,
    budget_share,
    describe_budget,
    labels_allowed,
)
from cbeal.catalog.learners import (
    LEARNERS,
    REGRESSORS,
    LearnerEntry,
    learner,
    learner_entry,
    regressor_entry,
)
from cbeal.catalog.presets import PRESETS, RECOMMENDED, PresetEntry, preset_agents, preset_entry
from cbeal.catalog.strategies import strategy_entry, strategy_names

__all__ = [
    "AGENTS",
    "DEFAULT_BUDGET",
    "LEARNERS",
    "PRESETS",
    "RECOMMENDED",
    "REGRESSORS",
    "AgentEntry",
    "LearnerEntry",
    "PresetEntry",
    "UnknownNameError",
    "agent",
    "agent_entry",
    "budget",
    "budget_share",
    "describe_budget",
    "labels_allowed",
    "learner",
    "learner_entry",
    "preset_agents",
    "preset_entry",
    "regressor_entry",
    "strategy_entry",
    "strategy_names",
]
