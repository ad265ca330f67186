"""The one task runner of the experiments: resumable task files and parallel execution.

A *task* (one replication of one scenario or study) runs several methods on the same data
and writes its result rows to one JSON file, rewritten atomically after every row: an
interruption loses at most the row in progress, and a rerun skips the rows a file holds.
Tasks run in parallel through joblib (local processes by default, or a Dask or Ray
cluster).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Hashable, Iterable, Sequence
from pathlib import Path
from typing import Any

from cbeal.core.exceptions import ParameterError

__all__ = ["BACKENDS", "TaskFile", "read_rows", "run_tasks", "write_rows"]

BACKENDS = ("loky", "threading", "dask", "ray")


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Write result rows as JSON atomically (a crash leaves the old file or the new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(rows, indent=1))
    os.replace(tmp, path)


def read_rows(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Every row of the task files that exist among `paths`."""
    rows: list[dict[str, Any]] = []
    for path in paths:
        if path.exists():
            rows.extend(json.loads(path.read_text()))
    return rows


class TaskFile:
    """The finished rows of one task, keyed by `key` (e.g. the method and the budget)."""

    def __init__(self, path: Path | None, key: Callable[[dict[str, Any]], Hashable]) -> None:
        self.path = path
        self.key = key
        rows = read_rows([path]) if path is not None else []
        self.rows: dict[Hashable, dict[str, Any]] = {key(r): r for r in rows}

    def done(self, key: Hashable) -> bool:
        return key in self.rows

    def add(self, row: dict[str, Any]) -> None:
        """Record a finished row and write the file at once."""
        self.rows[self.key(row)] = row
        if self.path is not None:
            write_rows(self.path, list(self.rows.values()))

    def all(self) -> list[dict[str, Any]]:
        return list(self.rows.values())


def run_tasks(
    fn: Callable[..., Any],
    tasks: Sequence[tuple[Any, ...]],
    *,
    n_jobs: int = -1,
    backend: str = "loky",
    cluster: str | None = None,
    progress: bool = True,
    desc: str = "tasks",
) -> None:
    """Call ``fn(*task)`` for every task, in parallel, with a progress bar.

    ``backend``: ``"loky"`` (local processes), ``"threading"``, ``"dask"`` or ``"ray"``
    (``pip install -e '.[dask]'`` / ``.[ray]``). For Dask and Ray, ``cluster`` is the
    address of a running cluster (Dask: ``"tcp://host:8786"``; Ray: ``"ray://host:10001"``
    or ``"auto"``); without it an existing client of this process is used, or a local
    cluster of ``n_jobs`` workers is started here and shut down at the end. The results do
    not depend on the backend: every task draws its data and seeds from its own arguments.
    """
    from joblib import Parallel, delayed, parallel_config
    from tqdm.auto import tqdm

    if backend not in BACKENDS:
        raise ParameterError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if cluster is not None and backend not in ("dask", "ray"):
        raise ParameterError(f"`cluster` needs the dask or ray backend, not {backend!r}")
    workers = n_jobs if n_jobs > 0 else os.cpu_count() or 1
    stop = _connect(backend, cluster, workers)
    bar = tqdm(total=len(tasks), disable=not progress, unit="task", desc=desc)
    try:
        if backend == "ray":  # Ray's joblib backend cannot stream results: use Ray itself
            _run_ray(fn, tasks, bar)
        else:
            jobs = (delayed(fn)(*task) for task in tasks)
            with parallel_config(backend=backend, n_jobs=n_jobs):
                for _ in Parallel(return_as="generator_unordered")(jobs):
                    bar.update(1)
    finally:
        bar.close()
        stop()


def _run_ray(fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]], bar: Any) -> None:
    """One Ray task per task, one CPU each; results are counted as they finish."""
    import ray

    remote = ray.remote(num_cpus=1)(fn)
    pending = [remote.remote(*task) for task in tasks]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        ray.get(done)  # re-raises a task's error here
        bar.update(len(done))


def _connect(backend: str, cluster: str | None, workers: int) -> Callable[[], None]:
    """Connect to (or start) the cluster of `backend`; returns what shuts down what we started."""
    if backend == "ray":
        import ray

        if ray.is_initialized():
            return lambda: None
        if cluster is None:  # a local cluster sized like loky's pool, without the dashboard
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=cluster, log_to_driver=False)
        return ray.shutdown
    if backend == "dask":
        from dask.distributed import Client, get_client

        if cluster is not None:
            return Client(cluster).close
        try:
            get_client()
            return lambda: None
        except ValueError:  # no client yet: a local cluster for this call
            client = Client(
                processes=True, n_workers=workers, threads_per_worker=1, dashboard_address=None
            )
            return lambda: _close(client)
    return lambda: None


def _close(client: Any) -> None:
    cluster = client.cluster
    client.close()
    if cluster is not None:
        cluster.close()
