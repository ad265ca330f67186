"""Run methods × scenarios × replications, in parallel, resumably, with provenance.

Each (scenario, replication) is one task: its data set is drawn once and every method runs
on it. A task writes one JSON file with one row per method; a rerun skips the methods a
file already holds, so an interrupted grid resumes where it stopped.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from cbeal._version import __version__
from cbeal.experiments.methods import METHODS, method_names
from cbeal.experiments.scenarios import SCENARIOS, Scenario
from cbeal.learners.registry import make_learner
from cbeal.simulation import simulate

__all__ = ["RunConfig", "collect", "run_grid", "run_task"]


@dataclass(frozen=True)
class RunConfig:
    """What a grid run is: its scenarios, replications, methods, generator and learner."""

    scenarios: tuple[str, ...]
    replications: int
    methods: tuple[str, ...]
    generator: str = "v1"
    learner: str = "svm"


def git_sha() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True, cwd=Path(__file__).parent)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _accuracy(model: Any, X: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(model.predict(X) == y))


def _fit_accuracy(learner: str, X: np.ndarray, y: np.ndarray, data: Any, seed: int) -> float:
    """Test accuracy of the learner trained on (X, y), seeded as the stream models are."""
    from cbeal.learners.adapter import fit_reference

    classes = np.unique(np.concatenate([data.y0, data.y_stream]))
    fitted = fit_reference(make_learner(learner), classes, seed, X, y)
    return float(np.mean(fitted.predict(data.X_test) == data.y_test))


def _reference(name: str, learner: str, data: Any, seed: int) -> dict[str, Any]:
    if name == "Initial":
        X, y = data.X0, data.y0
    else:
        X, y = np.vstack([data.X0, data.X_stream]), np.concatenate([data.y0, data.y_stream])
    return {"accuracy": _fit_accuracy(learner, X, y, data, seed), "n_acquired": int(y.size)}


def _stream(name: str, learner: str, data: Any, seed: int) -> dict[str, Any]:
    method = METHODS[name]
    assert method.build is not None
    n_stream = data.X_stream.shape[0]
    model = method.build(make_learner(learner), data.budget, n_stream, seed)
    model.fit(data.X0, data.y0)
    trace = simulate(model, data.X_stream, data.y_stream)
    acquired = trace.acquired
    row: dict[str, Any] = {
        "accuracy": _accuracy(model, data.X_test, data.y_test),
        "n_acquired": trace.n_acquired,
        "share_positive": float(np.mean(data.y_stream[acquired] == 1)) if acquired.any()
        else float("nan"),
        "cumulative_reward": float(trace.reward.sum()),
        "n_useful": int((trace.reward > 0).sum()),
        "n_useless": int((trace.reward < 0).sum()),
        "last_acquisition": int(np.flatnonzero(acquired)[-1]) if acquired.any() else -1,
        "n_flips": int(trace.flipped.sum()),
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
            _fit_accuracy(learner, X_full, y_full, data, seed) if extra.size else row["accuracy"]
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
    done: dict[str, dict[str, Any]] = {}
    if path is not None and path.exists():
        done = {r["method"]: r for r in json.loads(path.read_text())}
    todo = [m for m in methods if m not in done]
    if not todo:
        return list(done.values())
    data = scenario.data(replication, generator)
    seed = scenario.seed(replication, generator)
    sha = git_sha()
    for name in todo:
        start = time.perf_counter()
        if METHODS[name].build is None:
            row = _reference(name, learner, data, seed)
        else:
            row = _stream(name, learner, data, seed)
        row.update(
            method=name, scenario=scenario.id, replication=replication, generator=generator,
            learner=learner, seed=seed, budget=data.budget, seconds=time.perf_counter() - start,
            n=scenario.n, pc=scenario.pc, ds=scenario.ds, sp=scenario.sp,
            cbeal_version=__version__, git_sha=sha, python=platform.python_version(),
            finished=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
        done[name] = row
        if path is not None:  # written after every method: an interruption loses one run
            write_rows(path, list(done.values()))
    return list(done.values())


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Write result rows as JSON atomically (a crash leaves the old file or the new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(rows, indent=1))
    os.replace(tmp, path)


def _task_path(out: Path, cfg: RunConfig, scenario_id: str, rep: int) -> Path:
    return out / "runs" / cfg.generator / cfg.learner / f"{scenario_id}_r{rep:02d}.json"


def run_grid(
    cfg: RunConfig,
    out: Path,
    *,
    n_jobs: int = -1,
    backend: str = "loky",
    progress: bool = True,
) -> Path:
    """Run the grid of `cfg` into `out`; returns the path of the collected results CSV.

    ``backend`` is any joblib backend: ``"loky"`` (local processes, default), or
    ``"dask"`` / ``"ray"`` for a cluster (``pip install cbeal[dask]`` / ``cbeal[ray]``; a
    running Dask client or Ray cluster is used as joblib's backend).
    """
    from joblib import Parallel, delayed, parallel_config
    from tqdm.auto import tqdm

    names = method_names(list(cfg.methods))
    by_id = {s.id: s for s in SCENARIOS}
    tasks = [(by_id[s], r) for s in cfg.scenarios for r in range(cfg.replications)]
    if backend == "ray":  # pragma: no cover - needs a Ray installation
        from ray.util.joblib import register_ray

        register_ray()
    elif backend == "dask":  # pragma: no cover - needs dask.distributed
        from dask.distributed import Client

        Client()
    jobs = (
        delayed(run_task)(s, r, names, generator=cfg.generator, learner=cfg.learner,
                          path=_task_path(out, cfg, s.id, r))
        for s, r in tasks
    )
    with parallel_config(backend=backend, n_jobs=n_jobs):
        results: Iterator[Any] = Parallel(return_as="generator_unordered")(jobs)
        for _ in tqdm(results, total=len(tasks), disable=not progress, unit="task",
                      desc=f"{cfg.generator}/{cfg.learner}"):
            pass
    return collect(out, cfg)


def collect(out: Path, cfg: RunConfig) -> Path:
    """Gather the per-task files of `cfg` into one CSV (``results_<generator>_<learner>.csv``)."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for s in cfg.scenarios:
        for r in range(cfg.replications):
            path = _task_path(out, cfg, s, r)
            if path.exists():
                rows.extend(row for row in json.loads(path.read_text())
                            if row["method"] in cfg.methods)
    frame = pd.DataFrame(rows)
    target = out / f"results_{cfg.generator}_{cfg.learner}.csv"
    frame.to_csv(target, index=False)
    return target
