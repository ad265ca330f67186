"""Issue 32, round 5: the pacer (accrual or deficit) × the minority seeker, members that
earn their seat, the token bucket's burst, and the goal on the fifth fresh part — the
rule of studies/BENCHMARK.md, as code.

The development part ``fusion5-dev`` is round 4's ``fusion4-dev`` (300 cells) plus the
round-5 candidates' rows (``results_fusion5-*.csv``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cbeal_studies.label_efficiency.analysis import cell_table, mean_ranks
from cbeal_studies.label_efficiency.fusion2_report import _versus, spending
from cbeal_studies.label_efficiency.fusion4_report import CANDIDATES as ROUND4_CANDIDATES
from cbeal_studies.label_efficiency.fusion4_report import FIXED as ROUND4_FIXED
from cbeal_studies.label_efficiency.fusion_report import _md

__all__ = [
    "CONTROL",
    "RANKED",
    "STAGE1",
    "assemble_dev",
    "burst",
    "choose",
    "leave_one_out",
    "robustness",
]

#: today's catalog CBEAL-5F, the control
CONTROL = "F:5F-end"
#: stage 1's candidates: the 2 × 2 of pacer (F: accrual, D: deficit) × MIN
STAGE1 = (CONTROL, "F:4U-end", "D:5F", "D:4U")
#: round 4's 14 strategies (the control among them)
RANKED = (*ROUND4_FIXED, *ROUND4_CANDIDATES)
#: the source tag of each round-5 profile's rows
_SOURCES = {
    "fusion5-dev2": "fusion2-dev",
    "fusion5-fresh": "fresh",
    "fusion5-fresh2": "fresh2",
    "fusion5-fresh3": "fresh3",
}


def assemble_dev(out: Path) -> Any:
    """The rows of ``fusion5-dev``: ``fusion4-dev``'s and the round-5 runs, each tagged
    with its source (the workload id carries it, as in round 4)."""
    import pandas as pd

    frames = [pd.read_csv(out / "results_fusion4-dev.csv")]
    for profile, tag in _SOURCES.items():
        path = out / f"results_{profile}.csv"
        if path.exists():
            rows = pd.read_csv(path)
            rows = rows[rows["budget_share"].notna()].copy()
            rows["source"] = tag
            rows["workload"] = tag + "/" + rows["workload"]
            frames.append(rows)
    frame = pd.concat(frames, ignore_index=True)
    key = ["workload", "learner", "replication", "budget_share", "strategy"]
    if frame.duplicated(key).any():
        raise ValueError("a run appears twice in the development part's sources")
    return frame


def robustness(frame: Any, name: str, ref: str = "ENT") -> Any:
    """`name` − `ref` per workload in points, pooled over learners, budgets, replications
    and sources (the workload id without its source tag), worst first.

    >>> import pandas as pd
    >>> rows = [{"workload": f"{s}/w{i}", "learner": "l", "budget_share": 0.1,
    ...          "replication": r, "strategy": n, "balanced_accuracy": v}
    ...         for s in ("a", "b") for i in (1, 2) for r in (0, 1)
    ...         for n, v in (("ENT", 0.8), ("X", 0.8 - 0.02 * i))]
    >>> robustness(pd.DataFrame(rows), "X").round(2).to_dict()
    {'w2': -4.0, 'w1': -2.0}
    """
    runs = frame[frame["strategy"].isin([name, ref]) & frame["budget_share"].notna()]
    key = ["workload", "learner", "budget_share", "replication"]
    wide = runs.pivot_table(index=key, columns="strategy", values="balanced_accuracy")
    wide = wide.dropna()
    diff = 100 * (wide[name] - wide[ref])
    workload = diff.index.get_level_values("workload").str.split("/").str[-1]
    return diff.groupby(workload).mean().sort_values()


def _bar(worst: dict[str, float]) -> float:
    """The robustness bar: −2 points, lowered in steps of 1 until a candidate passes."""
    bar = -2.0
    while not any(w >= bar - 1e-12 for w in worst.values()):
        bar -= 1.0
    return bar


def _simplicity(name: str) -> tuple[int, int]:
    """Fewer members first, then the deficit pacer (``D:``)."""
    from cbeal_studies.label_efficiency.strategies import FUSION

    members = {f.name: len(f.members) for f in FUSION}
    return members.get(name, 99), 0 if name.startswith("D:") else 1


def choose(
    frame: Any, candidates: Sequence[str], ranked: Sequence[str] = RANKED
) -> tuple[str, Any, Any, dict[str, float], float]:
    """The rule's steps 1–2: ``(winner, mean ranks, cells × strategies, worst workload of
    each candidate, the bar)``."""
    names = list(dict.fromkeys([*ranked, *candidates]))
    bal = cell_table(frame, "balanced_accuracy", names)
    ranks = mean_ranks(bal)
    worst = {c: float(robustness(frame, c).iloc[0]) for c in candidates}
    bar = _bar(worst)
    eligible = [c for c in candidates if worst[c] >= bar - 1e-12]
    best = min(float(ranks[c]) for c in eligible)
    close = [c for c in eligible if float(ranks[c]) <= best + 0.1]
    vs_ent = {c: float((bal[c] - bal["ENT"]).mean()) for c in close}
    # within 0.1 rank: the larger gain over ENT, then the simpler candidate
    top = max(vs_ent.values())
    tied = [c for c in close if vs_ent[c] >= top - 1e-12]
    winner = sorted(tied, key=_simplicity)
    return winner[0], ranks, bal, worst, bar


def leave_one_out(frame: Any, base: str, without: dict[str, str]) -> Any:
    """Paired difference (points) of each ``base`` − member (`without`: member → strategy
    name) against `base` over the cells, with its standard error and worst workload."""
    import pandas as pd

    rows = {}
    for member, name in without.items():
        bal = cell_table(frame, "balanced_accuracy", [base, name])
        d = 100 * (bal[name] - bal[base])
        rows[member] = {
            "strategy": name,
            "d_m": float(d.mean()),
            "se": float(d.std(ddof=1) / np.sqrt(d.size)),
            "d_m + se": float(d.mean() + d.std(ddof=1) / np.sqrt(d.size)),
            "stays": bool(d.mean() + d.std(ddof=1) / np.sqrt(d.size) < 0),
            "worst workload vs ENT": float(robustness(frame, name).iloc[0]),
            "cells": int(d.size),
        }
    table = pd.DataFrame(rows).T
    table.index.name = "member left out"
    return table


def burst(frame: Any, name: str) -> float:
    """The rule's step 4: the 90th percentile of `name`'s ``max_lead`` under the count
    budget, rounded up to a whole label (at least 1).

    >>> import pandas as pd
    >>> burst(pd.DataFrame({"strategy": "X", "budget_share": 0.1,
    ...                     "max_lead": [0.5, 1.2, 2.7, 3.1]}), "X")
    3.0
    """
    runs = frame[(frame["strategy"] == name) & frame["budget_share"].notna()]
    return float(max(1, math.ceil(float(np.quantile(runs["max_lead"], 0.9)) - 1e-9)))


def lead_table(frame: Any, names: Sequence[str]) -> Any:
    """Per strategy: spending, first-half share and the lead over ``b·t`` (labels)."""
    table = spending(frame, names)
    runs = frame[frame["strategy"].isin(list(names)) & frame["budget_share"].notna()]
    if "max_lead" in runs:
        lead = runs.groupby("strategy")["max_lead"]
        table["max lead median"] = lead.median()
        table["max lead p90"] = lead.quantile(0.9)
    return table


def stage_lines(frame: Any, candidates: Sequence[str], title: str) -> list[str]:
    """A stage's tables: ranks, the candidates against ENT and PAL, worst workloads."""
    from cbeal_studies.label_efficiency.fusion_report import PAL

    winner, ranks, bal, worst, bar = choose(frame, candidates)
    table = ranks.to_frame("mean rank")
    table["vs ENT (points)"] = [100 * float((bal[n] - bal["ENT"]).mean()) for n in ranks.index]
    cells = {c: 100 * (bal[c] - bal["ENT"]) for c in candidates}
    worst_tab = {
        c: {
            "worst workload": worst[c],
            "workload": str(robustness(frame, c).index[0]),
            "worst cell": float(cells[c].min()),
            "cell p5": float(cells[c].quantile(0.05)),
        }
        for c in candidates
    }
    import pandas as pd

    return [
        f"## {title} ({bal.shape[0]} cells, {bal.shape[1]} strategies)",
        "",
        _md(table, "{:.2f}"),
        "",
        _md(_versus(bal, "ENT", list(candidates)), "{:.2f}"),
        "",
        _md(_versus(bal, PAL, list(candidates)), "{:.2f}"),
        "",
        _md(pd.DataFrame(worst_tab).T, "{:.2f}"),
        "",
        f"Robustness bar: {bar:g} points; winner by the rule: **{winner}**.",
        "",
        _md(lead_table(frame, [*candidates, "ENT"]), "{:.3f}"),
        "",
    ]


