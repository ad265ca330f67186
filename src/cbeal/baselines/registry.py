"""The baselines by the names the paper's tables use, each built for a budget fraction."""

from __future__ import annotations

from collections.abc import Callable

from cbeal.baselines.dbal_stream import DBALStreamAgent
from cbeal.baselines.qbc_pyp import QBCPYPAgent
from cbeal.baselines.simple import (
    RandomAgent,
    SplitAgent,
    UncertaintyAgent,
    VariableUncertaintyAgent,
)
from cbeal.core.agent import Agent
from cbeal.core.exceptions import ParameterError

__all__ = ["BASELINES", "baseline_agent"]

#: name → agent for a budget fraction ``b = B / n_stream`` (spec §6; VariableUncertainty
#: and Split are Žliobaitė et al.'s strategies, beyond the paper's benchmarks)
BASELINES: dict[str, Callable[[float], Agent]] = {
    "RS": lambda b: RandomAgent(rate=b),
    "US": lambda b: UncertaintyAgent(threshold=0.7),
    "DBALStream": lambda b: DBALStreamAgent(budget_fraction=b),
    "QBC-PYP": lambda b: QBCPYPAgent(),
    "VariableUncertainty": lambda b: VariableUncertaintyAgent(budget_fraction=b),
    "Split": lambda b: SplitAgent(budget_fraction=b),
}


def baseline_agent(name: str, budget_fraction: float) -> Agent:
    """A fresh agent of baseline `name` for a budget of ``budget_fraction`` of the stream.

    >>> baseline_agent("RS", 0.1)
    RandomAgent()
    """
    try:
        make = BASELINES[name]
    except KeyError:
        raise ParameterError(
            f"unknown baseline {name!r}; choose one of {', '.join(BASELINES)}"
        ) from None
    return make(budget_fraction)
