"""``cbeal casestudy``: run a dataset's studies, then write tables and figures."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cbeal.core.exceptions import ParameterError
from cbeal_studies.casestudy.report import headline, write_report_tables
from cbeal_studies.casestudy.runner import collect, run_case_study
from cbeal_studies.casestudy.studies import CASE_STUDIES, studies_for
from cbeal_studies.reproduction.methods import METHODS

__all__ = ["casestudy"]

LEARNER_KEYS = {"l1": "-l1", "rf": "-rf"}


def casestudy(
    dataset: str,
    out: Path,
    *,
    learner: str = "all",
    replications: int | None = None,
    budgets: Sequence[float] | None = None,
    methods: Sequence[str] | None = None,
    n_jobs: int = -1,
    progress: bool = True,
    figures: bool = True,
) -> dict[str, Any]:
    """Run the case study of `dataset` into `out`; resumable. Returns paths and headlines.

    ``learner`` is ``"l1"`` (the paper's L1 logistic regression), ``"rf"`` (random forest)
    or ``"all"``. ``replications``, ``budgets`` (shares, e.g. ``0.1``) and ``methods``
    narrow the protocol for a first look; the defaults are the full protocol.
    """
    ids = studies_for(dataset)
    if learner != "all":
        if learner not in LEARNER_KEYS:
            raise ParameterError(f"unknown learner {learner!r}; choose l1, rf or all")
        ids = [i for i in ids if i.endswith(LEARNER_KEYS[learner])]
    if replications is not None and replications < 1:
        raise ParameterError(f"replications must be ≥ 1, got {replications}")
    if budgets is not None and not all(0.0 < b < 1.0 for b in budgets):
        raise ParameterError(
            f"`budgets` are shares of the stream in (0, 1) (on the command "
            f"line: percentages in (0, 100)), got {list(budgets)}"
        )
    if methods is not None:
        unknown = [m for m in methods if m not in METHODS]
        if unknown:
            raise ParameterError(f"unknown methods {unknown}; choose from {list(METHODS)}")
    studies = []
    for sid in ids:
        study = CASE_STUDIES[sid]
        changes: dict[str, Any] = {}
        if budgets is not None:
            changes["budgets"] = tuple(budgets)
        if methods is not None:
            changes["methods"] = tuple(methods)
        if replications is not None:
            changes["replications"] = replications
        studies.append(dataclasses.replace(study, **changes))
    start = time.perf_counter()
    run_case_study(studies, out, n_jobs=n_jobs, progress=progress, name=f"results_{dataset}.csv")
    # every finished run of the dataset, also those of other learners or earlier calls
    results = collect(out, studies_for(dataset), name=f"results_{dataset}.csv")
    seconds = time.perf_counter() - start
    tables = write_report_tables(results, out / "tables")
    written: list[Path] = []
    if figures:
        from cbeal_studies.casestudy.figures import make_case_figures

        written = make_case_figures(results, out / "figures")
    return {
        "results": results,
        "tables": tables,
        "figures": written,
        "seconds": seconds,
        "headline": headline(results),
    }