def fresh_worst(fresh: Any, name: str) -> dict[str, Any]:
    """The goal's robustness on a fresh part: `name` − ``ENT`` per cell and per workload."""
    bal = cell_table(fresh, "balanced_accuracy", [name, "ENT"])
    cells = 100 * (bal[name] - bal["ENT"])
    per_workload = robustness(fresh, name)
    worst = cells.idxmin()
    return {
        "worst cell": float(cells.min()),
        "worst cell is": " · ".join(str(v) for v in worst),
        "cells below −2": int((cells < -2.0).sum()),
        "cells": int(cells.size),
        "worst workload": float(per_workload.iloc[0]),
        "worst workload is": str(per_workload.index[0]),
        "workloads below −2": int((per_workload < -2.0).sum()),
    }


def write_round5_report(out: Path, rec: str = "CBEAL-5D") -> Path:
    """``out/tables/fusion5.md`` and figures: the stages on ``fusion5-dev`` and, when run,
    the goal on ``fresh5`` of `rec` under the rate budget and the count."""
    import pandas as pd

    from cbeal_studies.label_efficiency import figures as figs
    from cbeal_studies.label_efficiency.fusion2_report import complete, fresh_sections
    from cbeal_studies.label_efficiency.strategies import strategies

    groups = {k: v.group for k, v in strategies().items()}
    groups = {k: "earlier candidate" if g.startswith("fusion") else g for k, g in groups.items()}
    groups |= {c: "round-5 candidate" for c in STAGE1}
    fig = out / "figures"
    fig.mkdir(parents=True, exist_ok=True)
    dev = assemble_dev(out)
    dev.to_csv(out / "results_fusion5-dev.csv", index=False)
    lines = ["# Issue 32, round 5", ""]
    lines += stage_lines(dev, STAGE1, "Stage 1: pacer × MIN, count budget")
    _, _, bal, _, _ = choose(dev, STAGE1)
    figs.figure_ranks(bal, groups, fig / "fusion5_dev_ranks.png", title="fusion5-dev: mean rank")
    loo = {m: f"D:5F-{m}" for m in ("RAL1", "RAL2", "ENT", "VU")} | {"MIN": "D:4U"}
    lines += [
        "## Stage 2: leave one member out of D:5F",
        "",
        _md(leave_one_out(dev, "D:5F", loo), "{:.2f}"),
        "",
        _md(leave_one_out(dev, "D:5F", {"RAL1, RAL2, VU, MIN": "D:ENT"}), "{:.2f}"),
        "",
    ]
    rate = [n for n in ("D:5F-rate5", "D:4U-rate5") if (dev["strategy"] == n).any()]
    if rate:
        sub = cell_table(dev, "balanced_accuracy", ["D:5F", "D:4U", *rate, "ENT"])
        lines += [
            "## Stage 3: the token bucket (k = 5) against the count",
            "",
            _md(_versus(sub, "D:5F", [n for n in sub.columns if n != "D:5F"]), "{:.2f}"),
            "",
            _md(_versus(sub, "ENT", [n for n in sub.columns if n != "ENT"]), "{:.2f}"),
            "",
            _md(lead_table(dev, ["D:5F", "D:4U", *rate]), "{:.3f}"),
            "",
        ]
    path = out / "results_fresh5.csv"
    if path.exists():
        fresh = complete(pd.read_csv(path))
        rec_rate = f"{rec} (rate)"
        lines += fresh_sections(fresh, rec, rec_rate, "fresh5", groups, fig)
        for name in (rec_rate, rec):
            if (fresh["strategy"] == name).any():
                others = fresh[fresh["strategy"] != (rec if name == rec_rate else rec_rate)]
                lines += [f"{name} against ENT, worst:", "", str(fresh_worst(others, name)), ""]
        lines += [
            "Spending:",
            "",
            _md(lead_table(fresh, [rec_rate, rec, "CBEAL-5F", "ENT"]), "{:.3f}"),
            "",
        ]
    target = out / "tables" / "fusion5.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines))
    return target
