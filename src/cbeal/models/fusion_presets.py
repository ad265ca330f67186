"""Score-fusion presets, as data: members by name, and each preset's members and rule.

A member is built for the budget share ``b`` (the agents that pace themselves use it) and
the stream model's estimator (the committee refits copies of it). The paper's agents keep
their table names; the members added for score fusion are

* ``H``: the normalised entropy of the learner's probabilities (DWU with β = 0);
* ``DWU``: density-weighted uncertainty (:class:`~cbeal.core.DensityWeightedAgent`);
* ``MIN``: minority seeking (:class:`~cbeal.core.MinorityAgent`);
* ``QBC``: disagreement of three bootstrap refits of the learner
  (:class:`~cbeal.learners.CommitteeAgent`);
* ``LDS``: the paper's LD-Agent as a graded score, ``lsf / L`` (δ_L = 1, L = 100);

and ``ENT`` / ``VU`` are the paced entropy and variable-uncertainty agents of CBEAL-4U.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cbeal.baselines import EntropyAgent, VariableUncertaintyAgent
from cbeal.core import (
    Agent,
    DensityWeightedAgent,
    EqualWeights,
    EvidenceWeights,
    LowDensityAgent,
    MinorityAgent,
    ParameterError,
    ScoreFusion,
    single_agent,
)
from cbeal.learners.committee import CommitteeAgent

__all__ = [
    "FUSION_PRESETS",
    "MEMBERS",
    "RECOMMENDED",
    "WEIGHT_RULES",
    "fusion_of",
    "fusion_pool",
    "member",
]


#: member name -> agent for a budget share and the model's estimator
def _paper(name: str) -> Callable[[float, Any], Agent]:
    return lambda b, est: single_agent(name)


MEMBERS: dict[str, Callable[[float, Any], Agent]] = {
    **{n: _paper(n) for n in ("LD1", "LD2", "LD3", "SPF1", "RAL1", "RAL2", "RAL3", "RAL4")},
    "ENT": lambda b, est: EntropyAgent(budget_fraction=b),
    "VU": lambda b, est: VariableUncertaintyAgent(budget_fraction=b),
    "H": lambda b, est: DensityWeightedAgent(density_weight=0.0),
    "DWU": lambda b, est: DensityWeightedAgent(),
    "MIN": lambda b, est: MinorityAgent(),
    "QBC": lambda b, est: CommitteeAgent(estimator=est),
    "LDS": lambda b, est: LowDensityAgent(window_size=100, sparsity_fraction=1.0),
}

#: weight rule name -> a fresh rule
WEIGHT_RULES: dict[str, Callable[[], Any]] = {
    "equal": EqualWeights,
    "evidence": EvidenceWeights,
}

#: preset name -> members, weight rule and ε (filled in by the choice on the development
#: part of the benchmark suite, BENCHMARK.md)
FUSION_PRESETS: dict[str, dict[str, Any]] = {
    # chosen by the rule on the development part (candidate F:4U+MIN-eq)
    "CBEAL-5F": {
        "agents": ("RAL1", "RAL2", "ENT", "VU", "MIN"),
        "weights": "equal",
        "epsilon": 0.0,
    },
}

#: the recommended preset, the default of ``CbeAL.from_preset()`` (None: the previous one)
RECOMMENDED: str | None = "CBEAL-5F"


def member(name: str, budget_fraction: float, estimator: Any = None) -> Agent:
    """A fresh member by name, for a budget share and the model's estimator.

    >>> member("MIN", 0.05)
    MinorityAgent()
    """
    try:
        make = MEMBERS[name]
    except KeyError:
        raise ParameterError(
            f"unknown member {name!r}; choose one of {', '.join(MEMBERS)}"
        ) from None
    return make(float(budget_fraction), estimator)


def fusion_pool(
    members: tuple[str, ...] | str, budget_fraction: float, estimator: Any = None
) -> list[tuple[str, Agent]]:
    """Fresh (name, agent) pairs: of the members listed, or of fusion preset `members`.

    >>> [n for n, _ in fusion_pool(("RAL1", "H", "MIN"), 0.05)]
    ['RAL1', 'H', 'MIN']
    """
    names = _preset(members)["agents"] if isinstance(members, str) else members
    return [(n, member(n, budget_fraction, estimator)) for n in names]


def fusion_of(weights: str = "equal", **options: Any) -> ScoreFusion:
    """A :class:`~cbeal.core.ScoreFusion` (without agents) with weight rule `weights`.

    >>> fusion_of("evidence")
    ScoreFusion(weights=EvidenceWeights())
    """
    if weights not in WEIGHT_RULES:
        raise ParameterError(f"unknown weight rule {weights!r}; choose one of {list(WEIGHT_RULES)}")
    return ScoreFusion(weights=WEIGHT_RULES[weights](), **options)


def _preset(name: str) -> dict[str, Any]:
    key = name.upper().replace("_", "-")
    if key not in FUSION_PRESETS:
        raise ParameterError(
            f"unknown fusion preset {name!r}; choose one of {sorted(FUSION_PRESETS)}"
        )
    return FUSION_PRESETS[key]
