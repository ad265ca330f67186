"""Scale-out: the Dask and Ray backends give the same result rows as joblib's loky backend
(a local cluster of two workers each; skipped when the extra is not installed)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from cbeal_studies.reproduction import RunConfig, run_grid
from cbeal_studies.reproduction.tasks import run_tasks

# what legitimately differs between two runs of the same grid
VOLATILE = ["seconds", "cbeal_version", "git_sha", "python", "finished"]
CFG = RunConfig(
    scenarios=("S01",), replications=2, methods=("RS", "CBEAL-2", "Initial"), learner="logreg"
)


def rows(out: Path, backend: str) -> pd.DataFrame:
    results = run_grid(CFG, out / backend, n_jobs=2, backend=backend, progress=False)
    frame = pd.read_csv(results).drop(columns=VOLATILE)
    return frame.sort_values(["scenario", "replication", "method"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def loky(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    return rows(tmp_path_factory.mktemp("loky"), "loky")


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param(
            "dask",
            marks=pytest.mark.skipif(
                importlib.util.find_spec("distributed") is None, reason="pip install -e '.[dask]'"
            ),
        ),
        pytest.param(
            "ray",
            marks=pytest.mark.skipif(
                importlib.util.find_spec("ray") is None, reason="pip install -e '.[ray]'"
            ),
        ),
    ],
)
def test_cluster_backends_match_loky(backend: str, loky: pd.DataFrame, tmp_path: Path) -> None:
    assert len(loky) == 2 * 3
    pd.testing.assert_frame_equal(rows(tmp_path, backend), loky)


def test_cluster_address_needs_a_cluster_backend() -> None:
    with pytest.raises(ValueError, match="dask or ray"):
        run_tasks(print, [], backend="loky", cluster="tcp://127.0.0.1:8786")


def _touch(folder: str, name: str) -> None:
    (Path(folder) / name).write_text(name)


@pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason="pip install -e '.[dask]'"
)
def test_an_existing_dask_cluster_is_used_and_left_running(tmp_path: Path) -> None:
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        tasks = [(str(tmp_path), f"task{i}") for i in range(4)]
        run_tasks(_touch, tasks, backend="dask", cluster=cluster.scheduler_address, progress=False)
        assert sorted(p.name for p in tmp_path.iterdir()) == [f"task{i}" for i in range(4)]
        with Client(cluster.scheduler_address) as client:  # still up: we closed our client only
            assert client.submit(sum, [1, 2]).result() == 3
