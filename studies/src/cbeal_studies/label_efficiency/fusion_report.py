"""Issue 23's analysis: the choice rule on the development part, the members' diversity,
and the goal and paired tables on the fresh evaluation part (for studies/BENCHMARK.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cbeal_studies.label_efficiency.analysis import (
    cell_table,
    critical_difference,
    mean_ranks,
    paired,
)

__all__ = ["Choice", "choose", "diversity", "fresh_goal", "goal_lines", "write_fusion_report"]

PAL = "StreamProbabilisticAL (skactiveml)"


def _md(frame: Any, fmt: str = "{:.3f}") -> str:
    cols = [str(frame.index.name or "")] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|---" + "|---:" * len(frame.columns) + "|"]
    for idx, row in frame.iterrows():
        cells = [fmt.format(v) if isinstance(v, (float, np.floating)) else str(v) for v in row]
        lines.append("| " + " | ".join([str(idx), *cells]) + " |")
    return "\n".join(lines)


@dataclass(frozen=True)
class Choice:
    """The outcome of the choice rule (studies/BENCHMARK.md, issue 23)."""

    winner: str
    ranks: Any  # mean rank of every strategy of the development run
    twins: Any  # learned rule minus its equal-weights twin, per pair
    eligible: tuple[str, ...]
    learned_beats_equal: bool


def choose(frame: Any, candidates: Sequence[str], members: dict[str, int]) -> Choice:
    """Apply the choice rule to the development rows `frame`.

    `candidates` are the eligible-in-principle configurations (group ``fusion``);
    `members` their member counts (the last tie-break).
    """
    import pandas as pd

    names = sorted(set(frame["strategy"]) - {"Initial", "All Training Data"})
    bal = cell_table(frame, "balanced_accuracy", names)
    ranks = mean_ranks(bal)
    rows = []
    learned_ok = []
    for name in candidates:
        if not name.endswith("-ev"):
            continue
        twin = name[:-3] + "-eq"
        d = bal[name] - bal[twin]
        se = float(d.std(ddof=1) / np.sqrt(d.size))
        ok = float(d.mean()) - se > 0.0
        rows.append({"learned": name, "equal": twin, "diff": 100 * d.mean(), "se": 100 * se})
        if ok:
            learned_ok.append(name)
    twins = pd.DataFrame(rows).set_index("learned")
    eligible = [c for c in candidates if c.endswith("-eq") or c in learned_ok]
    vs_ent = {c: float((bal[c] - bal["ENT"]).mean()) for c in eligible}
    order = sorted(eligible, key=lambda c: float(ranks[c]))
    best = float(ranks[order[0]])
    close = [c for c in order if float(ranks[c]) <= best + 0.1]
    winner = sorted(close, key=lambda c: (-vs_ent[c], members[c]))[0]
    return Choice(winner, ranks, twins, tuple(eligible), bool(learned_ok))


def diversity(frame: Any, runs_of: Sequence[str]) -> Any:
    """Mean Spearman correlation of every pair of members' scores over the runs of
    `runs_of` (a matrix; each pair from the runs that hold both)."""
    import pandas as pd

    sums: dict[tuple[str, str], list[float]] = {}
    for raw in frame.loc[frame["strategy"].isin(list(runs_of)), "advice_corr"].dropna():
        for key, value in json.loads(raw).items():
            if value is not None:
                a, b = key.split("|")
                sums.setdefault((a, b), []).append(float(value))
    names = sorted({n for pair in sums for n in pair}, key=_member_order)
    mat = pd.DataFrame(np.nan, index=names, columns=names)
    for (a, b), vals in sums.items():
        mat.loc[a, b] = mat.loc[b, a] = float(np.mean(vals))
    for n in names:
        mat.loc[n, n] = 1.0
    mat.index.name = "member"
    return mat


def _member_order(name: str) -> tuple[int, str]:
    order = ["RAL1", "RAL2", "ENT", "VU", "H", "DWU", "QBC", "MIN", "SPF1", "LDS"]
    return (order.index(name) if name in order else len(order), name)


def fresh_goal(frame: Any, rec: str) -> tuple[dict[str, Any], Any]:
    """The goal checks of `rec` on the fresh part, and its paired table against every
    strategy (points of balanced accuracy)."""
    names = sorted(set(frame["strategy"]) - {"Initial", "All Training Data"})
    bal = cell_table(frame, "balanced_accuracy", names)
    ranks = mean_ranks(bal)
    pt = paired(bal, rec)
    runs = frame[(frame["strategy"] == rec) & frame["budget_share"].notna()]
    spent = runs["n_acquired"] / runs["budget"]
    half = runs["first_half_share"]
    out = {
        "cells": int(bal.shape[0]),
        "strategies": int(bal.shape[1]),
        "rank": float(ranks[rec]),
        "position": int(list(ranks.index).index(rec)) + 1,
        "best": str(ranks.index[0]),
        "best_rank": float(ranks.iloc[0]),
        "cd": critical_difference(bal.shape[1], bal.shape[0]),
        "vs_ent": (100 * float(pt.loc["ENT", "mean_diff"]), 100 * float(pt.loc["ENT", "se"])),
        "vs_pal": (100 * float(pt.loc[PAL, "mean_diff"]), 100 * float(pt.loc[PAL, "se"])),
        "above_rs": float((bal[rec] > bal["RS"]).mean()),
        "first_half_mean": float(half.mean()),
        "first_half_in_range": float(half.between(0.4, 0.6).mean()),
        "first_half_min": float(half.min()),
        "first_half_max": float(half.max()),
        "spent_min": float(spent.min()),
        "spent_ge97": float((spent >= 0.97 - 1e-12).mean()),
        "runs": len(runs),
    }
    return out, pt


def goal_lines(title: str, goal: dict[str, Any], pt: Any) -> list[str]:
    """A fresh part's section: its title, the goal checks as JSON and the paired table."""
    return [f"## {title}", "", "```", json.dumps(goal, indent=1), "```", "", _md(pt, "{:.2f}"), ""]


