"""Reproduction profiles: ``quick`` (CI, about a minute) and ``paper`` (the full protocol)."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cbeal_studies.reproduction.methods import METHODS
from cbeal_studies.reproduction.report import write_tables
from cbeal_studies.reproduction.runner import RunConfig, run_grid
from cbeal_studies.reproduction.scenarios import SCENARIOS

__all__ = ["PROFILES", "Profile", "reproduce"]


@dataclass(frozen=True)
class Profile:
    name: str
    scenarios: tuple[str, ...]
    replications: int
    generators: tuple[str, ...]


PROFILES = {
    # one scenario per (disturbance, positives, sparsity) corner at n = 500
    "quick": Profile("quick", ("S01", "S04", "S07", "S13"), 2, ("v1",)),
    "paper": Profile("paper", tuple(s.id for s in SCENARIOS), 10, ("v1", "v2")),
}


def reproduce(
    profile: str,
    out: Path,
    *,
    learner: str = "svm",
    generators: tuple[str, ...] | None = None,
    n_jobs: int = -1,
    backend: str = "loky",
    cluster: str | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Run a profile into `out` (resuming finished runs) and write its tables."""
    prof = PROFILES[profile]
    timings: dict[str, Any] = {}
    for gen in generators or prof.generators:
        cfg = RunConfig(
            scenarios=prof.scenarios,
            replications=prof.replications,
            methods=tuple(m for m, spec in METHODS.items() if spec.family != "pacing"),
            generator=gen,
            learner=learner,
        )
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            results = run_grid(
                cfg, out, n_jobs=n_jobs, backend=backend, cluster=cluster, progress=progress
            )
        timings[gen] = {
            "seconds": time.perf_counter() - start,
            "tables": write_tables(results, out / f"tables_{gen}_{learner}"),
        }
    return timings
