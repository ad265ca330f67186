"""Every method of the simulation study, by the name its table row uses (spec §6, §7).

scikit-activeml's own strategies (the "crosscheck" family) are listed only where that
library is installed (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import importlib.util
from typing import Any

from cbeal.catalog import agent
from cbeal.core import Exp4P, LabelRate, ParameterError, single_agent
from cbeal.core import paper_agents as paper_preset
from cbeal.core.presets import PAPER_PRESETS
from cbeal.evaluation import REFERENCES
from cbeal.models import CbeAL, SingleAgentLearner, StreamLearner
from cbeal_studies.reproduction.method import Builder, Method, paper_agents

__all__ = ["BASELINES", "METHODS", "Method", "baseline_learner", "method_names"]

#: the baselines' rows, by the names the result tables use (catalog names or aliases)
BASELINES = ("RS", "US", "DBALStream", "QBC-PYP", "VariableUncertainty", "Split")


def _single(name: str, epsilon: float) -> Builder:
    def build(est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        return SingleAgentLearner(
            agent=single_agent(name),
            name=name,
            epsilon=epsilon,
            estimator=est,
            budget=budget,
            random_state=seed,
        )

    return build


def _cbeal(preset: str, *, ewma: bool = True, paced: bool = False) -> Builder:
    def build(est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        solver = None if ewma else Exp4P(ewma=False)
        # paced: the same B labels, spent at most at the rate B / n over the stream
        spend = LabelRate(rate=budget / n_stream, total=budget) if paced else budget
        return CbeAL(
            agents=paper_preset(preset),
            solver=solver,
            epsilon=0.01,
            estimator=est,
            budget=spend,
            random_state=seed,
        )

    return build


def baseline_learner(name: str, est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
    """Baseline `name` as a stream model: its agent alone, ε = 0, budget fraction B / n."""
    return SingleAgentLearner(
        agent=agent(name, budget / n_stream),
        name=name,
        epsilon=0.0,
        estimator=est,
        budget=budget,
        random_state=seed,
    )


def _baseline(name: str) -> Builder:
    def build(est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        return baseline_learner(name, est, budget, n_stream, seed)

    return build


def _methods() -> dict[str, Method]:
    rows = [
        *(Method(a, "explore", _single(a, 0.0), full=True) for a in paper_agents("exploration")),
        *(Method(a, "exploit", _single(a, 0.01), full=True) for a in paper_agents("exploitation")),
        *(Method(p, "cbeal", _cbeal(p)) for p in PAPER_PRESETS),
        Method("CBEAL-6 (no EWMA)", "cbeal", _cbeal("CBEAL-6", ewma=False)),
        Method("CBEAL-6 (paced)", "pacing", _cbeal("CBEAL-6", paced=True)),
        *(
            Method(
                b,
                "benchmark" if b in ("RS", "US", "DBALStream", "QBC-PYP") else "extra",
                _baseline(b),
            )
            for b in BASELINES
        ),
        *(Method(r, "reference", None) for r in REFERENCES),
    ]
    if importlib.util.find_spec("skactiveml") is not None:
        from cbeal_studies.reproduction.skactiveml_check import skactiveml_methods

        rows.extend(skactiveml_methods().values())
    return {m.name: m for m in rows}


METHODS: dict[str, Method] = _methods()


def method_names(names: str | list[str] | None) -> list[str]:
    """Validate method names; ``None`` or ``"all"`` means every method."""
    if names is None or names == "all":
        return list(METHODS)
    chosen = [names] if isinstance(names, str) else list(names)
    unknown = [n for n in chosen if n not in METHODS]
    if unknown:
        raise ParameterError(f"unknown methods {unknown}; choose from {list(METHODS)}")
    return chosen