def write_fusion_report(out: Path, rec: str | None = None) -> Path:
    """Tables of the development choice and (when run) the fresh part into
    ``out/tables/fusion.md``, with rank and paired figures of the fresh part."""
    import pandas as pd

    from cbeal_studies.label_efficiency import figures as figs
    from cbeal_studies.label_efficiency.strategies import FUSION, strategies

    lines = ["# Issue 23: score fusion", ""]
    dev_path = out / "results_fusion-dev.csv"
    groups = {k: v.group for k, v in strategies().items()}
    if dev_path.exists():
        dev = pd.read_csv(dev_path)
        cands = [f.name for f in FUSION if f.role == "fusion"]
        choice = choose(dev, cands, {f.name: len(f.members) for f in FUSION})
        bal = cell_table(dev, "balanced_accuracy", list(choice.ranks.index))
        ent = paired(bal, "ENT")
        table = pd.DataFrame(
            {
                "group": [groups.get(n, "") for n in choice.ranks.index],
                "mean rank": choice.ranks.values,
                "mean bal. acc.": bal.mean()[choice.ranks.index].values,
                "vs ENT (points)": [
                    0.0 if n == "ENT" else -100 * float(ent.loc[n, "mean_diff"])
                    for n in choice.ranks.index
                ],
            },
            index=choice.ranks.index,
        )
        table.index.name = "strategy"
        cd = critical_difference(bal.shape[1], bal.shape[0])
        lines += [
            f"## Development part ({bal.shape[0]} cells, {bal.shape[1]} strategies, "
            f"critical difference {cd:.2f})",
            "",
            _md(table),
            "",
            "Learned weights against their equal-weights twins (points, mean ± s.e.):",
            "",
            _md(choice.twins, "{:.2f}"),
            "",
            f"Eligible: {', '.join(choice.eligible)}. Winner by the rule: **{choice.winner}**.",
            "",
            "Members' advice correlation (Spearman, mean over runs of F:4U+3-eq and F:div-eq):",
            "",
            _md(diversity(dev, ["F:4U+3-eq", "F:div-eq"]), "{:.2f}"),
            "",
        ]
        fig = out / "figures"
        fig.mkdir(parents=True, exist_ok=True)
        figs.figure_ranks(bal, groups, fig / "fusion_dev_ranks.png", title="fusion-dev: mean rank")
    fresh_path = out / "results_fresh.csv"
    if rec is not None and fresh_path.exists():
        fresh = pd.read_csv(fresh_path)
        goal, pt = fresh_goal(fresh, rec)
        pt = pt.assign(mean_diff=100 * pt["mean_diff"], se=100 * pt["se"]).sort_values("mean_diff")
        pt.index.name = f"{rec} vs"
        lines += goal_lines("Fresh evaluation part", goal, pt)
        names = sorted(set(fresh["strategy"]) - {"Initial", "All Training Data"})
        bal = cell_table(fresh, "balanced_accuracy", names)
        fig = out / "figures"
        figs.figure_ranks(
            bal, groups, fig / "fresh_ranks.png", title="fresh evaluation part: mean rank"
        )
        figs.figure_paired(
            bal, rec, fig / "fresh_paired.png", title=f"fresh evaluation part: {rec} by cell"
        )
    target = out / "tables" / "fusion.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines))
    return target
