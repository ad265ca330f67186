"""Score fusion's members by name and its weight rules, for the suite's candidates (the
presets themselves are catalog entries, :mod:`cbeal.catalog.presets`).

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

from cbeal.catalog import agent_entry
from cbeal.core import Agent, EqualWeights, EvidenceWeights, ParameterError, ScoreFusion
from cbeal.learners.committee import CommitteeAgent

__all__ = [
    "WEIGHT_RULES",
    "fusion_of",
    "fusion_pool",
    "member",
]


#: weight rule name -> a fresh rule
WEIGHT_RULES: dict[str, Callable[[], Any]] = {
    "equal": EqualWeights,
    "evidence": EvidenceWeights,
}


def member(name: str, budget_fraction: float, estimator: Any = None) -> Agent:
    """A fresh member by its catalog name, for a budget share and the model's estimator
    (the committee ``QBC`` refits copies of `estimator`; the catalog's refits a logistic
    regression).

    >>> member("MIN", 0.05)
    MinorityAgent()
    """
    if agent_entry(name).name == "QBC" and estimator is not None:
        return CommitteeAgent(estimator=estimator)
    return agent_entry(name).build(float(budget_fraction))


def fusion_pool(
    members: tuple[str, ...], budget_fraction: float, estimator: Any = None
) -> list[tuple[str, Agent]]:
    """Fresh (name, agent) pairs of the members listed (the committee refits `estimator`).

    >>> [n for n, _ in fusion_pool(("RAL1", "H", "MIN"), 0.05)]
    ['RAL1', 'H', 'MIN']
    """
    return [(n, member(n, budget_fraction, estimator)) for n in members]


def fusion_of(weights: str = "equal", **options: Any) -> ScoreFusion:
    """A :class:`~cbeal.core.ScoreFusion` (without agents) with weight rule `weights`.

    >>> fusion_of("evidence")
    ScoreFusion(weights=EvidenceWeights())
    """
    if weights not in WEIGHT_RULES:
        raise ParameterError(f"unknown weight rule {weights!r}; choose one of {list(WEIGHT_RULES)}")
    return ScoreFusion(weights=WEIGHT_RULES[weights](), **options)
