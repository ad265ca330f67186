"""Issue 23, round 2: the choice rule on the development part (``fusion2-dev``) and the goal
and paired tables on the second fresh part (``fresh2``), for studies/BENCHMARK.md."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cbeal_studies.label_efficiency.analysis import (
    cell_table,
    critical_difference,
    mean_ranks,
    paired,
)
from cbeal_studies.label_efficiency.fusion_report import _md, fresh_goal, goal_lines

__all__ = [
    "CONTROL",
    "ELIGIBLE",
    "choose_round2",
    "complete",
    "fresh_sections",
    "spending",
    "write_round2_report",
]

#: round 1's CBEAL-5F, the control of round 2
CONTROL = "F:4U+MIN-eq"
#: the eligible candidates of round 2, in the rule's order
ELIGIBLE = (CONTROL, "F:5F-delay", "F:5F-end", "F:H+QBC+MIN-end")
_REFS = ("Initial", "All Training Data")


def choose_round2(frame: Any, members: dict[str, int]) -> tuple[str, Any, Any]:
    """Apply round 2's rule to the development rows: ``(winner, mean ranks, bal. table)``.

    Lowest mean rank of the eligible candidates among all strategies; within 0.1 rank the
    larger paired mean difference against ``ENT``, then the control, then fewer members.
    """
    names = sorted(set(frame["strategy"]) - set(_REFS))
    bal = cell_table(frame, "balanced_accuracy", names)
    ranks = mean_ranks(bal)
    best = min(float(ranks[c]) for c in ELIGIBLE)
    close = [c for c in ELIGIBLE if float(ranks[c]) <= best + 0.1]
    vs_ent = {c: float((bal[c] - bal["ENT"]).mean()) for c in close}
    winner = sorted(close, key=lambda c: (-vs_ent[c], c != CONTROL, members[c]))[0]
    return winner, ranks, bal


def spending(frame: Any, names: Sequence[str]) -> Any:
    """Per strategy: mean and minimum share of the budget spent, runs spending ≥ 97 %, the
    mean share of labels in the first half, and runs whose first label was sample 1."""
    import pandas as pd

    runs = frame[frame["budget_share"].notna() & frame["strategy"].isin(list(names))]
    rows = {}
    for name, g in runs.groupby("strategy"):
        spent = g["n_acquired"] / g["budget"]
        rows[name] = {
            "spent mean": float(spent.mean()),
            "spent min": float(spent.min()),
            "runs ≥ 97 %": float((spent >= 0.97 - 1e-12).mean()),
            "first half": float(g["first_half_share"].mean()),
            "runs": len(g),
        }
    table = pd.DataFrame(rows).T
    table.index.name = "strategy"
    return table


def complete(frame: Any) -> Any:
    """The rows of the strategies that have every run (a partial run's others left out)."""
    runs = frame[frame["budget_share"].notna()]
    counts = runs.groupby("strategy").size()
    full = set(counts[counts == counts.max()].index) | set(_REFS)
    return frame[frame["strategy"].isin(full)]


def _rank_table(bal: Any, ranks: Any, groups: dict[str, str]) -> Any:
    import pandas as pd

    ent = paired(bal, "ENT")
    table = pd.DataFrame(
        {
            "group": [groups.get(n, "") for n in ranks.index],
            "mean rank": ranks.values,
            "mean bal. acc.": bal.mean()[ranks.index].values,
            "vs ENT (points)": [
                0.0 if n == "ENT" else -100 * float(ent.loc[n, "mean_diff"]) for n in ranks.index
            ],
        },
        index=ranks.index,
    )
    table.index.name = "strategy"
    return table


def _versus(bal: Any, ref: str, names: Sequence[str]) -> Any:
    """Each of `names` minus `ref` over the cells (wins are the candidate's; points)."""
    import pandas as pd

    rows = {}
    for n in names:
        d = 100 * (bal[n] - bal[ref])
        rows[n] = {
            "wins / ties / losses": f"{int((d > 1e-10).sum())} / "
            f"{int((d.abs() <= 1e-10).sum())} / {int((d < -1e-10).sum())}",
            "diff": float(d.mean()),
            "se": float(d.std(ddof=1) / np.sqrt(d.size)),
        }
    table = pd.DataFrame(rows).T
    table.index.name = f"vs {ref}"
    return table


def _control_check(dev: Any, round1: Path) -> str:
    """Whether the control's rerun reproduced round 1's rows exactly."""
    import pandas as pd

    if not round1.exists():
        return "round 1's rows not found"
    old = pd.read_csv(round1)
    key = ["workload", "learner", "replication", "budget_share"]
    a = old[old["strategy"] == CONTROL].set_index(key)["balanced_accuracy"]
    b = dev[dev["strategy"] == CONTROL].set_index(key)["balanced_accuracy"]
    both = a.index.intersection(b.index)
    same = int(np.isclose(a[both], b[both], atol=1e-12).sum())
    return f"control rerun: {same} of {len(both)} runs identical to round 1"


def fresh_sections(
    fresh: Any, rec: str, rec_rate: str | None, part: str, groups: dict[str, str], fig: Path
) -> list[str]:
    """The goal, paired and rank tables of `rec` on a fresh part (and of `rec_rate`, ranked
    in `rec`'s place), with their rank and paired figures ``<part>[_rate]_*.png``."""
    from cbeal_studies.label_efficiency import figures as figs

    lines = [f"{part}: strategies with every run: {sorted(set(fresh['strategy']))}", ""]
    count = fresh[fresh["strategy"] != rec_rate] if rec_rate else fresh
    variants = [(rec, count, part)]
    if rec_rate and (fresh["strategy"] == rec_rate).any():
        variants.append((rec_rate, fresh[fresh["strategy"] != rec], f"{part}_rate"))
    for name, frame, tag in variants:
        goal, pt = fresh_goal(frame, name)
        pt = pt.assign(mean_diff=100 * pt["mean_diff"], se=100 * pt["se"])
        pt = pt.sort_values("mean_diff")
        pt.index.name = f"{name} vs"
        names = sorted(set(frame["strategy"]) - set(_REFS))
        table = cell_table(frame, "balanced_accuracy", names)
        ranks = mean_ranks(table)
        lines += goal_lines(f"{tag}: {name}", goal, pt)
        lines += [_md(ranks.to_frame("mean rank"), "{:.2f}"), ""]
        figs.figure_ranks(table, groups, fig / f"{tag}_ranks.png", title=f"{tag}: mean rank")
        figs.figure_paired(table, name, fig / f"{tag}_paired.png", title=f"{tag}: {name} by cell")
    return lines


def write_round2_report(out: Path, rec: str | None = None, rec_rate: str | None = None) -> Path:
    """``out/tables/fusion2.md``: the development choice and, when run, the fresh2 goal
    tables (count budget; `rec_rate` under a rate budget, ranked separately), with figures."""
    import pandas as pd

    from cbeal_studies.label_efficiency import figures as figs
    from cbeal_studies.label_efficiency.strategies import FUSION, strategies

    groups = {k: v.group for k, v in strategies().items()}
    lines = ["# Issue 23, round 2", ""]
    fig = out / "figures"
    fig.mkdir(parents=True, exist_ok=True)
    dev_path = out / "results_fusion2-dev.csv"
    if dev_path.exists():
        dev = pd.read_csv(dev_path)
        winner, ranks, bal = choose_round2(dev, {f.name: len(f.members) for f in FUSION})
        cd = critical_difference(bal.shape[1], bal.shape[0])
        lines += [
            f"## Development part ({bal.shape[0]} cells, {bal.shape[1]} strategies, "
            f"critical difference {cd:.2f})",
            "",
            _md(_rank_table(bal, ranks, groups)),
            "",
            f"Winner by the rule: **{winner}**. "
            f"{_control_check(dev, out / 'results_fusion-dev.csv')}.",
            "",
            "Each candidate against the control (points, mean ± s.e. over cells; wins are "
            "the candidate's):",
            "",
            _md(_versus(bal, CONTROL, [c for c in ELIGIBLE if c != CONTROL]), "{:.2f}"),
            "",
            "Spending (share of `B`):",
            "",
            _md(spending(dev, [*ELIGIBLE, "ENT"]), "{:.3f}"),
            "",
        ]
        figs.figure_ranks(
            bal, groups, fig / "fusion2_dev_ranks.png", title="fusion2-dev: mean rank"
        )
    path = out / "results_fresh2.csv"
    if rec is not None and path.exists():
        fresh = complete(pd.read_csv(path))
        lines += fresh_sections(fresh, rec, rec_rate, "fresh2", groups, fig)
        lines += [
            "Spending:",
            "",
            _md(spending(fresh, [rec, rec_rate or rec, CONTROL, "ENT"]), "{:.3f}"),
            "",
        ]
    target = out / "tables" / "fusion2.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines))
    return target
