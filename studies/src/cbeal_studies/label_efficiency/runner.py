"""Run the suite: one task per (workload, learner, replication), resumable and parallel.

A task draws its replication's split once and runs every strategy at every budget share on
it, plus the references "Initial" and "All Training Data". Each finished row is merged
into the task's JSON file at once (written atomically), so an interrupted run resumes
where it stopped and a rerun with more strategies only runs what is missing. Every row
carries its provenance: cbeal version, git sha, Python, seed, time.
"""

from __future__ import annotations

import json
import platform
import time
import warnings
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from cbeal._version import __version__
from cbeal.catalog import learner as make_learner
from cbeal.evaluation.references import fit_reference
from cbeal.reports.provenance import git_sha
from cbeal.simulation import simulate
from cbeal.simulation.trace import Trace
from cbeal.streams.split import StreamSplit
from cbeal_studies.label_efficiency.profiles import Profile
from cbeal_studies.label_efficiency.scenarios import WORKLOADS
from cbeal_studies.label_efficiency.strategies import strategy
from cbeal_studies.reproduction.tasks import write_rows

__all__ = [
    "advice_correlation",
    "balanced_accuracy",
    "collect",
    "prequential_auc",
    "run_suite",
    "run_task",
]

REFERENCES = ("Initial", "All Training Data")
_BLOCKS = 10  # points of the prequential learning curve


