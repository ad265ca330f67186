"""Runs of the regression benchmark: strategies, learners, one run with its learning curve.

``studies/scripts/regression_bench.py`` runs every strategy on every workload of a part
(resumable: one JSON line per run in ``runs.jsonl``) and writes the report.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import BayesianRidge
from sklearn.pipeline import make_pipeline

from cbeal.baselines import RandomAgent
from cbeal.core import ReinforcedSpreadAgent, ScoreFusion
from cbeal.core.regression import regression_scores
from cbeal.learners.regression_committee import CommitteeVarianceAgent, ExpectedChangeAgent
from cbeal.models import CbeAL, SingleAgentLearner, StreamLearner
from cbeal.simulation import simulate

from .peers import WindowPoolAgent
from .workloads import N0, RegressionWorkload, load_workload

__all__ = ["LEARNERS", "STRATEGIES", "run_one"]

BUDGET_SHARE = 0.10
STEP = 5  # the learning curve: test RMSE after every STEP labels


def _bayes() -> Any:
    return BayesianRidge()


def _rbf() -> Any:
    return make_pipeline(Nystroem(n_components=60, random_state=0), BayesianRidge())


LEARNERS: dict[str, Callable[[], Any]] = {"bayes-ridge": _bayes, "rbf-bayes": _rbf}


def _member(name: str, learner: Callable[[], Any]) -> tuple[str, Any]:
    from cbeal.core import SpaceFillingAgent

    make = {
        "RALR1": lambda: ReinforcedSpreadAgent(theta0=0.9, eta=0.01),
        "QBCR": lambda: CommitteeVarianceAgent(estimator=learner()),
        "EMCM": lambda: ExpectedChangeAgent(estimator=learner()),
        "SPF1": lambda: SpaceFillingAgent(window_size=60),
        "GSx": lambda: WindowPoolAgent(window_size=100),
    }[name]
    return name, make()


def _fusion(*members: str) -> Callable[..., StreamLearner]:
    def build(learner: Callable[[], Any], budget: int, share: float, **kw: Any) -> StreamLearner:
        agents = [_member(m, learner) for m in members]
        fusion = ScoreFusion(budget_fraction=share)
        return CbeAL(agents=agents, fusion=fusion, epsilon=0.0, budget=budget, **kw)

    return build


def _voting(*members: str) -> Callable[..., StreamLearner]:
    def build(learner: Callable[[], Any], budget: int, share: float, **kw: Any) -> StreamLearner:
        return CbeAL(agents=[_member(m, learner) for m in members], budget=budget, **kw)

    return build


def _single(make: Callable[[float], Any]) -> Callable[..., StreamLearner]:
    def build(learner: Callable[[], Any], budget: int, share: float, **kw: Any) -> StreamLearner:
        return SingleAgentLearner(agent=make(share), budget=budget, **kw)

    return build


def _preset(name: str) -> Callable[..., StreamLearner]:
    """A catalog preset exactly as a user gets it (count budget, ``budget_fraction=B/n``)."""

    def build(learner: Callable[[], Any], budget: int, share: float, **kw: Any) -> StreamLearner:
        return CbeAL.from_preset(name, budget=budget, budget_fraction=share, **kw)

    return build


#: name → (group, builder); groups: "peer" (fixed), "candidate" (eligible for the preset)
STRATEGIES: dict[str, tuple[str, Callable[..., StreamLearner]]] = {
    "RS": ("peer", _single(lambda b: RandomAgent(rate=b))),
    "SPR": ("peer", _single(lambda b: ReinforcedSpreadAgent(theta0=0.7, eta=0.0))),
    "RALR1": ("peer", _single(lambda b: ReinforcedSpreadAgent(theta0=0.9, eta=0.01))),
    "F:RALR1+QBCR+EMCM": ("candidate", _fusion("RALR1", "QBCR", "EMCM")),
    "F:RALR1+QBCR+EMCM+SPF1": ("candidate", _fusion("RALR1", "QBCR", "EMCM", "SPF1")),
    "F:RALR1+QBCR": ("candidate", _fusion("RALR1", "QBCR")),
    "F:QBCR+EMCM": ("candidate", _fusion("QBCR", "EMCM")),
    "V:RALR1+QBCR+EMCM+SPF1": ("candidate", _voting("RALR1", "QBCR", "EMCM", "SPF1")),
    # scikit-activeml's pool strategy GSx on a sliding window, through the same pacer
    "skactiveml:GSx-window": ("extra", _fusion("GSx")),
    # the recommended regression preset (the choice on the development part: F:QBCR+EMCM)
    "CBEAL-R": ("recommended", _preset("CBEAL-R")),
}
#: each strategy's seed offset (the sorted names of the development run, new ones after)
_SEED_ORDER = (*sorted(n for n in STRATEGIES if n != "CBEAL-R"), "CBEAL-R")


def run_one(strategy: str, workload: str, learner: str, replication: int) -> dict[str, Any]:
    """One run: the strategy on one replication; test RMSE after every `STEP` labels."""
    w: RegressionWorkload = load_workload(workload, replication)
    n = w.X_stream.shape[0]
    budget = round(BUDGET_SHARE * n)
    _, build = STRATEGIES[strategy]
    seed = replication * 1000 + _SEED_ORDER.index(strategy)
    model = build(
        LEARNERS[learner],
        budget,
        budget / n,
        estimator=LEARNERS[learner](),
        tolerance=w.tolerance,
        random_state=seed,
    )
    started = time.process_time()
    model.fit(w.X0, w.y0)
    trace = simulate(model, w.X_stream, w.y_stream)
    cpu = time.process_time() - started
    labels = int(trace.n_acquired)
    curve = []
    for k in [*range(0, labels, STEP), labels]:
        fitted = model.train_learner(upto=N0 + k)
        pred = fitted.predict(w.X_test)
        curve.append([k, float(np.sqrt(np.mean((pred - w.y_test) ** 2)))])
    final = regression_scores(w.y_test, model.predict(w.X_test), w.tolerance)
    acq = np.flatnonzero(trace.acquired)
    return {
        "strategy": strategy,
        "workload": workload,
        "learner": learner,
        "replication": replication,
        "budget": budget,
        "labels": labels,
        "first_half": float(np.mean(acq < n / 2)) if acq.size else float("nan"),
        "tolerance": w.tolerance,
        "final": final,
        "curve": curve,
        "cpu_s": round(cpu, 2),
    }


#: the evaluation part's strategies: the peers and the recommended preset (set after the choice)
EVAL_STRATEGIES: tuple[str, ...] = ("RS", "SPR", "RALR1", "CBEAL-R", "skactiveml:GSx-window")


def run_part(
    workloads: tuple[str, ...],
    out: Path,
    replications: int,
    jobs: int,
    strategies: tuple[str, ...] | None = None,
) -> None:
    """Every strategy × learner × replication of `workloads`, appended to ``out/runs.jsonl``."""
    from joblib import Parallel, delayed

    out.mkdir(parents=True, exist_ok=True)
    path = out / "runs.jsonl"
    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line)
            done.add((r["strategy"], r["workload"], r["learner"], r["replication"]))
    todo = [
        (s, w, lrn, r)
        for r in range(replications)
        for w in workloads
        for lrn in LEARNERS
        for s in strategies or tuple(STRATEGIES)
        if (s, w, lrn, r) not in done
    ]
    with path.open("a") as fh:
        for row in Parallel(n_jobs=jobs, return_as="generator")(
            delayed(run_one)(*task) for task in todo
        ):
            fh.write(json.dumps(row) + "\n")
            fh.flush()
