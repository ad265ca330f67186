"""Tables of the case study: mean ± standard error over replications, per budget.

Every metric gets one table: one row per method, one column per budget; "Initial" and
"All Training Data" do not depend on the budget and show one value. A verdict table counts,
per budget and metric, whether CbeAL-6 is ahead of each baseline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cbeal.reports.document import markdown_table

__all__ = ["summarize", "verdicts", "write_report_tables"]

LABELS = {
    "train_accuracy": "Training accuracy (final learner on every training sample)",
    "test_accuracy": "Test accuracy (the paper's metric)",
    "test_balanced_accuracy": "Test balanced accuracy (mean of pass and failure recall)",
    "test_f1": "Test F1 of the failure class",
    "test_recall": "Test recall of the failure class (failures flagged)",
    "test_precision": "Test precision of the failure class",
    "n_acquired": "Labels acquired from the stream",
    "n_failures_acquired": "Failures among the acquired labels",
}
REFERENCES = ("Initial", "All Training Data")


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard error and count per (study, method, budget share) and metric."""
    frame = runs.copy()
    frame["budget_share"] = frame["budget_share"].fillna(-1.0)  # references: no budget
    metrics = [m for m in LABELS if m in frame.columns]
    grouped = frame.groupby(["study", "method", "budget_share"], sort=False)[metrics]
    mean, sem, count = grouped.mean(), grouped.sem(ddof=1), grouped.count()
    replications = count[metrics[0]].rename("replications")
    out = mean.join(sem.add_suffix("_se")).join(replications)
    return out.reset_index()


def _cell(mean: float, se: float, scale: float, digits: int) -> str:
    if np.isnan(mean):
        return "–"
    se_txt = "" if np.isnan(se) else f" ± {scale * se:.{digits}f}"
    return f"{scale * mean:.{digits}f}{se_txt}"


def metric_table(
    summary: pd.DataFrame, study: str, metric: str, methods: list[str]
) -> pd.DataFrame:
    """One metric as methods × budgets (cells ``mean ± SE``; scores in %)."""
    sub = summary[summary["study"] == study]
    budgets = sorted(b for b in sub["budget_share"].unique() if b >= 0)
    count_like = metric.startswith("n_")
    scale, digits = (1.0, 1) if count_like else (100.0, 1)
    rows: dict[str, list[str]] = {}
    for name in methods:
        rows[name] = []
        for b in budgets:
            key = -1.0 if name in REFERENCES else b
            hit = sub[(sub["method"] == name) & (sub["budget_share"] == key)]
            if hit.empty:
                rows[name].append("–")
            else:
                r = hit.iloc[0]
                rows[name].append(_cell(float(r[metric]), float(r[f"{metric}_se"]), scale, digits))
    return pd.DataFrame.from_dict(rows, orient="index", columns=[f"{100 * b:g} %" for b in budgets])


def verdicts(
    runs: pd.DataFrame, study: str, metric: str, against: list[str], reference: str = "CBEAL-6"
) -> pd.DataFrame:
    """Per budget: CbeAL-6's mean minus each baseline's, and the paired wins over replications.

    Cells read ``+1.2 (7/10)``: the mean difference in points and the replications in which
    CbeAL-6 scored strictly higher (same split, same seed — a paired comparison).
    """
    sub = runs[(runs["study"] == study)]
    budgets = sorted(sub["budget_share"].dropna().unique())
    ours = sub[sub["method"] == reference]
    table: dict[str, list[str]] = {}
    for name in against:
        cells = []
        for b in budgets:
            theirs = sub[
                (sub["method"] == name) & ((sub["budget_share"] == b) | sub["budget_share"].isna())
            ]
            mine = ours[ours["budget_share"] == b]
            paired = mine.merge(theirs, on="replication", suffixes=("", "_o"))
            if paired.empty:
                cells.append("–")
                continue
            diff = paired[metric] - paired[f"{metric}_o"]
            cells.append(f"{100 * diff.mean():+.1f} ({int((diff > 0).sum())}/{len(diff)})")
        table[name] = cells
    return pd.DataFrame.from_dict(
        table, orient="index", columns=[f"{100 * b:g} %" for b in budgets]
    )


def write_report_tables(results: Path, out: Path) -> dict[str, Path]:
    """Write ``<study>.md`` per study into `out`; returns the path of each."""
    runs = pd.read_csv(results)
    summary = summarize(runs)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for study in runs["study"].unique():
        sub = runs[runs["study"] == study]
        methods = list(dict.fromkeys(sub["method"]))
        first = sub.iloc[0]
        lines = [
            f"# Case study `{study}`: {first['dataset']}, learner `{first['learner']}`, "
            f"refit {first['refit']}",
            "",
            f"{sub['replication'].nunique()} replications; stream of {int(first['n_stream'])} "
            f"samples, test set of {int(first['n_test'])}; mean ± standard error over "
            "replications; scores in %. Generated by `cbeal casestudy` from "
            f"`{results.name}`.",
            "",
        ]
        for metric in LABELS:
            if metric not in sub.columns:
                continue
            lines += [
                f"## {LABELS[metric]}",
                "",
                _markdown(metric_table(summary, study, metric, methods)),
                "",
            ]
        baselines = [m for m in methods if m != "CBEAL-6"]
        for metric in ("test_accuracy", "test_balanced_accuracy", "test_f1", "test_recall"):
            lines += [
                f"## CbeAL-6 minus each method: {LABELS[metric].lower()}",
                "",
                "Mean difference in points (replications where CbeAL-6 is strictly "
                "higher / paired replications).",
                "",
                _markdown(verdicts(runs, str(study), metric, baselines)),
                "",
            ]
        path = out / f"{study}.md"
        path.write_text("\n".join(lines))
        written[str(study)] = path
    return written


def _markdown(frame: pd.DataFrame) -> str:
    rows = [[idx, *row] for idx, row in zip(frame.index, frame.to_numpy(), strict=True)]
    return markdown_table(["method", *frame.columns], rows, align="l" + "r" * len(frame.columns))


def headline(results: Path, metric: str = "test_balanced_accuracy") -> dict[str, Any]:
    """Per study: each method's mean of `metric` at each budget (for the console summary)."""
    summary = summarize(pd.read_csv(results))
    out: dict[str, Any] = {}
    for study, sub in summary.groupby("study", sort=False):
        out[str(study)] = {
            (str(r.method), float(r.budget_share)): float(getattr(r, metric))
            for r in sub.itertuples()
        }
    return out