def balanced_accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean recall over the classes present in `y_true`.

    >>> import numpy as np
    >>> balanced_accuracy(np.array([0, 0, 0, 1]), np.array([0, 0, 0, 0]))
    0.5
    """
    classes = np.unique(y_true)
    return float(np.mean([np.mean(y_pred[y_true == c] == c) for c in classes]))


def prequential_auc(y_true: np.ndarray, y_pred: np.ndarray, blocks: int = _BLOCKS) -> float:
    """Area under the prequential learning curve, normalised to [0, 1].

    The curve is the balanced accuracy of the learner's predictions on each arriving stream
    sample (made before its label could be used) in `blocks` consecutive blocks of the
    stream; the area is the mean of the block values. A strategy that learns early scores
    higher than one that reaches the same final model late.

    >>> import numpy as np
    >>> y = np.array([0, 1] * 10)
    >>> prequential_auc(y, y, blocks=2), prequential_auc(y, np.zeros(20, int), blocks=2)
    (1.0, 0.5)
    """
    parts = np.array_split(np.arange(y_true.size), blocks)
    return float(np.mean([balanced_accuracy(y_true[p], y_pred[p]) for p in parts if p.size]))


def _diagnostics(trace: Trace, y: np.ndarray) -> dict[str, Any]:
    """What the traces of a CbeAL run say about its bandit (for the "why" analysis)."""
    w = trace.weights_after
    n = len(trace)
    out: dict[str, Any] = {
        "cumulative_reward": float(trace.reward.sum()),
        "n_useful": int((trace.reward > 0).sum()),
        "n_useless": int((trace.reward < 0).sum()),
        "n_flips": int(trace.flipped.sum()),
        "n_flips_first200": int(trace.flipped[:200].sum()),
        "weight_range": float((w.max(axis=0) - w.min(axis=0)).max()) if n else 0.0,
        "final_weights": {a: float(v) for a, v in zip(trace.agent_names, w[-1], strict=True)},
        "p_acquire_first10": float(trace.p_acquire[: max(1, n // 10)].mean()),
    }
    # share of each agent's advice that is exactly 0 or 1 (LD's near-binary probability)
    out["binary_advice"] = {
        a: float(np.mean((trace.advice[:, i] == 0.0) | (trace.advice[:, i] == 1.0)))
        for i, a in enumerate(trace.agent_names)
    }
    out["advice_corr"] = advice_correlation(trace.advice, trace.agent_names)
    return out


def advice_correlation(advice: np.ndarray, names: Sequence[str]) -> dict[str, float | None]:
    """Spearman correlation of every pair of agents' advice over one run's samples
    (``"A|B"``; None when one of them never varied).

    >>> import numpy as np
    >>> advice_correlation(np.array([[0.1, 0.3, 1.0], [0.2, 0.1, 1.0], [0.3, 0.0, 1.0]]),
    ...                    ["A", "B", "C"])
    {'A|B': -1.0, 'A|C': None, 'B|C': None}
    """
    ranks = np.argsort(np.argsort(advice, axis=0, kind="stable"), axis=0).astype(float)
    # ties share their mean rank
    for j in range(advice.shape[1]):
        col = advice[:, j]
        _, inv, counts = np.unique(col, return_inverse=True, return_counts=True)
        if (counts > 1).any():
            sums = np.bincount(inv, weights=ranks[:, j])
            ranks[:, j] = (sums / counts)[inv]
    out: dict[str, float | None] = {}
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            a, b = ranks[:, i], ranks[:, j]
            ok = a.std() > 0 and b.std() > 0
            out[f"{names[i]}|{names[j]}"] = float(np.corrcoef(a, b)[0, 1]) if ok else None
    return out


def _run_one(
    name: str, learner: str, data: StreamSplit, classes: np.ndarray, share: float, seed: int
) -> dict[str, Any]:
    n_stream = data.y_stream.size
    budget = max(1, round(share * n_stream))
    model = strategy(name).build(make_learner(learner), budget, n_stream, seed)
    model.set_params(classes=list(classes))
    model.fit(data.X0, data.y0)
    trace = simulate(model, data.X_stream, data.y_stream)
    pred = model.predict(data.X_test)
    acq = trace.acquired
    counts = np.bincount(np.searchsorted(classes, data.y_stream), minlength=classes.size)
    minority = classes[int(np.argmin(np.where(counts > 0, counts, np.iinfo(np.int64).max)))]
    row: dict[str, Any] = {
        "accuracy": float(np.mean(pred == data.y_test)),
        "balanced_accuracy": balanced_accuracy(data.y_test, pred),
        "prequential_auc": prequential_auc(data.y_stream, trace.y_pred),
        "budget": budget,
        "n_acquired": trace.n_acquired,
        "minority_share": float(np.mean(data.y_stream[acq] == minority)) if acq.any() else 0.0,
        "last_acquisition": float((np.flatnonzero(acq)[-1] + 1) / n_stream) if acq.any() else 0.0,
        # how evenly the labels were spread: the share of them in the stream's first half
        "first_half_share": float(acq[: n_stream // 2].sum() / acq.sum()) if acq.any() else 0.0,
        # how far ahead of the even schedule b · t the run ever was, in labels (round 5)
        "max_lead": float(np.max(np.cumsum(acq) - budget / n_stream * np.arange(1, n_stream + 1)))
        if n_stream
        else 0.0,
    }
    if len(trace.agent_names) > 1:
        row.update(_diagnostics(trace, data.y_stream))
    return row


def _reference(
    name: str, learner: str, data: StreamSplit, classes: np.ndarray, seed: int
) -> dict[str, Any]:
    X, y = (data.X0, data.y0) if name == "Initial" else (data.X_train, data.y_train)
    pred = fit_reference(make_learner(learner), classes, seed, X, y).predict(data.X_test)
    return {
        "accuracy": float(np.mean(pred == data.y_test)),
        "balanced_accuracy": balanced_accuracy(data.y_test, pred),
        "n_acquired": int(y.size - data.y0.size),
    }


def _key(name: str, share: float | None) -> str:
    return name if share is None else f"{name}@{share:g}"


def run_task(
    workload_id: str,
    learner: str,
    replication: int,
    names: Sequence[str],
    budgets: Sequence[float],
    *,
    path: Path | None = None,
    stream_cap: int | None = None,
) -> list[dict[str, Any]]:
    """Run `names` at every share of `budgets` (and the references) on one replication.

    `stream_cap` keeps only the first samples of the stream (a quick profile).
    """
    done: dict[str, dict[str, Any]] = {}
    if path is not None and path.exists():
        done = {_key(r["strategy"], r["budget_share"]): r for r in json.loads(path.read_text())}
    todo: list[tuple[str, float | None]] = [(n, None) for n in REFERENCES]
    todo += [(n, b) for n in names for b in budgets]
    todo = [(n, b) for n, b in todo if _key(n, b) not in done]
    if not todo:
        return list(done.values())
    wl, part = WORKLOADS[workload_id]
    data = wl.split(replication)
    if stream_cap is not None:
        data = StreamSplit(
            X0=data.X0,
            y0=data.y0,
            X_stream=data.X_stream[:stream_cap],
            y_stream=data.y_stream[:stream_cap],
            X_test=data.X_test,
            y_test=data.y_test,
        )
    seed = wl.seed(replication)
    classes = np.unique(np.concatenate([data.y0, data.y_stream, data.y_test]))
    sha = git_sha()
    for name, share in todo:
        start = time.perf_counter()
        with warnings.catch_warnings():
            # single-class D0s, liblinear/lbfgs convergence notes, deprecations: expected
            warnings.simplefilter("ignore")
            if share is None:
                row = _reference(name, learner, data, classes, seed)
            else:
                row = _run_one(name, learner, data, classes, share, seed)
        row.update(
            strategy=name,
            budget_share=share,
            workload=workload_id,
            part=part,
            family=wl.family,
            learner=learner,
            replication=replication,
            seed=seed,
            workload_version=wl.version,
            n_stream=int(data.y_stream.size),
            n_test=int(data.y_test.size),
            seconds=time.perf_counter() - start,
            cbeal_version=__version__,
            git_sha=sha,
            python=platform.python_version(),
            finished=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
        done[_key(name, share)] = row
        if path is not None:  # after every row: an interruption loses one run at most
            write_rows(path, list(done.values()))
    return list(done.values())


def task_path(out: Path, workload_id: str, learner: str, replication: int) -> Path:
    return out / "runs" / learner / f"{workload_id}_r{replication:02d}.json"


def run_suite(
    profile: Profile, names: Sequence[str], out: Path, *, n_jobs: int = -1, progress: bool = True
) -> Path:
    """Run `names` over `profile` into `out` (resuming); returns the collected CSV's path."""
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    for n in names:
        strategy(n)  # unknown names fail before any work
    tasks = [
        (w, lrn, r)
        for r in profile.replication_ids
        for w in profile.workloads
        for lrn in profile.learners
    ]
    jobs = (
        delayed(run_task)(
            w,
            lrn,
            r,
            list(names),
            profile.budgets,
            path=task_path(out, w, lrn, r),
            stream_cap=profile.stream_cap,
        )
        for w, lrn, r in tasks
    )
    results: Iterator[Any] = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(jobs)
    for _ in tqdm(
        results,
        total=len(tasks),
        disable=not progress,
        unit="task",
        desc=f"benchmark {profile.name}",
    ):
        pass
    return collect(out, profile, names)


def collect(out: Path, profile: Profile, names: Sequence[str] | None = None) -> Path:
    """Gather the finished rows of `profile`'s tasks into ``out/results_<profile>.csv``
    (only the strategies `names`, when given, and the references)."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for w in profile.workloads:
        for lrn in profile.learners:
            for r in profile.replication_ids:
                path = task_path(out, w, lrn, r)
                if path.exists():
                    rows.extend(
                        x
                        for x in json.loads(path.read_text())
                        if (x["budget_share"] is None or x["budget_share"] in profile.budgets)
                        and (names is None or x["strategy"] in names or x["strategy"] in REFERENCES)
                    )
    frame = pd.DataFrame(rows)
    for col in ("final_weights", "binary_advice", "advice_corr"):
        if col in frame:
            frame[col] = frame[col].map(lambda v: json.dumps(v) if isinstance(v, dict) else v)
    target = out / f"results_{profile.name}.csv"
    frame.to_csv(target, index=False)
    return target
