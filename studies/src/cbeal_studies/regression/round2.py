"""Round 2 of the regression benchmark (issue 33): candidates that mix a model-uncertainty
score with input-space diversity and a recency term under the deficit pacer, the
explorers alone and the old CBEAL-R as controls, and random sampling at equal labels as
the baseline (studies/REGRESSION.md, round 2).

*Random sampling at equal labels*: for a run that spent ``L`` labels, the test RMSE of the
learner trained on ``D0`` and ``L`` stream rows drawn uniformly without replacement (the
mean over :data:`DRAWS` draws, seeded by workload and replication only, so every strategy
is held against the same draws). :func:`uniform_curve` gives it for every ``L`` up to the
budget.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.baselines import RandomAgent
from cbeal.catalog import AGENTS
from cbeal.catalog import agent as catalog_agent
from cbeal.core import ScoreFusion
from cbeal.core.drift import DriftAgent
from cbeal.core.labelled_distance import LabelledDistanceAgent
from cbeal.core.low_density import LowDensityAgent
from cbeal.core.spread_rank import SpreadRankAgent
from cbeal.learners.regression_committee import CommitteeVarianceAgent, ExpectedChangeAgent
from cbeal.models import CbeAL, SingleAgentLearner, StreamLearner
from cbeal.models.fusion_presets import fusion_of
from cbeal.simulation import simulate

from .runner import LEARNERS
from .workloads import RegressionWorkload

__all__ = ["CANDIDATES", "DRAWS", "STRATEGIES", "run_one", "uniform_curve"]

DRAWS = 5
STEP = 5


def _members(names: tuple[str, ...], learner: Callable[[], Any]) -> list[tuple[str, Any]]:
    make = {
        "QBCRr": lambda: CommitteeVarianceAgent(estimator=learner(), scale="rank"),
        "EMCMr": lambda: ExpectedChangeAgent(estimator=learner(), scale="rank"),
        "QBCR": lambda: CommitteeVarianceAgent(estimator=learner()),
        "EMCM": lambda: ExpectedChangeAgent(estimator=learner()),
        "SPRD": lambda: SpreadRankAgent(),
        "DTL": lambda: LabelledDistanceAgent(),
        "DTLm": lambda: LabelledDistanceAgent(memory=50),
        "LDS": lambda: LowDensityAgent(window_size=100, sparsity_fraction=1.0),
        "DRIFT": lambda: DriftAgent(),
    }
    return [(n, make[n]()) for n in names]


def _fusion(*names: str, pacer: str = "deficit") -> Callable[..., StreamLearner]:
    def build(learner: Callable[[], Any], budget: int, share: float, **kw: Any) -> StreamLearner:
        fusion = ScoreFusion(budget_fraction=share, pacer=pacer)
        return CbeAL(agents=_members(names, learner), fusion=fusion, epsilon=0.0,
                     budget=budget, **kw)  # fmt: skip

    return build


def _old_cbeal_r(learner: Callable[[], Any], budget: int, share: float, **kw: Any) -> StreamLearner:
    """CBEAL-R as registered in round 1: QBCR + EMCM, equal weights, the accrual pacer."""
    fusion = fusion_of("equal", budget_fraction=share)
    return CbeAL(agents=_members(("QBCR", "EMCM"), learner), fusion=fusion, epsilon=0.0,
                 budget=budget, **kw)  # fmt: skip


def _single(name: str) -> Callable[..., StreamLearner]:
    def build(learner: Callable[[], Any], budget: int, share: float, **kw: Any) -> StreamLearner:
        agent = RandomAgent(rate=share) if name == "RS" else catalog_agent(name, share)
        return SingleAgentLearner(agent=agent, budget=budget, **kw)

    return build


#: the paper's input-space explorers (LD1-3, SPF1), from the catalog
EXPLORERS = tuple(n for n, e in AGENTS.items() if e.family == "paper" and e.kind == "exploration")

#: the candidates (fixed before any run, studies/REGRESSION.md round 2): eligible for the preset
CANDIDATES: dict[str, Callable[..., StreamLearner]] = {
    "F:QBCRr+DTL": _fusion("QBCRr", "DTL"),
    "F:QBCRr+DTL+DRIFT": _fusion("QBCRr", "DTL", "DRIFT"),
    "F:EMCMr+DTL+DRIFT": _fusion("EMCMr", "DTL", "DRIFT"),
    "F:SPRD+DTL+DRIFT": _fusion("SPRD", "DTL", "DRIFT"),
    "F:QBCRr+LDS+DRIFT": _fusion("QBCRr", "LDS", "DRIFT"),
    "F:QBCRr+DTLm+DRIFT": _fusion("QBCRr", "DTLm", "DRIFT"),
}
#: the controls: the explorers alone (as the catalog gives them), the old CBEAL-R, the RS
#: agent (at the budget's share), and the diversity score alone under the deficit pacer
CONTROLS: dict[str, Callable[..., StreamLearner]] = {
    **{name: _single(name) for name in EXPLORERS},
    "CBEAL-R (round 1)": _old_cbeal_r,
    "RS agent": _single("RS"),
    "F:DTL": _fusion("DTL"),
}


def _preset(learner: Callable[[], Any], budget: int, share: float, **kw: Any) -> StreamLearner:
    """The catalog's CBEAL-R exactly as a user gets it (count budget, its share as pace)."""
    return CbeAL.from_preset("CBEAL-R", budget=budget, budget_fraction=share, **kw)


