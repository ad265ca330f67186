"""``summary.json`` and the terminal lines of a ``cbeal run``: the run's numbers as data
and as a few lines, rendered from its result (nothing is computed here)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from cbeal._version import __version__
from cbeal.evaluation import METRIC_LABELS
from cbeal.reports.provenance import git_sha
from cbeal.tablerun import UserRun

__all__ = ["budget_line", "console_lines", "summary"]


def summary(result: UserRun, *, out: Path, fmt: str) -> dict[str, Any]:
    """Everything needed to reproduce and compare the run, JSON-ready."""
    tab, sp, stats = result.table, result.split, result.stats
    return {
        "command": "cbeal run",
        "arguments": {**result.options.to_dict(), "out": str(out), "format": fmt},
        "data": {
            "file": tab.path.name,
            "sha256": tab.sha256,
            "rows": tab.shape[0],
            "columns": tab.shape[1],
            **tab.dialect.to_dict(),
            "label": tab.label,
            "time_column": tab.time_column,
            "id_columns": list(tab.ids),
            "features": list(tab.feature_names),
            "ignored_columns": list(tab.ignored),
            "missing_share_train": stats.data.missing_share,
            "empty_columns": list(stats.data.empty_columns),
        },
        "class_counts": stats.data.classes,
        "target": None if result.target is None else result.target.to_dict(),
        "learning_curves": {m: c.to_dict() for m, c in result.curves.items()},
        "equal_labels": [r.to_dict() for r in result.stats.equal_labels],
        "positive_class": None if result.positive is None else str(result.positive),
        "split": {"initial": sp.n_initial, "stream": sp.n_stream, "test": sp.n_test},
        "initial_requested": sp.requested_initial,
        "budget": stats.budget.to_dict(),
        "method": result.name,
        "agents": list(result.trace.agent_names),
        "labels_spent": result.labels,
        "metrics": result.scores,
        "metrics_over_seeds": {
            m: {
                k: {"mean": s.mean, "se": None if math.isnan(s.se) else s.se}
                for k, s in row.items()
            }
            for m, row in stats.scores.items()
        },
        "seeds": [
            {"seed": r.seed, "metrics": r.scores, "labels_spent": r.labels} for r in result.seeds
        ],
        "paired_wins": [p.to_dict() for c in stats.comparisons for p in c.paired],
        "cbeal_run": {**stats.cbeal, "final_weights": stats.weights},
        "control_chart": stats.control_chart,
        "notes": result.notes,
        "seed": result.options.seed,
        "estimated_seconds": None
        if result.estimate is None
        else round(result.estimate.seconds(), 1),
        "wall_time_seconds": round(result.seconds, 3),
        "cbeal_version": __version__,
        "git_sha": git_sha(),
    }


def budget_line(result: UserRun) -> str:
    """The budget, and the meaning it was read with, in one line; e.g. ``budget: 10% of
    the parts, paced (…; 41 over these 410 parts) — '10%' is a share: a paced rate``."""
    use = result.stats.budget
    why = "a share: a paced rate" if use.paced else "a whole number: a count"
    return f"budget: {use.words} — {use.given!r} is {why}"


def console_lines(result: UserRun, report: Path) -> list[str]:
    """A short summary for the terminal (the first seed's scores)."""
    sp, tab = result.split, result.table
    read = tab.dialect.describe()
    lines = [
        f"cbeal {__version__} run: {result.name}, learner {result.learner!r}, "
        f"seed {result.options.seed}"
        + (
            f" (+{len(result.seeds) - 1} more seeds in the report)" if len(result.seeds) > 1 else ""
        ),
        f"data: {tab.path.name}{f' ({read})' if read else ''}, {tab.n_rows} rows, "
        f"{len(tab.feature_names)} features, " + _values(result),
        f"split: D0 {sp.n_initial}, stream {sp.n_stream}, test {sp.n_test}; {result.seconds:.1f} s",
        budget_line(result),
    ]
    for method, n in result.labels.items():
        row = result.scores.get(method, {})
        vals = ", ".join(f"{METRIC_LABELS[k]} {v:.3f}" for k, v in row.items())
        lines.append(f"  {method:<20} labels {n:>5}  {vals}".rstrip())
    lines += [f"note: {n}" for n in result.notes]
    lines.append(f"report: {report}")
    return lines


def _values(result: UserRun) -> str:
    t = result.target
    if t is None:
        return f"classes {result.stats.data.classes['all']}"
    tr = t.train
    rule = (
        "; default: a quarter of the sd in D0" if result.options.tolerance_rule == "default" else ""
    )
    return (
        f"measured values: training mean {tr['mean']:.4g}, sd {tr['std']:.4g}; "
        f"tolerance ±{t.tolerance:.4g} (unit of {result.table.label!r}{rule})"
    )
