"""Run a case study: methods × budgets × replications, resumable, with provenance.

One task is one replication of one study: its split is drawn and preprocessed once and
every method runs on it at every budget. The task's JSON file gets one row per (method,
budget) as soon as the row is done, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.catalog import learner as make_learner
from cbeal.core.exceptions import ParameterError, SingleClassWarning
from cbeal.evaluation import fit_reference
from cbeal.models import StreamLearner
from cbeal.reports.provenance import provenance
from cbeal.simulation import simulate
from cbeal.simulation.trace import Trace
from cbeal_studies.casestudy.protocol import CaseData, CaseStudy, scores
from cbeal_studies.casestudy.studies import CASE_STUDIES
from cbeal_studies.reproduction.methods import METHODS
from cbeal_studies.reproduction.tasks import TaskFile, read_rows, run_tasks

__all__ = ["collect", "run_case_study", "run_case_task", "run_method"]


def _evaluate(predict: Any, data: CaseData) -> dict[str, float]:
    row = {f"test_{k}": v for k, v in scores(data.y_test, predict(data.X_test)).items()}
    row.update({f"train_{k}": v for k, v in scores(data.y_train, predict(data.X_train)).items()})
    return row


def _reference(study: CaseStudy, name: str, data: CaseData, seed: int) -> dict[str, Any]:
    X, y = (data.X0, data.y0) if name == "Initial" else (data.X_train, data.y_train)
    # a single-class D0 predicts its class (spec §1)
    fitted = fit_reference(make_learner(study.learner), np.array([0, 1]), seed, X, y)
    return {
        **_evaluate(fitted.predict, data),
        "n_acquired": int(y.size - data.y0.size),
        "n_failures_acquired": int(y[data.y0.size :].sum()),
    }


def run_method(
    study: CaseStudy, name: str, data: CaseData, budget: int, seed: int
) -> tuple[StreamLearner, Trace]:
    """Run one stream method on a replication's data; the learner ends fitted on every label."""
    method = METHODS[name]
    if method.build is None:
        raise ParameterError(f"{name!r} is a reference, not a stream method")
    model = method.build(make_learner(study.learner), budget, data.y_stream.size, seed)
    model.set_params(refit_every=study.refit, classes=[0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingleClassWarning)  # D0 without a failure: spec §8
        model.fit(data.X0, data.y0)
        trace = simulate(model, data.X_stream, data.y_stream)
        if model.labels_since_refit:
            model.refit()
    return model, trace


def _stream(study: CaseStudy, name: str, data: CaseData, budget: int, seed: int) -> dict[str, Any]:
    model, trace = run_method(study, name, data, budget, seed)
    acq = trace.acquired
    return {
        **_evaluate(model.predict, data),
        "n_acquired": trace.n_acquired,
        "n_failures_acquired": int(data.y_stream[acq].sum()),
        "cumulative_reward": float(trace.reward.sum()),
        "n_useful": int((trace.reward > 0).sum()),
        "last_acquisition": int(np.flatnonzero(acq)[-1]) if acq.any() else -1,
        "n_flips": int(trace.flipped.sum()),
    }


def _key(method: str, share: float | None) -> tuple[str, float]:
    return method, -1.0 if share is None else float(share)  # references have no budget


def run_case_task(
    study: CaseStudy, replication: int, *, path: Path | None = None
) -> list[dict[str, Any]]:
    """Run every method and budget of one replication; merge into the JSON file at `path`."""
    task = TaskFile(path, key=lambda r: _key(r["method"], r["budget_share"]))
    todo = [
        (m, b)
        for m in study.methods
        for b in ((None,) if METHODS[m].build is None else study.budgets)
        if not task.done(_key(m, b))
    ]
    if not todo:
        return task.all()
    data = study.data(replication)
    seed = study.seed(replication)
    for name, share in todo:
        start = time.perf_counter()
        budget = -1 if share is None else data.budget(share)
        if share is None:
            row = _reference(study, name, data, seed)
        else:
            row = _stream(study, name, data, budget, seed)
        row.update(
            method=name,
            budget_share=share,
            budget=budget,
            study=study.id,
            dataset=study.dataset,
            learner=study.learner,
            refit="every" if study.refit == 1 else str(study.refit),
            replication=replication,
            seed=seed,
            protocol=study.version,
            n_stream=int(data.y_stream.size),
            n_test=int(data.y_test.size),
            d0_failures=int(data.y0.sum()),
            test_failures=int(data.y_test.sum()),
            test_start=int(data.test_index[0]),
            seconds=time.perf_counter() - start,
            **provenance(),
        )
        task.add(row)
    return task.all()


def _task_path(out: Path, study: CaseStudy, rep: int) -> Path:
    return out / "runs" / study.id / f"r{rep:02d}.json"


def run_case_study(
    studies: Sequence[str | CaseStudy],
    out: Path,
    *,
    replications: int | None = None,
    n_jobs: int = -1,
    progress: bool = True,
    name: str = "casestudy_results.csv",
) -> Path:
    """Run `studies` into `out` (resuming finished rows); returns the collected CSV's path.

    ``replications`` overrides each study's count (smaller runs for a first look).
    """
    chosen = [CASE_STUDIES[s] if isinstance(s, str) else s for s in studies]
    reps = {s.id: replications or s.replications for s in chosen}
    tasks = [(s, r, _task_path(out, s, r)) for s in chosen for r in range(reps[s.id])]
    run_tasks(_quiet_task, tasks, n_jobs=n_jobs, progress=progress, desc="case study")
    return collect(out, chosen, name=name)


def _quiet_task(study: CaseStudy, rep: int, path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        run_case_task(study, rep, path=path)


def collect(
    out: Path, studies: Sequence[str | CaseStudy], *, name: str = "casestudy_results.csv"
) -> Path:
    """Gather every finished row of `studies` under ``out/runs`` into ``out/<name>``.

    All replications, methods and budgets on disk are kept, whatever the last run asked
    for, so a narrowed rerun into the same folder never shrinks the results.
    """
    import pandas as pd

    paths = [path for study in studies
             for path in sorted((out / "runs" / (study if isinstance(study, str) else study.id))
                                .glob("r*.json"))]  # fmt: skip
    target = out / name
    pd.DataFrame(read_rows(paths)).to_csv(target, index=False)
    return target