#: the choice on the development part (F:QBCRr+DTLm+DRIFT), registered as CBEAL-R
CHOICE = "F:QBCRr+DTLm+DRIFT"
STRATEGIES = {**CANDIDATES, **CONTROLS, "CBEAL-R": _preset}
_ORDER = tuple(STRATEGIES)


def _rmse(pred: np.ndarray, y: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(pred) - y) ** 2)))


def uniform_curve(w: RegressionWorkload, learner: str, replication: int, upto: int) -> list[float]:
    """Test RMSE of `learner` on ``D0`` and ``L`` uniformly drawn stream rows, for
    ``L = 0 … upto`` (the mean over :data:`DRAWS` draws)."""
    from cbeal.learners.regression import RegressionAdapter

    seed = zlib.crc32(f"uniform/{w.name}/{learner}/{replication}".encode())
    rng = np.random.default_rng(seed)
    n = w.X_stream.shape[0]
    out = np.zeros(upto + 1)
    for _ in range(DRAWS):
        idx = rng.permutation(n)[:upto]
        for k in range(upto + 1):
            X = np.vstack([w.X0, w.X_stream[idx[:k]]])
            y = np.r_[w.y0, w.y_stream[idx[:k]]]
            fit = RegressionAdapter(LEARNERS[learner](), 0).fit(X, y, warn=False)
            out[k] += _rmse(fit.predict(w.X_test), w.y_test) / DRAWS
    return [round(float(v), 6) for v in out]


def run_one(
    strategy: str, w: RegressionWorkload, learner: str, replication: int, share: float
) -> dict[str, Any]:
    """One run of `strategy` on workload replication `w` with a count budget
    ``B = round(share · n)`` (paced at ``B / n``); its learning curve every `STEP` labels."""
    n = w.X_stream.shape[0]
    budget = max(1, round(share * n))
    seed = replication * 1000 + _ORDER.index(strategy)
    model = STRATEGIES[strategy](
        LEARNERS[learner], budget, budget / n,
        estimator=LEARNERS[learner](), tolerance=w.tolerance, random_state=seed,
    )  # fmt: skip
    started = time.process_time()
    model.fit(w.X0, w.y0)
    trace = simulate(model, w.X_stream, w.y_stream)
    cpu = time.process_time() - started
    labels = int(trace.n_acquired)
    curve = []
    for k in sorted({*range(0, labels, STEP), labels}):
        fitted = model.train_learner(upto=w.X0.shape[0] + k)
        curve.append([k, _rmse(fitted.predict(w.X_test), w.y_test)])
    acq = np.flatnonzero(trace.acquired)
    return {
        "strategy": strategy, "workload": w.name, "learner": learner,
        "replication": replication, "share": share, "budget": budget, "labels": labels,
        "first_half": float(np.mean(acq < n / 2)) if acq.size else float("nan"),
        "tolerance": w.tolerance, "rmse": curve[-1][1], "curve": curve,
        "cpu_s": round(cpu, 2),
    }  # fmt: skip


def run_grid(
    tasks: list[tuple[str, str, str, int, float]],
    load: Callable[[str, int], RegressionWorkload],
    path: Path,
    jobs: int,
) -> None:
    """Run `tasks` (strategy, workload, learner, replication, share; strategy ``"="`` is
    the uniform curve) not yet in `path` (one JSON line each), `jobs` at a time."""
    from joblib import Parallel, delayed

    path.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line)
            done.add((r["strategy"], r["workload"], r["learner"], r["replication"], r["share"]))
    todo = [t for t in tasks if t not in done]

    def one(s: str, wl: str, lrn: str, rep: int, share: float) -> dict[str, Any]:
        w = load(wl, rep)
        if s == "=":
            budget = max(1, round(share * w.X_stream.shape[0]))
            curve = uniform_curve(w, lrn, rep, budget)
            return {"strategy": "=", "workload": wl, "learner": lrn, "replication": rep,
                    "share": share, "budget": budget, "uniform": curve}  # fmt: skip
        return run_one(s, w, lrn, rep, share)

    with path.open("a") as fh:
        for row in Parallel(n_jobs=jobs, return_as="generator")(delayed(one)(*t) for t in todo):
            fh.write(json.dumps(row) + "\n")
            fh.flush()
