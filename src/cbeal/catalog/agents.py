"""Every agent a user can name: the paper's, entropy sampling, the baselines.

Each has one plain-words label and a one-line description; the CLI's help, the reports,
the labelling page and the dashboard all show these. Adding an agent is its module plus one
entry here (docs/CONTRIBUTING.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cbeal.baselines import (
    DBALStreamAgent,
    EntropyAgent,
    QBCPYPAgent,
    RandomAgent,
    SplitAgent,
    UncertaintyAgent,
    VariableUncertaintyAgent,
)
from cbeal.catalog._names import lookup
from cbeal.core.agent import Agent
from cbeal.core.density_weighted import DensityWeightedAgent
from cbeal.core.drift import DriftAgent
from cbeal.core.exceptions import ParameterError
from cbeal.core.labelled_distance import LabelledDistanceAgent
from cbeal.core.low_density import LowDensityAgent
from cbeal.core.minority import MinorityAgent
from cbeal.core.presets import PAPER_AGENTS, single_agent
from cbeal.core.regression import ReinforcedSpreadAgent
from cbeal.core.spread_rank import SpreadRankAgent

__all__ = ["AGENTS", "AgentEntry", "agent", "agent_entry"]


@dataclass(frozen=True)
class AgentEntry:
    """One agent of the catalog.

    ``make(b)`` builds a fresh agent for a budget share ``b`` of the stream (agents that
    pace themselves use it, the others ignore it); ``family`` is ``"paper"`` (Table 1 of
    the paper), ``"sampler"`` (beyond the paper, eligible for presets) or ``"baseline"``
    (a comparison strategy of the paper's or Žliobaitė et al.'s benchmarks).
    """

    name: str
    label: str
    description: str
    agent_class: type[Agent] | str  # or "module:Class" of an agent that needs scikit-learn
    family: str
    make: Callable[[float], Agent]
    paces: bool = False

    @property
    def cls(self) -> type[Agent]:
        """The agent's class (a scikit-learn-aware one is imported on first use, so that
        reading the catalog's names — the CLI's help — does not load scikit-learn)."""
        if isinstance(self.agent_class, str):
            return _learners_agent(self.agent_class)
        return self.agent_class

    @property
    def kind(self) -> str:
        """``"exploration"``, ``"exploitation"`` or ``"hybrid"`` (the agent class's kind)."""
        return self.cls.kind

    def build(self, budget_fraction: float | None = None) -> Agent:
        """A fresh agent; `budget_fraction` is required for an agent that paces itself."""
        if self.paces and budget_fraction is None:
            raise ParameterError(
                f"the agent {self.name} paces itself to a share of the stream: give the "
                "budget as a rate (e.g. 0.05) or the share the count budget is of the stream"
            )
        return self.make(0.1 if budget_fraction is None else float(budget_fraction))


def _learners_agent(ref: str) -> Any:
    module, name = ref.split(":")
    return getattr(importlib.import_module(f"cbeal.learners.{module}"), name)


def _later(ref: str, **params: Any) -> Callable[[float], Agent]:
    """Builds the learners-layer agent `ref` ("module:Class") with `params` when asked."""
    return lambda b: _learners_agent(ref)(**params)


def _paper(name: str) -> Callable[[float], Agent]:
    return lambda b: single_agent(name)


def _paper_entry(name: str, label: str, description: str) -> AgentEntry:
    cls, _ = PAPER_AGENTS[name]
    return AgentEntry(name, label, description, cls, "paper", _paper(name))


_LD = "asks for parts that lie far out from most of the last {L} parts (the paper's LD, δ = {d})"
_RAL = (
    "asks when the model's certainty is below a threshold that rises after a caught error "
    "(starts at {theta}, step {eta}; the paper's RAL)"
)

_ENTRIES = [
    _paper_entry("LD1", "low-density explorer 1", _LD.format(L=100, d="1 %")),
    _paper_entry("LD2", "low-density explorer 2", _LD.format(L=150, d="0.5 %")),
    _paper_entry("LD3", "low-density explorer 3", _LD.format(L=100, d="0.5 %")),
    _paper_entry(
        "SPF1",
        "space-filling explorer",
        "asks for parts that fall into a gap between the last 60 parts (the paper's SPF)",
    ),
    _paper_entry("RAL1", "uncertainty checker 1", _RAL.format(theta=0.95, eta=0.005)),
    _paper_entry("RAL2", "uncertainty checker 2", _RAL.format(theta=0.95, eta=0.01)),
    _paper_entry("RAL3", "uncertainty checker 3", _RAL.format(theta=0.90, eta=0.01)),
    _paper_entry("RAL4", "uncertainty checker 4", _RAL.format(theta=0.90, eta=0.005)),
    AgentEntry(
        "ENT",
        "entropy sampler",
        "asks in proportion to how unsure the model is, paced to the budget",
        EntropyAgent,
        "sampler",
        lambda b: EntropyAgent(budget_fraction=b),
        paces=True,
    ),
    AgentEntry(
        "VU",
        "variable-uncertainty sampler",
        "asks when the certainty is below a threshold that moves to keep to the budget "
        "(Žliobaitė et al.)",
        VariableUncertaintyAgent,
        "sampler",
        lambda b: VariableUncertaintyAgent(budget_fraction=b),
        paces=True,
    ),
    AgentEntry(
        "RS",
        "random sampler",
        "asks for parts at random, at the rate the budget allows",
        RandomAgent,
        "baseline",
        lambda b: RandomAgent(rate=b),
        paces=True,
    ),
    AgentEntry(
        "US",
        "fixed-threshold uncertainty sampler",
        "asks whenever the model's certainty is below 0.7",
        UncertaintyAgent,
        "baseline",
        lambda b: UncertaintyAgent(threshold=0.7),
    ),
    AgentEntry(
        "Split",
        "split sampler",
        "variable uncertainty with part of the budget spent at random (Žliobaitė et al.)",
        SplitAgent,
        "baseline",
        lambda b: SplitAgent(budget_fraction=b),
        paces=True,
    ),
    AgentEntry(
        "DBALStream",
        "density-weighted uncertainty sampler",
        "asks for uncertain parts that are also typical of many recent parts (DBALStream)",
        DBALStreamAgent,
        "baseline",
        lambda b: DBALStreamAgent(budget_fraction=b),
        paces=True,
    ),
    AgentEntry(
        "QBC-PYP",
        "committee sampler",
        "two models drawn from a Bayesian mixture; asks when they disagree (QBC-PYP)",
        QBCPYPAgent,
        "baseline",
        lambda b: QBCPYPAgent(),
    ),
    # members for score fusion (issue 23): graded scores that a fusion's pacer spends on
    AgentEntry(
        "H",
        "entropy score",
        "scores a part by how unsure the model is (normalised entropy), unpaced",
        DensityWeightedAgent,
        "sampler",
        lambda b: DensityWeightedAgent(density_weight=0.0),
    ),
    AgentEntry(
        "DWU",
        "density-weighted uncertainty score",
        "scores a part by how unsure the model is, times how typical it is of the last 100 parts",
        DensityWeightedAgent,
        "sampler",
        lambda b: DensityWeightedAgent(),
    ),
    AgentEntry(
        "MIN",
        "minority seeker",
        "scores a part by how rare the class the model expects for it is among the labels so far",
        MinorityAgent,
        "sampler",
        lambda b: MinorityAgent(),
    ),
    AgentEntry(
        "QBC",
        "committee disagreement score",
        "scores a part by how much three bootstrap refits of a logistic regression disagree on it",
        "committee:CommitteeAgent",
        "sampler",
        _later("committee:CommitteeAgent"),
    ),
    AgentEntry(
        "LDS",
        "low-density score",
        "scores a part by the share of the last 100 parts it lies farther out from than "
        "any other (the paper's LD, graded)",
        LowDensityAgent,
        "sampler",
        lambda b: LowDensityAgent(window_size=100, sparsity_fraction=1.0),
    ),
    # regressors (issue 20): the predictive spread against the tolerance band
    AgentEntry(
        "RALR1",
        "band checker 1",
        "regressors: asks when the chance of being within tolerance is below a threshold "
        "that rises after a miss (starts at 0.9)",
        ReinforcedSpreadAgent,
        "sampler",
        lambda b: ReinforcedSpreadAgent(theta0=0.9, eta=0.01),
    ),
    AgentEntry(
        "RALR2",
        "band checker 2",
        "regressors: asks when the chance of being within tolerance is below a threshold "
        "that rises after a miss (starts at 0.6)",
        ReinforcedSpreadAgent,
        "sampler",
        lambda b: ReinforcedSpreadAgent(theta0=0.6, eta=0.01),
    ),
    AgentEntry(
        "SPR",
        "fixed-threshold band checker",
        "regressors: asks whenever the chance of being within tolerance is below 0.7",
        ReinforcedSpreadAgent,
        "baseline",
        lambda b: ReinforcedSpreadAgent(theta0=0.7, eta=0.0),
    ),
    AgentEntry(
        "QBCR",
        "committee variance score",
        "regressors: scores a part by how much four bootstrap refits of a ridge regression "
        "disagree, against the tolerance",
        "regression_committee:CommitteeVarianceAgent",
        "sampler",
        _later("regression_committee:CommitteeVarianceAgent"),
    ),
    AgentEntry(
        "EMCM",
        "expected model change score",
        "regressors: scores a part by how much its label would move the model (EMCM, Cai "
        "et al. 2013)",
        "regression_committee:ExpectedChangeAgent",
        "sampler",
        _later("regression_committee:ExpectedChangeAgent"),
    ),
    # regression round 2 (issue 33, studies/REGRESSION.md): scale-free scores (recent ranks)
    AgentEntry(
        "QBCRr",
        "committee variance rank",
        "regressors: scores a part by how much four bootstrap refits of the model's regressor "
        "disagree, ranked among the last 200 parts",
        "regression_committee:CommitteeVarianceAgent",
        "sampler",
        _later("regression_committee:CommitteeVarianceAgent", scale="rank"),
    ),
    AgentEntry(
        "SPRD",
        "predictive spread rank",
        "regressors: scores a part by the model's own predictive spread, ranked among the "
        "last 200 parts",
        SpreadRankAgent,
        "sampler",
        lambda b: SpreadRankAgent(),
    ),
    AgentEntry(
        "DTL",
        "distance to the labelled parts",
        "scores a part by how far it lies from every labelled part, ranked among the last "
        "200 parts (greedy sampling on the inputs)",
        LabelledDistanceAgent,
        "sampler",
        lambda b: LabelledDistanceAgent(),
    ),
    AgentEntry(
        "DTLm",
        "distance to the recent labels",
        "scores a part by how far it lies from the last 50 labelled parts, ranked among the "
        "last 200 parts (older labels are forgotten)",
        LabelledDistanceAgent,
        "sampler",
        lambda b: LabelledDistanceAgent(memory=50),
    ),
    AgentEntry(
        "DRIFT",
        "drift watcher",
        "regressors: scores every part higher while recent labels surprise the model more "
        "than usual (the pacer asks ahead)",
        DriftAgent,
        "sampler",
        lambda b: DriftAgent(),
    ),
]

#: Every agent by name, in the order the catalog lists them.
AGENTS: dict[str, AgentEntry] = {e.name: e for e in _ENTRIES}

#: Other names users and older result files use.
ALIASES = {"VariableUncertainty": "VU", "Entropy": "ENT", "EntropySampling": "ENT"}


def agent_entry(name: str) -> AgentEntry:
    """The catalog entry of agent `name` (any case; aliases such as VariableUncertainty).

    >>> agent_entry("ral1").label
    'uncertainty checker 1'
    """
    return lookup(AGENTS, name, "agent", ALIASES)


def agent(name: str, budget_fraction: float | None = None) -> Agent:
    """A fresh agent by name, built for a budget share of the stream if it paces itself.

    >>> agent("VU", 0.05)
    VariableUncertaintyAgent(budget_fraction=0.05)
    """
    return agent_entry(name).build(budget_fraction)
