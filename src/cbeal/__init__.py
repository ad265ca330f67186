"""cbeal: stream-based active learning for manufacturing (CbeAL, Zeng, Chen & Jin).

>>> from cbeal import CbeAL, simulate
"""

import importlib
from typing import TYPE_CHECKING, Any

from cbeal._version import __version__

# Everything loads on first use: `import cbeal` (and the command line's `cbeal --version`)
# costs no numpy, and the stream models, which need scikit-learn, stay out of
# `import cbeal.core` (numpy only).
_LAZY = {
    "Agent": "cbeal.core",
    "Budget": "cbeal.core",
    "BudgetError": "cbeal.core",
    "CbealError": "cbeal.core",
    "Context": "cbeal.core",
    "Decision": "cbeal.core",
    "DecisionError": "cbeal.core",
    "Exp4P": "cbeal.core",
    "InvalidInputError": "cbeal.core",
    "LabelCount": "cbeal.core",
    "LabelRate": "cbeal.core",
    "LowDensityAgent": "cbeal.core",
    "ModelFileError": "cbeal.core",
    "NotFittedError": "cbeal.core",
    "ParameterError": "cbeal.core",
    "ReinforcedAgent": "cbeal.core",
    "SingleClassWarning": "cbeal.core",
    "SpaceFillingAgent": "cbeal.core",
    "TaskError": "cbeal.core",
    "UnknownLabelError": "cbeal.core",
    "preset_agents": "cbeal.catalog",
    "CbeAL": "cbeal.models",
    "RenewedBudget": "cbeal.models.renewal",
    "SingleAgentLearner": "cbeal.models",
    "StreamLearner": "cbeal.models",
    "simulate": "cbeal.simulation.loop",
    "SimulatedStream": "cbeal.streams",
    "make_stream": "cbeal.streams",
    "Trace": "cbeal.simulation.trace",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cbeal' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


if TYPE_CHECKING:  # pragma: no cover
    from cbeal.catalog import preset_agents
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
    )
    from cbeal.models import CbeAL, SingleAgentLearner, StreamLearner
    from cbeal.models.renewal import RenewedBudget
    from cbeal.simulation.loop import simulate
    from cbeal.simulation.trace import Trace
    from cbeal.streams import SimulatedStream, make_stream

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
