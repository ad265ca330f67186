"""The paper's simulation tables from our runs, side by side with the paper's numbers."""

from __future__ import annotations

from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from cbeal.reports.document import markdown_table
from cbeal_studies.reproduction.method import paper_agents

__all__ = [
    "TABLE_METHODS",
    "comparison",
    "paper_layout",
    "paper_tables",
    "summarize",
    "to_markdown",
    "wins",
]

EXPLORE = paper_agents("exploration")
EXPLOIT = paper_agents("exploitation")
KEYS = ["ds", "pc", "sp", "n"]

# table -> (metric, rows in the paper's order)
TABLE_METHODS: dict[str, tuple[str, tuple[str, ...]]] = {
    "agents": (
        "accuracy",
        (
            "Opt. Explor.",
            "Opt. Explor. (Full)",
            "Opt. Exploit.",
            "Opt. Exploit. (Full)",
            "CBEAL-2",
            "CBEAL-4",
            "CBEAL-6",
        ),
    ),
    "benchmarks": (
        "accuracy",
        ("Initial", "RS", "US", "DBALStream", "QBC-PYP", "CBEAL-6", "All Training Data"),
    ),
    "variants": ("accuracy", ("CBEAL-2", "CBEAL-4", "CBEAL-6", "CBEAL-4*", "CBEAL-8")),
    "acquired": ("n_acquired", ("Opt. Explor.", "Opt. Exploit.", "CBEAL-2", "CBEAL-6")),
    "reward": ("cumulative_reward", ("CBEAL-2", "CBEAL-4", "CBEAL-6", "Opt. Exploit.")),
    "positives": (
        "share_positive",
        (
            "Opt. Explor.",
            "Opt. Exploit.",
            "CBEAL-2",
            "CBEAL-4",
            "CBEAL-6",
            "RS",
            "US",
            "DBALStream",
            "QBC-PYP",
        ),
    ),
    "extras": (
        "accuracy",
        ("CBEAL-6", "CBEAL-6 (no EWMA)", "VariableUncertainty", "Split", "US", "RS"),
    ),
    "crosscheck": (
        "accuracy",
        (
            "RS",
            "RS (skactiveml)",
            "US",
            "US (skactiveml)",
            "VariableUncertainty",
            "VariableUncertainty (skactiveml)",
            "DBALStream",
            "DBALStream (skactiveml)",
        ),
    ),
}


def paper_tables() -> pd.DataFrame:
    """The paper's numbers (extracted from its LaTeX source by
    studies/scripts/extract_paper_tables.py)."""
    path = resources.files("cbeal_studies.reproduction") / "data" / "paper_tables.csv"
    with path.open() as fh:
        return pd.read_csv(fh)


