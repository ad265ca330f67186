"""The decision core of cbeal: agents, the Exp4.P-EWMA solver and the ensemble, score fusion
and its pacer (numpy only).

Nothing in this package imports scikit-learn, pandas, IO, web or plotting code; a test
enforces it.
"""

from cbeal.core.agent import Agent, Context
from cbeal.core.budget import (
    DEFAULT_PACE,
    RATE_BURST,
    Budget,
    LabelCount,
    LabelRate,
    as_budget,
    paced_share,
)
from cbeal.core.decision import Decision
from cbeal.core.deficit_pacer import DeficitPacer
from cbeal.core.density_weighted import DensityWeightedAgent
from cbeal.core.drift import DriftAgent
from cbeal.core.ensemble import AgentEnsemble
from cbeal.core.ewma import ChartStep, EWMAChart
from cbeal.core.exceptions import (
    BudgetError,
    CbealError,
    DecisionError,
    InvalidInputError,
    ModelFileError,
    NotFittedError,
    ParameterError,
    SingleClassWarning,
    TaskError,
    UnknownLabelError,
)
from cbeal.core.exp4p import Exp4P
from cbeal.core.fusion import ScoreFusion
from cbeal.core.fusion_weights import EqualWeights, EvidenceWeights, FusionWeights
from cbeal.core.labelled_distance import LabelledDistanceAgent
from cbeal.core.low_density import LowDensityAgent
from cbeal.core.minority import MinorityAgent
from cbeal.core.pacer import QuantilePacer
from cbeal.core.params import Params
from cbeal.core.policy import Policy, Proposal
from cbeal.core.presets import PAPER_PRESETS, paper_agents, single_agent
from cbeal.core.regression import RegressionContext, ReinforcedSpreadAgent
from cbeal.core.reinforced import ReinforcedAgent
from cbeal.core.single import SingleAgentPolicy
from cbeal.core.space_filling import SpaceFillingAgent
from cbeal.core.spread_rank import SpreadRankAgent

__all__ = [
    "DEFAULT_PACE",
    "PAPER_PRESETS",
    "RATE_BURST",
    "Agent",
    "AgentEnsemble",
    "Budget",
    "BudgetError",
    "CbealError",
    "ChartStep",
    "Context",
    "Decision",
    "DecisionError",
    "DeficitPacer",
    "DensityWeightedAgent",
    "DriftAgent",
    "EWMAChart",
    "EqualWeights",
    "EvidenceWeights",
    "Exp4P",
    "FusionWeights",
    "InvalidInputError",
    "LabelCount",
    "LabelRate",
    "LabelledDistanceAgent",
    "LowDensityAgent",
    "MinorityAgent",
    "ModelFileError",
    "NotFittedError",
    "ParameterError",
    "Params",
    "Policy",
    "Proposal",
    "QuantilePacer",
    "RegressionContext",
    "ReinforcedAgent",
    "ReinforcedSpreadAgent",
    "ScoreFusion",
    "SingleAgentPolicy",
    "SingleClassWarning",
    "SpaceFillingAgent",
    "SpreadRankAgent",
    "TaskError",
    "UnknownLabelError",
    "as_budget",
    "paced_share",
    "paper_agents",
    "single_agent",
]
