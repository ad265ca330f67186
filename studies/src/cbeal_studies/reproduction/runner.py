"""Run methods × scenarios × replications, in parallel, resumably, with provenance.

Each (scenario, replication) is one task: its data set is drawn once and every method runs
on it. A task writes one JSON file with one row per method; a rerun skips the methods a
file already holds, so an interrupted grid resumes where it stopped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.catalog import learner as make_learner
from cbeal.evaluation import accuracy, fit_reference
from cbeal.reports.provenance import provenance
from cbeal.simulation import simulate
from cbeal_studies.reproduction.methods import METHODS, method_names
from cbeal_studies.reproduction.scenarios import SCENARIOS, Scenario
from cbeal_studies.reproduction.tasks import TaskFile, read_rows, run_tasks

__all__ = ["RunConfig", "collect", "reference_accuracy", "run_grid", "run_task"]


@dataclass(frozen=True)
class RunConfig:
    """What a grid run is: its scenarios, replications, methods, generator and learner."""

    scenarios: tuple[str, ...]
    replications: int
    methods: tuple[str, ...]
    generator: str = "v1"
    learner: str = "svm"


def reference_accuracy(learner: str, X: np.ndarray, y: np.ndarray, data: Any, seed: int) -> float:
    """Test accuracy of the learner trained on (X, y), seeded as the stream models are."""
    classes = np.unique(np.concatenate([data.y0, data.y_stream]))
    fitted = fit_reference(make_learner(learner), classes, seed, X, y)
    return accuracy(data.y_test, fitted.predict(data.X_test))


def _reference(name: str, learner: str, data: Any, seed: int) -> dict[str, Any]:
    if name == "Initial":
        X, y = data.X0, data.y0
    else:
        X, y = np.vstack([data.X0, data.X_stream]), np.concatenate([data.y0, data.y_stream])
    return {"accuracy": reference_accuracy(learner, X, y, data, seed), "n_acquired": int(y.size)}


def _stream(name: str, learner: str, data: Any, seed: int) -> dict[str, Any]:
    method = METHODS[name]
    assert method.build is not None
    n_stream = data.X_stream.shape[0]
    model = method.build(make_learner(learner), data.budget, n_stream, seed)
    model.fit(data.X0, data.y0)
    trace = simulate(model, data.X_stream, data.y_stream)
    acquired = trace.acquired
    row: dict[str, Any] = {
        "accuracy": accuracy(data.y_test, model.predict(data.X_test)),
        "n_acquired": trace.n_acquired,
        "share_positive": float(np.mean(data.y_stream[acquired] == 1))
        if acquired.any()
        else float("nan"),
        "cumulative_reward": float(trace.reward.sum()),
        "n_useful": int((trace.reward > 0).sum()),
        "n_useless": int((trace.reward < 0).sum()),
        "last_acquisition": int(np.flatnonzero(acquired)[-1]) if acquired.any() else -1,
        "n_flips": int(trace.flipped.sum()),
        "spent_first_half": int(acquired[: acquired.size // 2].sum()),
    }
    if method.full:
        # "(Full)": spend the unused budget at random among the samples not acquired
        rng = np.random.default_rng(seed + 1)
        spare = data.budget - trace.n_acquired
        extra = rng.choice(np.flatnonzero(~acquired), size=max(spare, 0), replace=False)
        X_pool, y_pool = model.labelled_pool
        X_full = np.vstack([X_pool, data.X_stream[extra]])
        y_full = np.concatenate([y_pool, data.y_stream[extra]])
        row["accuracy_full"] = (
            reference_accuracy(learner, X_full, y_full, data, seed)
            if extra.size
            else row["accuracy"]
        )
    return row


def run_task(
    scenario: Scenario,
    replication: int,
    methods: Iterable[str],
    *,
    generator: str = "v1",
    learner: str = "svm",
    path: Path | None = None,
) -> list[dict[str, Any]]:
    """Run `methods` on one replication of `scenario`; merge into the JSON file at `path`."""
    import time

    task = TaskFile(path, key=lambda r: r["method"])
    todo = [m for m in methods if not task.done(m)]
    if not todo:
        return task.all()
    data = scenario.data(replication, generator)
    seed = scenario.seed(replication, generator)
    for name in todo:
        start = time.perf_counter()
        if METHODS[name].build is None:
            row = _reference(name, learner, data, seed)
        else:
            row = _stream(name, learner, data, seed)
        row.update(
            method=name,
            scenario=scenario.id,
            replication=replication,
            generator=generator,
            learner=learner,
            seed=seed,
            budget=data.budget,
            seconds=time.perf_counter() - start,
            n=scenario.n,
            pc=scenario.pc,
            ds=scenario.ds,
            sp=scenario.sp,
            **provenance(),
        )
        task.add(row)
    return task.all()


def _task_path(out: Path, cfg: RunConfig, scenario_id: str, rep: int) -> Path:
    return out / "runs" / cfg.generator / cfg.learner / f"{scenario_id}_r{rep:02d}.json"


def run_grid(
    cfg: RunConfig,
    out: Path,
    *,
    n_jobs: int = -1,
    backend: str = "loky",
    cluster: str | None = None,
    progress: bool = True,
) -> Path:
    """Run the grid of `cfg` into `out`; returns the path of the collected results CSV.

    ``backend`` is a joblib backend of :func:`~cbeal_studies.reproduction.tasks.run_tasks`:
    ``"loky"`` (local processes, default), ``"dask"`` or ``"ray"`` for a cluster (at the
    address ``cluster``, or a local one).
    """
    names = method_names(list(cfg.methods))
    by_id = {s.id: s for s in SCENARIOS}
    tasks = [
        (by_id[s], r, names, cfg.generator, cfg.learner, _task_path(out, cfg, s, r))
        for s in cfg.scenarios
        for r in range(cfg.replications)
    ]
    run_tasks(
        _task,
        tasks,
        n_jobs=n_jobs,
        backend=backend,
        cluster=cluster,
        progress=progress,
        desc=f"{cfg.generator}/{cfg.learner}",
    )
    return collect(out, cfg)


def _task(
    scenario: Scenario, rep: int, names: list[str], generator: str, learner: str, path: Path
) -> None:
    run_task(scenario, rep, names, generator=generator, learner=learner, path=path)


def collect(out: Path, cfg: RunConfig) -> Path:
    """Gather the per-task files of `cfg` into one CSV (``results_<generator>_<learner>.csv``)."""
    import pandas as pd

    paths = [_task_path(out, cfg, s, r) for s in cfg.scenarios for r in range(cfg.replications)]
    rows = [row for row in read_rows(paths) if row["method"] in cfg.methods]
    target = out / f"results_{cfg.generator}_{cfg.learner}.csv"
    pd.DataFrame(rows).to_csv(target, index=False)
    return target
