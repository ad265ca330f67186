"""cbeal: stream-based active learning for manufacturing (CbeAL, Zeng, Chen & Jin).

>>> from cbeal import CbeAL, simulate
"""

import importlib
from typing import TYPE_CHECKING, Any

from cbeal._version import __version__
from cbeal.core import (
    Agent,
    Budget,
    BudgetError,
    CbealError,
    Context,
    Decision,
    DecisionError,
    Exp4P,
    InvalidInputError,
    LabelCount,
    LabelRate,
    LowDensityAgent,
    ModelFileError,
    NotFittedError,
    ParameterError,
    ReinforcedAgent,
    SingleClassWarning,
    SpaceFillingAgent,
    TaskError,
    UnknownLabelError,
    preset_agents,
)

# The stream models need scikit-learn (through the learner layer); load them on first use
# so that `import cbeal.core` stays numpy-only.
_LAZY = {
    "CbeAL": "cbeal.models",
    "RenewedBudget": "cbeal.models.renewal",
    "SingleAgentLearner": "cbeal.models",
    "StreamLearner": "cbeal.models",
    "simulate": "cbeal.simulation",
    "SimulatedStream": "cbeal.streams",
    "make_stream": "cbeal.streams",
    "Trace": "cbeal.trace",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cbeal' has no attribute {name!r}")


if TYPE_CHECKING:  # pragma: no cover
    from cbeal.models import CbeAL, SingleAgentLearner, StreamLearner
    from cbeal.models.renewal import RenewedBudget
    from cbeal.simulation import simulate
    from cbeal.streams import SimulatedStream, make_stream
    from cbeal.trace import Trace

__all__ = [
    "Agent",
    "Budget",
    "BudgetError",
    "CbeAL",
    "CbealError",
    "Context",
    "Decision",
    "DecisionError",
    "Exp4P",
    "InvalidInputError",
    "LabelCount",
    "LabelRate",
    "LowDensityAgent",
    "ModelFileError",
    "NotFittedError",
    "ParameterError",
    "ReinforcedAgent",
    "RenewedBudget",
    "SimulatedStream",
    "SingleAgentLearner",
    "SingleClassWarning",
    "SpaceFillingAgent",
    "StreamLearner",
    "TaskError",
    "Trace",
    "UnknownLabelError",
    "__version__",
    "make_stream",
    "preset_agents",
    "simulate",
]
