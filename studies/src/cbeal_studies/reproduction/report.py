"""Write the reproduction's tables (Markdown and CSV) from a results file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cbeal_studies.reproduction.tables import (
    TABLE_METHODS,
    comparison,
    paper_layout,
    paper_tables,
    summarize,
    to_markdown,
    wins,
)

__all__ = ["write_tables"]

TITLES = {
    "agents": "Accuracy: single agents vs CbeAL (paper Table 2, `tab:simu_acc_agents`)",
    "benchmarks": "Accuracy: benchmarks, Initial and All Training Data (paper Table 3, "
    "`tab:simu_benchmark`)",
    "variants": "Accuracy: CbeAL variants (appendix, `tab:simu_pair`)",
    "acquired": "Labels acquired (appendix, `tab:simu_numb`)",
    "reward": "Cumulative reward (appendix, `tab:simun_reward`)",
    "positives": "Share of positives among the acquired labels (supplement Table A1; "
    "not in the paper's source, ours only)",
    "extras": "Extra baselines and the EWMA ablation (ours only)",
    "crosscheck": "Our baselines next to scikit-activeml's implementations on the same streams "
    "(their US threshold is 1/K + b(1 − 1/K) = 0.55 at b = 0.1; ours is the paper's 0.7)",
}


def _diff_table(cmp: pd.DataFrame, metric: str) -> pd.DataFrame:
    scale = 100.0 if metric == "accuracy" else 1.0
    out = cmp.copy()
    out["cell"] = [f"ds={r.ds:.0%} pc={r.pc:.0%} sp={r.sp:.0%} n={r.n}" for r in out.itertuples()]
    frame = pd.DataFrame(
        {
            "scenario": out["cell"],
            "method": out["method"],
            "paper": out["mean_paper"] * scale,
            "ours": out["mean_ours"] * scale,
            "ours − paper": out["diff"] * scale,
        }
    )
    return frame


def write_tables(results: Path, out: Path) -> dict[str, Any]:
    """Write tables_<name>.md/.csv next to `out`; returns the win counts and averages."""
    runs = pd.read_csv(results)
    summary = summarize(runs)
    paper = paper_tables()
    out.mkdir(parents=True, exist_ok=True)
    gen = str(runs["generator"].iloc[0])
    learner = str(runs["learner"].iloc[0])
    reps = int(runs.groupby(["scenario", "method"]).size().min())
    lines = [
        f"# Simulation study: generator {gen}, learner {learner}",
        "",
        f"{runs['scenario'].nunique()} scenarios × {reps} replications × "
        f"{runs['method'].nunique()} methods; cbeal {runs['cbeal_version'].iloc[0]} "
        f"(git {runs['git_sha'].iloc[0]}). Cells: mean (standard error) over replications.",
        "",
        f"Best single agents on grid average (used as Opt. rows): "
        f"{summary.attrs.get('best_agents')}.",
        "",
    ]
    acc = summary[summary["metric"] == "accuracy"]
    averages = {
        m: float(acc[acc["method"] == m]["mean"].mean()) for m in sorted(acc["method"].unique())
    }
    cells = acc[["ds", "pc", "sp", "n"]].drop_duplicates()
    same_cells = paper.merge(cells, on=["ds", "pc", "sp", "n"])  # average like with like
    paper_avg = (
        same_cells[same_cells["table"].isin(["agents", "benchmarks"])]
        .groupby("method")["mean"]
        .mean()
    )
    lines += [
        f"## Averages of test accuracy over the {len(cells)} scenarios run",
        "",
        "| method | ours | paper |",
        "|---|---:|---:|",
    ]
    for m, v in sorted(averages.items(), key=lambda kv: -kv[1]):
        p = paper_avg.get(m)
        lines.append(f"| {m} | {100 * v:.1f}% | {'' if p is None else f'{100 * p:.1f}%'} |")
    win = wins(summary)
    lines += [
        "",
        "## The paper's claims counted on our runs",
        "",
        "| claim | scenarios |",
        "|---|---:|",
    ]
    lines += [f"| {k} | {a}/{b} |" for k, (a, b) in win.items()]
    for table, title in TITLES.items():
        layout = paper_layout(summary, table)
        layout.to_csv(out / f"{table}.csv", index=False)
        lines += ["", f"## {title}", "", to_markdown(layout)]
        metric = TABLE_METHODS[table][0]
        if table in set(paper["table"]):
            cmp = comparison(summary, table, paper)
            cmp.to_csv(out / f"{table}_vs_paper.csv", index=False)
            diff = _diff_table(cmp, metric).dropna(subset=["ours"])
            if len(diff):
                unit = "percentage points" if metric == "accuracy" else "units"
                lines += [
                    "",
                    f"Ours − paper ({unit}): mean {diff['ours − paper'].mean():+.1f}, "
                    f"mean absolute {np.abs(diff['ours − paper']).mean():.1f} over "
                    f"{len(diff)} cells.",
                    "",
                    "<details><summary>Cell by cell: paper, ours, difference</summary>",
                    "",
                    to_markdown(diff, floatfmt=".1f"),
                    "",
                    "</details>",
                ]
    text = "\n".join(lines) + "\n"
    (out / "tables.md").write_text(text)
    payload = {"wins": {k: list(v) for k, v in win.items()}, "averages": averages}
    (out / "summary.json").write_text(json.dumps(payload, indent=1))
    summary.to_csv(out / "summary.csv", index=False)
    return payload
