"""cbeal: stream-based active learning for manufacturing (CbeAL, Zeng, Chen & Jin).

>>> from cbeal import CbeAL, simulate
"""

from cbeal._version import __version__
from cbeal.core import (
    Agent,
    BudgetError,
    CbealError,
    Context,
    Decision,
    DecisionError,
    Exp4P,
    InvalidInputError,
    LowDensityAgent,
    NotFittedError,
    ReinforcedAgent,
    SingleClassWarning,
    SpaceFillingAgent,
    UnknownLabelError,
    preset_agents,
)
from cbeal.model import CbeAL, SingleAgentLearner, StreamLearner
from cbeal.simulate import simulate
from cbeal.streams import SimulatedStream, make_stream
from cbeal.trace import Trace

__all__ = [
    "Agent",
    "BudgetError",
    "CbeAL",
    "CbealError",
    "Context",
    "Decision",
    "DecisionError",
    "Exp4P",
    "InvalidInputError",
    "LowDensityAgent",
    "NotFittedError",
    "ReinforcedAgent",
    "SimulatedStream",
    "SingleAgentLearner",
    "SingleClassWarning",
    "SpaceFillingAgent",
    "StreamLearner",
    "Trace",
    "UnknownLabelError",
    "__version__",
    "make_stream",
    "preset_agents",
    "simulate",
]
