"""Every method of the simulation study, by the name its table row uses (spec §6, §7)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cbeal.baselines import (
    DBALStreamAgent,
    QBCPYPAgent,
    RandomAgent,
    SplitAgent,
    UncertaintyAgent,
    VariableUncertaintyAgent,
)
from cbeal.core import Agent, Exp4P, preset_agents, single_agent
from cbeal.models import CbeAL, SingleAgentLearner, StreamLearner

__all__ = ["METHODS", "Method", "method_names"]

Builder = Callable[[Any, int, int, int], StreamLearner]


@dataclass(frozen=True)
class Method:
    """A row of the paper's tables.

    ``build(estimator, budget, n_stream, seed)`` returns an unfitted stream model; ``None``
    marks the references "Initial" and "All Training Data". ``full`` adds the "(Full)"
    variant: unused budget spent at random after the stream. ``family`` groups rows:
    ``explore`` / ``exploit`` (single agents), ``cbeal``, ``benchmark``, ``extra``,
    ``crosscheck`` (scikit-activeml's implementations), ``reference``.
    """

    name: str
    family: str
    build: Builder | None
    full: bool = False


def _single(name: str, epsilon: float) -> Builder:
    def build(est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        return SingleAgentLearner(agent=single_agent(name), name=name, epsilon=epsilon,
                                  estimator=est, budget=budget, random_state=seed)

    return build


def _cbeal(preset: str, *, ewma: bool = True) -> Builder:
    def build(est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        solver = None if ewma else Exp4P(ewma=False)
        return CbeAL(agents=preset_agents(preset), solver=solver, epsilon=0.01, estimator=est,
                     budget=budget, random_state=seed)

    return build


def _baseline(name: str, make: Callable[[float], Agent]) -> Builder:
    def build(est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        return SingleAgentLearner(agent=make(budget / n_stream), name=name, epsilon=0.0,
                                  estimator=est, budget=budget, random_state=seed)

    return build


METHODS: dict[str, Method] = {
    m.name: m
    for m in [
        *(Method(a, "explore", _single(a, 0.0), full=True) for a in ("LD1", "LD2", "LD3", "SPF1")),
        *(Method(a, "exploit", _single(a, 0.01), full=True)
          for a in ("RAL1", "RAL2", "RAL3", "RAL4")),
        *(Method(p, "cbeal", _cbeal(p)) for p in
          ("CBEAL-2", "CBEAL-4", "CBEAL-4*", "CBEAL-6", "CBEAL-8")),
        Method("CBEAL-6 (no EWMA)", "cbeal", _cbeal("CBEAL-6", ewma=False)),
        Method("RS", "benchmark", _baseline("RS", lambda b: RandomAgent(rate=b))),
        Method("US", "benchmark", _baseline("US", lambda b: UncertaintyAgent(threshold=0.7))),
        Method("DBALStream", "benchmark",
               _baseline("DBALStream", lambda b: DBALStreamAgent(budget_fraction=b))),
        Method("QBC-PYP", "benchmark", _baseline("QBC-PYP", lambda b: QBCPYPAgent())),
        Method("VariableUncertainty", "extra",
               _baseline("VariableUncertainty",
                         lambda b: VariableUncertaintyAgent(budget_fraction=b))),
        Method("Split", "extra", _baseline("Split", lambda b: SplitAgent(budget_fraction=b))),
        Method("Initial", "reference", None),
        Method("All Training Data", "reference", None),
    ]
}

# scikit-activeml's own strategies on the same streams (running them needs cbeal[bench]);
# imported here, after Method is defined, because that module builds on it
from cbeal.experiments.skactiveml_check import skactiveml_methods  # noqa: E402

METHODS.update(skactiveml_methods())


def method_names(names: str | list[str] | None) -> list[str]:
    """Validate method names; ``None`` or ``"all"`` means every method."""
    if names is None or names == "all":
        return list(METHODS)
    chosen = [names] if isinstance(names, str) else list(names)
    unknown = [n for n in chosen if n not in METHODS]
    if unknown:
        raise ValueError(f"unknown methods {unknown}; choose from {list(METHODS)}")
    return chosen
