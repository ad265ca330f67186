"""Issue 23, round 4: members that see different things. The development part
``fusion4-dev`` (round 3's ``fusion3-dev`` plus ``fresh3``), the choice among ``CBEAL-5F``
(the control) and two more diverse member sets, the members' advice correlation, and (when
run) the goal and paired tables on the fourth fresh part (``fresh4``), for studies/BENCHMARK.md."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cbeal_studies.label_efficiency.analysis import cell_table, critical_difference, mean_ranks
from cbeal_studies.label_efficiency.fusion2_report import (
    _rank_table,
    _versus,
    complete,
    fresh_sections,
    spending,
)
from cbeal_studies.label_efficiency.fusion3_report import CANDIDATES as ROUND3_CANDIDATES
from cbeal_studies.label_efficiency.fusion3_report import RANKED as ROUND3_RANKED
from cbeal_studies.label_efficiency.fusion_report import PAL, _md, diversity

__all__ = [
    "CANDIDATES",
    "CONTROL",
    "FIXED",
    "assemble_dev",
    "choose_round4",
    "write_round4_report",
]

#: today's catalog CBEAL-5F (round 3's pacer), the control
CONTROL = "F:5F-end"
#: the candidates of round 4, the control first, then the challengers in run order
CANDIDATES = (CONTROL, "F:H+MIN-end", "F:H+QBC+MIN-end")
#: the strategies with rows in fusion3-dev's three sources and fresh3, besides the candidates:
#: round 3's ranked strategies less its two candidates (F:5F-delay has no fresh3 rows)
FIXED = tuple(n for n in ROUND3_RANKED if n not in ROUND3_CANDIDATES)
_SOURCES = ("fusion2-dev", "fresh", "fresh2", "fresh3")
# source tag -> the files of the challengers' rows
_NEW: dict[str, tuple[str, ...]] = {
    "fusion2-dev": ("results_fusion2-dev.csv", "results_fusion4-dev2.csv"),
    "fresh": ("results_fusion4-fresh.csv",),
    "fresh2": ("results_fusion4-fresh2.csv",),
    "fresh3": ("results_fusion4-fresh3.csv",),
}


def _tagged(rows: Any, tag: str, names: Sequence[str]) -> Any:
    rows = rows[rows["budget_share"].notna() & rows["strategy"].isin(list(names))].copy()
    rows["source"] = tag
    rows["workload"] = tag + "/" + rows["workload"]
    return rows


def assemble_dev(out: Path) -> Any:
    """The rows of ``fusion4-dev``: fusion3-dev's (its workloads already carry their source),
    fresh3's (``CBEAL-5F`` is the control), and the challengers' new rows."""
    import pandas as pd

    old = pd.read_csv(out / "results_fusion3-dev.csv")
    frames = [old[old["strategy"].isin([*FIXED, CONTROL])]]
    fresh3 = pd.read_csv(out / "results_fresh3.csv")
    fresh3["strategy"] = fresh3["strategy"].replace({"CBEAL-5F": CONTROL})
    frames.append(_tagged(fresh3, "fresh3", [*FIXED, CONTROL]))
    for tag, files in _NEW.items():
        for name in files:
            if (out / name).exists():
                frames.append(_tagged(pd.read_csv(out / name), tag, CANDIDATES[1:]))
    frame = pd.concat(frames, ignore_index=True)
    key = ["workload", "learner", "replication", "budget_share", "strategy"]
    if frame.duplicated(key).any():
        raise ValueError("a run appears twice in the development part's sources")
    return frame


def choose_round4(frame: Any, candidates: Sequence[str] = CANDIDATES) -> tuple[str, Any, Any]:
    """Round 4's rule: ``(winner, mean ranks, cells × strategies)``.

    The candidate with the lowest mean rank among :data:`FIXED` and `candidates` (those
    whose rows were complete by the cutoff); within 0.1 rank of the best the larger paired
    mean difference against ``ENT``, then the control.

    >>> import pandas as pd
    >>> names = [*FIXED, *CANDIDATES]
    >>> rows = [{"workload": "w", "learner": "l", "budget_share": 0.1, "replication": 0,
    ...          "strategy": s, "balanced_accuracy": 0.5 + 0.01 * i}
    ...         for i, s in enumerate(names)]
    >>> choose_round4(pd.DataFrame(rows))[0]
    'F:H+QBC+MIN-end'
    >>> choose_round4(pd.DataFrame(rows), CANDIDATES[:2])[0]
    'F:H+MIN-end'
    """
    names = [*FIXED, *candidates]
    bal = cell_table(frame, "balanced_accuracy", names)
    ranks = mean_ranks(bal)
    best = min(float(ranks[c]) for c in candidates)
    close = [c for c in candidates if float(ranks[c]) <= best + 0.1]
    vs_ent = {c: float((bal[c] - bal["ENT"]).mean()) for c in close}
    winner = sorted(close, key=lambda c: (-vs_ent[c], c != CONTROL))[0]
    return winner, ranks, bal


def _minority(frame: Any, names: Sequence[str]) -> Any:
    """Mean share of minority samples among the labels, KEEL cells and the rest."""
    runs = frame[frame["strategy"].isin(list(names))]
    keel = runs["family"] == "keel"
    return (
        runs.assign(part=keel.map({True: "keel", False: "other"}))
        .pivot_table(index="strategy", columns="part", values="minority_share", aggfunc="mean")
        .loc[list(names)]
    )


def _subset(title: str, rows: Any, names: Sequence[str], candidates: Sequence[str]) -> list[str]:
    """The candidates against ENT and their mean ranks on a subset of the cells."""
    sub = cell_table(rows, "balanced_accuracy", list(names))
    ranks = mean_ranks(sub)
    return [
        f"### {title} ({sub.shape[0]} cells)",
        "",
        _md(_versus(sub, "ENT", list(candidates)), "{:.2f}"),
        "",
        f"Mean ranks (of {sub.shape[1]}): "
        + ", ".join(f"{c} {ranks[c]:.2f}" for c in [*candidates, "ENT", PAL]),
        "",
    ]


def write_round4_report(
    out: Path, candidates: Sequence[str] = CANDIDATES, rec: str | None = None
) -> Path:
    """``out/tables/fusion4.md`` and figures: the development part and the choice, the
    members' advice correlation, and (when run) fresh4's goal and paired tables of `rec`."""
    import pandas as pd

    from cbeal_studies.label_efficiency import figures as figs
    from cbeal_studies.label_efficiency.strategies import strategies

    groups = {k: v.group for k, v in strategies().items()}
    # the control is today's recommended preset; the challengers are this round's candidates
    groups |= {CONTROL: "recommended"} | {c: "candidate" for c in CANDIDATES[1:]}
    fig = out / "figures"
    fig.mkdir(parents=True, exist_ok=True)
    dev = assemble_dev(out)
    dev.to_csv(out / "results_fusion4-dev.csv", index=False)
    winner, ranks, bal = choose_round4(dev, candidates)
    cd = critical_difference(bal.shape[1], bal.shape[0])
    challengers = [c for c in candidates if c != CONTROL]
    lines = [
        "# Issue 23, round 4",
        "",
        f"## Development part fusion4-dev ({bal.shape[0]} cells, {bal.shape[1]} strategies, "
        f"critical difference {cd:.2f})",
        "",
        _md(_rank_table(bal, ranks, groups)),
        "",
        f"Winner by the rule: **{winner}**.",
        "",
        "Against the control, ENT and PAL (points, mean ± s.e. over cells):",
        "",
        _md(_versus(bal, CONTROL, challengers), "{:.2f}"),
        "",
        _md(_versus(bal, "ENT", list(candidates)), "{:.2f}"),
        "",
        _md(_versus(bal, PAL, list(candidates)), "{:.2f}"),
        "",
    ]
    for tag in _SOURCES:
        lines += _subset(tag, dev[dev["source"] == tag], list(bal.columns), candidates)
    lines += _subset("KEEL", dev[dev["family"] == "keel"], list(bal.columns), candidates)
    lines += _subset("not KEEL", dev[dev["family"] != "keel"], list(bal.columns), candidates)
    lines += [
        "Minority share of the labels:",
        "",
        _md(_minority(dev, [*candidates, "ENT"]), "{:.3f}"),
        "",
        "Spending:",
        "",
        _md(spending(dev, [*candidates, "ENT"]), "{:.3f}"),
        "",
        "Members' advice correlation (Spearman, mean over the challengers' runs):",
        "",
        _md(diversity(dev, challengers), "{:.2f}"),
        "",
        f"The control's members (mean over {CONTROL}'s runs):",
        "",
        _md(diversity(dev, [CONTROL]), "{:.2f}"),
        "",
    ]
    figs.figure_ranks(bal, groups, fig / "fusion4_dev_ranks.png", title="fusion4-dev: mean rank")
    path = out / "results_fresh4.csv"
    if rec is not None and path.exists():
        fresh = complete(pd.read_csv(path))
        lines += fresh_sections(fresh, rec, None, "fresh4", groups, fig)
        lines += ["Spending:", "", _md(spending(fresh, [rec, "CBEAL-5F", "ENT"]), "{:.3f}"), ""]
    target = out / "tables" / "fusion4.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines))
    return target
