"""``cbeal benchmark``: run a profile of the suite, then write its tables and figures."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from cbeal_studies.label_efficiency.profiles import PROFILES
from cbeal_studies.label_efficiency.strategies import strategies

__all__ = ["appendix_figures", "benchmark"]


def benchmark(
    profile: str, out: Path, *, n_jobs: int = -1, progress: bool = True, figures: bool = True
) -> dict[str, Any]:
    """Run `profile` (``quick``, ``dev`` or ``full``) into `out`, resuming finished runs.

    Returns the seconds taken, the results CSV, the tables' path and the goal checks of
    the recommended preset per part.
    """
    import pandas as pd

    from cbeal_studies.label_efficiency.report import write_report
    from cbeal_studies.label_efficiency.runner import run_suite

    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}")
    prof = PROFILES[profile]
    names = list(strategies(prof.groups)) + [
        n for n in prof.names if n not in strategies(prof.groups)
    ]
    start = time.perf_counter()
    results = run_suite(prof, names, out, n_jobs=n_jobs, progress=progress)
    seconds = time.perf_counter() - start
    frame = pd.read_csv(results)
    rec = next((n for n in names if strategies()[n].group == "recommended"), None)
    goals = write_report(frame, out, name=profile, recommended=rec, figures=figures)
    return {
        "seconds": seconds,
        "results": results,
        "recommended": rec,
        "tables": out / "tables" / f"{profile}.md",
        "goals": goals,
    }


def appendix_figures(out: Path, *, reps: int = 300) -> list[Path]:
    """Compute the appendix's curves (analytic and Monte Carlo) and draw both figures."""
    from cbeal_studies.label_efficiency.appendix import characterize
    from cbeal_studies.label_efficiency.figures import (
        figure_appendix_comparison,
        figure_appendix_ld,
    )

    res = characterize(reps=reps)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "appendix_characterization.json").write_text(json.dumps(res, indent=1))
    return [
        figure_appendix_ld(res, out / "figures" / "appendix_ld_probability.png"),
        figure_appendix_comparison(res, out / "figures" / "appendix_ld_vs_ral.png"),
    ]
