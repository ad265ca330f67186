"""Tables (Markdown and CSV) and figures of a suite run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from cbeal_studies.label_efficiency.analysis import (
    cell_table,
    critical_difference,
    goal,
    mean_ranks,
)
from cbeal_studies.label_efficiency.analysis import paired as paired_table
from cbeal_studies.label_efficiency.strategies import strategies

__all__ = ["write_report"]

METRICS = {
    "balanced_accuracy": "balanced accuracy",
    "accuracy": "accuracy",
    "prequential_auc": "prequential area",
}
AGENTS = ("LD1", "LD2", "LD3", "SPF1", "RAL1", "RAL2", "RAL3", "RAL4", "ENT")


def _md(frame: Any, floatfmt: str = "{:.3f}") -> str:
    cols = [str(frame.index.name or "")] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" + "---:|" * len(frame.columns)]
    for idx, row in frame.iterrows():
        cells = [floatfmt.format(v) if isinstance(v, (float, np.floating)) else str(v) for v in row]
        lines.append("| " + " | ".join([str(idx), *cells]) + " |")
    return "\n".join(lines)


def _ranks_section(frame: Any, names: list[str]) -> tuple[str, Any]:
    import pandas as pd

    cols = {}
    for metric, label in METRICS.items():
        cols[f"rank ({label})"] = mean_ranks(cell_table(frame, metric, names))
        cols[f"mean {label}"] = cell_table(frame, metric, names).mean()
    cols["labels used"] = cell_table(frame, "n_acquired", names).mean()
    table = pd.DataFrame(cols).sort_values("rank (balanced accuracy)")
    table.index.name = "strategy"
    return _md(table, "{:.3f}"), table


def _goal_lines(table: Any, ref: str) -> list[str]:
    g = goal(table, ref, AGENTS)
    return [
        f"* `{ref}`: mean rank {g.rank:.2f}, position {g.rank_position} of "
        f"{table.shape[1]} (best: {'yes' if g.best_rank else 'no'}); ≥ the best single "
        f"cbeal agent in hindsight in {g.share_ge_best_agent:.0%} of {g.n_cells} cells "
        f"(goal 60 %); above RS in {g.share_above_rs:.0%} (goal 90 %)."
    ]


def _diagnostics(frame: Any) -> str:
    import pandas as pd

    runs = frame[frame["budget_share"].notna() & frame["n_flips"].notna()].copy()
    if runs.empty:
        return ""
    runs["useful_share"] = runs["n_useful"] / runs["n_acquired"].clip(lower=1)
    runs["ld_binary"] = runs["binary_advice"].map(
        lambda s: (
            float(np.mean([v for k, v in json.loads(s).items() if k.startswith("LD")] or [np.nan]))
            if isinstance(s, str)
            else np.nan
        )
    )
    cols = {
        "useful_share": "share of acquisitions rewarded +",
        "cumulative_reward": "cumulative reward",
        "weight_range": "largest weight range",
        "n_flips_first200": "EWMA flips, first 200 samples",
        "last_acquisition": "last acquisition (share of stream)",
        "p_acquire_first10": "P(acquire), first 10 %",
        "ld_binary": "LD advice 0 or 1",
    }
    table = runs.groupby("strategy")[list(cols)].mean().rename(columns=cols)
    table["balanced accuracy"] = runs.groupby("strategy")["balanced_accuracy"].mean()
    table.index.name = "configuration"
    return _md(pd.DataFrame(table), "{:.3f}")


def write_report(
    frame: Any, out: Path, *, name: str, recommended: str | None = None, figures: bool = True
) -> dict[str, Any]:
    """Write ``out/tables/<name>.md`` (+ CSVs) and ``out/figures/<name>_*.png``; return the
    goal checks per part."""
    from cbeal_studies.label_efficiency import figures as figs

    groups = {k: v.group for k, v in strategies().items()}
    ran = [s for s in groups if s in set(frame["strategy"])]
    tables, figdir = out / "tables", out / "figures"
    tables.mkdir(parents=True, exist_ok=True)
    figdir.mkdir(parents=True, exist_ok=True)
    lines = [f"# Benchmark suite: {name}", ""]
    summary: dict[str, Any] = {}
    parts = [(p, frame[frame["part"] == p]) for p in ("dev", "eval") if (frame["part"] == p).any()]
    if len(parts) == 2:
        parts.append(("all", frame))
    for part, sub in parts:
        text, ranks = _ranks_section(sub, ran)
        ranks.to_csv(tables / f"{name}_{part}_ranks.csv")
        bal = cell_table(sub, "balanced_accuracy", ran)
        cd = critical_difference(bal.shape[1], bal.shape[0])
        lines += [
            f"## Part: {part} ({bal.shape[0]} cells, {bal.shape[1]} strategies; "
            f"critical difference of mean ranks {cd:.2f})",
            "",
            text,
            "",
        ]
        refs = [r for r in (recommended, "CBEAL-6") if r and r in bal.columns]
        for ref in refs:
            lines += _goal_lines(bal, ref)
            pt = paired_table(bal, ref)
            pt.to_csv(tables / f"{name}_{part}_paired_{ref}.csv")
            pt = pt.assign(mean_diff=100 * pt["mean_diff"], se=100 * pt["se"])
            pt.index.name = f"{ref} vs"
            lines += [
                "",
                f"Paired over cells, `{ref}` against each strategy (difference of "
                "balanced accuracy in points, mean ± s.e. over cells):",
                "",
                _md(pt, "{:.2f}"),
                "",
            ]
            g = goal(bal, ref, AGENTS)
            summary.setdefault(part, {})[ref] = g.__dict__ | {"met": g.met}
        if figures:
            figs.figure_ranks(
                bal,
                groups,
                figdir / f"{name}_{part}_ranks.png",
                title=f"{name}, {part} part: mean rank by final balanced accuracy",
            )
            if refs:
                figs.figure_paired(
                    bal,
                    refs[0],
                    figdir / f"{name}_{part}_paired.png",
                    title=f"{name}, {part} part: {refs[0]} cell by cell",
                )
        per_wl = sub[sub["budget_share"].notna()].pivot_table(
            index="workload", columns="strategy", values="balanced_accuracy", aggfunc="mean"
        )
        keep = [
            c
            for c in ([recommended] if recommended else [])
            + [
                "CBEAL-6",
                "RAL1",
                "LD2",
                "RS",
                "US",
                "VariableUncertainty",
                "EntropySampler (river)",
                "StreamProbabilisticAL (skactiveml)",
            ]
            if c in per_wl.columns
        ]
        lines += [
            f"Mean balanced accuracy per workload ({part}; over learners, budgets and "
            "replications):",
            "",
            _md(per_wl[keep]),
            "",
        ]
    diag = _diagnostics(frame[frame["part"] == "dev"] if (frame["part"] == "dev").any() else frame)
    if diag:
        lines += [
            "## Bandit diagnostics of the CbeAL configurations (mean over runs)",
            "",
            diag,
            "",
        ]
    (tables / f"{name}.md").write_text("\n".join(lines))
    (tables / f"{name}_goal.json").write_text(json.dumps(summary, indent=1))
    return summary