def _stats(group: pd.Series) -> pd.Series:
    vals = group.dropna().to_numpy(dtype=float)
    se = vals.std(ddof=1) / np.sqrt(vals.size) if vals.size > 1 else np.nan
    return pd.Series({"mean": vals.mean() if vals.size else np.nan, "se": se, "reps": vals.size})


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard error and replication count per scenario, method and metric.

    Adds the derived rows of the paper: "Opt. Explor." / "Opt. Exploit." are the single
    exploration / exploitation agents with the highest grid-average accuracy, and their
    "(Full)" variants use the accuracy after spending the unused budget at random.
    """
    runs = runs.copy()
    best: dict[str, str] = {}
    for label, names in (("Opt. Explor.", EXPLORE), ("Opt. Exploit.", EXPLOIT)):
        present = runs[runs["method"].isin(names)]
        if present.empty:
            continue
        best[label] = str(present.groupby("method")["accuracy"].mean().idxmax())
        base = present[present["method"] == best[label]].copy()
        base["method"] = label
        full = base.copy()
        full["method"] = f"{label} (Full)"
        full["accuracy"] = full["accuracy_full"]
        runs = pd.concat([runs, base, full], ignore_index=True)
    metrics = [
        m
        for m in ("accuracy", "n_acquired", "cumulative_reward", "share_positive", "seconds")
        if m in runs
    ]
    long = runs.melt(
        id_vars=["scenario", *KEYS, "method"],
        value_vars=metrics,
        var_name="metric",
        value_name="value",
    )
    out = long.groupby(["scenario", *KEYS, "method", "metric"])["value"].apply(_stats)
    frame = out.unstack().reset_index()
    frame.attrs["best_agents"] = best
    return frame


def _fmt(metric: str, mean: float, se: float) -> str:
    if np.isnan(mean):
        return "–"
    if metric in ("accuracy", "share_positive"):
        return f"{100 * mean:.1f}% ({se:.2f})"
    return f"{mean:.2f} ({se:.2f})"


def paper_layout(summary: pd.DataFrame, table: str) -> pd.DataFrame:
    """Rows (disturbance, positives, method) × columns (sparsity, n): "mean (se)" strings."""
    metric, methods = TABLE_METHODS[table]
    sub = summary[(summary["metric"] == metric) & summary["method"].isin(methods)]
    rows = []
    for ds in (0.0, 0.03):
        for pc in (0.10, 0.05):
            for m in methods:
                cells = sub[(sub["ds"] == ds) & (sub["pc"] == pc) & (sub["method"] == m)]
                row: dict[str, Any] = {
                    "Disturbance": f"{ds:.0%}",
                    "Positives": f"{pc:.0%}",
                    "Method": m,
                }
                for sp in (0.30, 0.70):
                    for n in (500, 1000, 1500):
                        c = cells[(cells["sp"] == sp) & (cells["n"] == n)]
                        row[f"sp={sp:.0%} n={n}"] = (
                            _fmt(metric, float(c["mean"].iloc[0]), float(c["se"].iloc[0]))
                            if len(c)
                            else "–"
                        )
                rows.append(row)
    return pd.DataFrame(rows)


def comparison(summary: pd.DataFrame, table: str, paper: pd.DataFrame) -> pd.DataFrame:
    """Our mean next to the paper's, cell by cell, with the difference (ours − paper)."""
    metric, _ = TABLE_METHODS[table]
    ours = summary[summary["metric"] == metric][[*KEYS, "method", "mean", "se", "reps"]]
    theirs = paper[paper["table"] == table][[*KEYS, "method", "mean", "se"]]
    merged = theirs.merge(ours, on=[*KEYS, "method"], how="left", suffixes=("_paper", "_ours"))
    merged["diff"] = merged["mean_ours"] - merged["mean_paper"]
    return merged


def wins(summary: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """The paper's headline claims, counted on our runs: (scenarios won, scenarios compared)."""
    acc = summary[summary["metric"] == "accuracy"].pivot_table(
        index="scenario", columns="method", values="mean"
    )
    out: dict[str, tuple[int, int]] = {}

    def count(name: str, mask: pd.Series) -> None:
        out[name] = (int(mask.sum()), int(mask.notna().sum()))

    if {"CBEAL-6", "Opt. Explor.", "Opt. Exploit."} <= set(acc):
        best_single = acc[["Opt. Explor.", "Opt. Exploit."]].max(axis=1)
        count("CBEAL-6 ≥ best single agent (Opt. Explor./Exploit.)", acc["CBEAL-6"] >= best_single)
        singles = [c for c in (*EXPLORE, *EXPLOIT) if c in acc]
        count(
            "CBEAL-6 ≥ every single agent of its scenario",
            acc["CBEAL-6"] >= acc[singles].max(axis=1),
        )
    if {"CBEAL-2", "Opt. Explor.", "Opt. Exploit."} <= set(acc):
        count(
            "CBEAL-2 > both Opt. Explor. and Opt. Exploit.",
            acc["CBEAL-2"] > acc[["Opt. Explor.", "Opt. Exploit."]].max(axis=1),
        )
    for b in ("RS", "US", "DBALStream", "QBC-PYP", "VariableUncertainty", "Split"):
        if {"CBEAL-6", b} <= set(acc):
            count(f"CBEAL-6 > {b}", acc["CBEAL-6"] > acc[b])
    if {"CBEAL-6", "CBEAL-6 (no EWMA)"} <= set(acc):
        count("CBEAL-6 > CBEAL-6 without EWMA", acc["CBEAL-6"] > acc["CBEAL-6 (no EWMA)"])
    return out


def to_markdown(frame: pd.DataFrame, floatfmt: str = ".3f") -> str:
    """A GitHub Markdown table (no extra dependency)."""

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return "–" if np.isnan(v) else format(v, floatfmt)
        return str(v)

    rows = [[cell(v) for v in row] for row in frame.itertuples(index=False)]
    return markdown_table(list(frame.columns), rows)
