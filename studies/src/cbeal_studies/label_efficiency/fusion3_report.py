"""Issue 23, round 3: the development part ``fusion3-dev`` assembled from every part already
looked at, the choice between the pacer with and without a head start, and the goal and
paired tables on the third fresh part (``fresh3``), for studies/BENCHMARK.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cbeal_studies.label_efficiency.analysis import cell_table, critical_difference, mean_ranks
from cbeal_studies.label_efficiency.fusion2_report import (
    _rank_table,
    _versus,
    complete,
    fresh_sections,
    spending,
)
from cbeal_studies.label_efficiency.fusion_report import PAL, _md

__all__ = [
    "CANDIDATES",
    "CONTROL",
    "RANKED",
    "assemble_dev",
    "choose_round3",
    "control_check",
    "write_round3_report",
]

#: today's catalog CBEAL-5F (the head start over the first 1/b samples), the control
CONTROL = "F:5F-delay"
#: the two candidates of round 3, the control first
CANDIDATES = (CONTROL, "F:5F-end")
#: the strategies with rows in all three sources, plus the candidates (studies/BENCHMARK.md)
RANKED = (
    "RS",
    "ENT",
    "CBEAL-4",
    "CBEAL-6",
    "CBEAL-4U",
    "EntropySampler (river)",
    PAL,
    "VariableUncertainty (skactiveml)",
    "Split (skactiveml)",
    "StreamDensityBasedAL (skactiveml)",
    "F:4U+MIN-eq",
    *CANDIDATES,
)
_REFS = ("Initial", "All Training Data")
# source tag -> (row files, renames of a strategy as that file holds it)
_SOURCES: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "fusion2-dev": (("results_fusion2-dev.csv",), {}),
    # round 1's fresh rows: CBEAL-5F there is round 1's configuration
    "fresh": (
        ("results_fresh.csv", "results_fusion3-fresh.csv"),
        {"CBEAL-5F": "F:4U+MIN-eq"},
    ),
    # fresh2's CBEAL-5F is the catalog preset with the round-2 pacer, i.e. F:5F-delay
    "fresh2": (("results_fresh2.csv", "results_fusion3-fresh2.csv"), {"CBEAL-5F": CONTROL}),
}


def assemble_dev(out: Path) -> Any:
    """The rows of ``fusion3-dev``: each source's rows of the ranked strategies, renamed as
    in :data:`RANKED`, with the workload prefixed by its source (a cell lives in one)."""
    import pandas as pd

    frames = []
    for tag, (files, rename) in _SOURCES.items():
        for name in files:
            rows = pd.read_csv(out / name)
            rows = rows[rows["budget_share"].notna()].copy()
            rows["strategy"] = rows["strategy"].replace(rename)
            rows = rows[rows["strategy"].isin(RANKED)]
            rows["source"] = tag
            rows["workload"] = tag + "/" + rows["workload"]
            frames.append(rows)
    frame = pd.concat(frames, ignore_index=True)
    key = ["workload", "learner", "replication", "budget_share", "strategy"]
    if frame.duplicated(key).any():
        raise ValueError("a run appears twice in the development part's sources")
    return frame


def choose_round3(frame: Any) -> tuple[str, Any, Any]:
    """Round 3's rule: ``(winner, mean ranks, cells × strategies)``.

    The candidate with the lower mean rank among :data:`RANKED`; within 0.1 rank the one
    with the larger paired mean difference against ``ENT``, then the control.

    >>> import pandas as pd
    >>> rows = [{"workload": "w", "learner": "l", "budget_share": 0.1, "replication": 0,
    ...          "strategy": s, "balanced_accuracy": v}
    ...         for s, v in zip(RANKED, [0.5 + 0.01 * i for i in range(len(RANKED))])]
    >>> choose_round3(pd.DataFrame(rows))[0]
    'F:5F-end'
    """
    bal = cell_table(frame, "balanced_accuracy", list(RANKED))
    ranks = mean_ranks(bal)
    best = min(float(ranks[c]) for c in CANDIDATES)
    close = [c for c in CANDIDATES if float(ranks[c]) <= best + 0.1]
    vs_ent = {c: float((bal[c] - bal["ENT"]).mean()) for c in close}
    winner = sorted(close, key=lambda c: (-vs_ent[c], c != CONTROL))[0]
    return winner, ranks, bal


def control_check(out: Path, check: Path) -> str:
    """Whether the control's reruns (rows under `check`) equal the stored rows: fresh2's
    ``CBEAL-5F`` and the round-2 development part's ``F:5F-delay``."""
    import pandas as pd

    key = ["workload", "learner", "replication", "budget_share"]
    cols = ["balanced_accuracy", "accuracy", "n_acquired", "first_half_share"]
    parts = []
    for tag, stored_name, csv in (
        ("fresh2", "CBEAL-5F", "results_fresh2.csv"),
        ("dev", CONTROL, "results_fusion2-dev.csv"),
    ):
        rerun_path = check / f"results_check-{tag}.csv"
        if not rerun_path.exists():
            continue
        rerun = pd.read_csv(rerun_path)
        rerun = rerun[rerun["strategy"] == CONTROL].set_index(key)[cols]
        stored = pd.read_csv(out / csv)
        stored = stored[stored["strategy"] == stored_name].set_index(key)[cols]
        both = rerun.index.intersection(stored.index)
        same = int(np.isclose(rerun.loc[both], stored.loc[both], atol=1e-12).all(axis=1).sum())
        parts.append(f"{tag}: {same} of {len(both)} runs identical")
    return "; ".join(parts) if parts else "no rerun found"


def write_round3_report(out: Path, rec: str | None = None, rec_rate: str | None = None) -> Path:
    """``out/tables/fusion3.md`` and figures: the development part and choice, and (when
    run) the fresh3 goal and paired tables of `rec` (`rec_rate` ranked in its place)."""
    import pandas as pd

    from cbeal_studies.label_efficiency import figures as figs
    from cbeal_studies.label_efficiency.strategies import strategies

    groups = {k: v.group for k, v in strategies().items()}
    fig = out / "figures"
    fig.mkdir(parents=True, exist_ok=True)
    dev = assemble_dev(out)
    dev.to_csv(out / "results_fusion3-dev.csv", index=False)
    winner, ranks, bal = choose_round3(dev)
    cd = critical_difference(bal.shape[1], bal.shape[0])
    lines = [
        "# Issue 23, round 3",
        "",
        f"## Development part fusion3-dev ({bal.shape[0]} cells, {bal.shape[1]} strategies, "
        f"critical difference {cd:.2f})",
        "",
        _md(_rank_table(bal, ranks, groups)),
        "",
        f"Winner by the rule: **{winner}**. Control reruns: "
        f"{control_check(out, Path('out/check'))}.",
        "",
    ]
    for tag in ("fusion2-dev", "fresh", "fresh2"):
        sub = cell_table(dev[dev["source"] == tag], "balanced_accuracy", list(RANKED))
        sub_ranks = mean_ranks(sub)
        lines += [
            f"### {tag} ({sub.shape[0]} cells)",
            "",
            _md(_versus(sub, CONTROL, ["F:5F-end"]), "{:.2f}"),
            "",
            _md(_versus(sub, "ENT", list(CANDIDATES)), "{:.2f}"),
            "",
            f"Mean ranks: {', '.join(f'{c} {sub_ranks[c]:.2f}' for c in CANDIDATES)}",
            "",
        ]
    lines += [
        "All 228 cells, `F:5F-end` against the control and both against ENT and PAL:",
        "",
        _md(_versus(bal, CONTROL, ["F:5F-end"]), "{:.2f}"),
        "",
        _md(_versus(bal, "ENT", list(CANDIDATES)), "{:.2f}"),
        "",
        _md(_versus(bal, PAL, list(CANDIDATES)), "{:.2f}"),
        "",
        "Spending:",
        "",
        _md(spending(dev, [*CANDIDATES, "ENT"]), "{:.3f}"),
        "",
    ]
    figs.figure_ranks(bal, groups, fig / "fusion3_dev_ranks.png", title="fusion3-dev: mean rank")
    path = out / "results_fresh3.csv"
    if rec is not None and path.exists():
        lines += _fresh3(complete(pd.read_csv(path)), rec, rec_rate, groups, fig)
    target = out / "tables" / "fusion3.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines))
    return target


def _fresh3(fresh: Any, rec: str, rec_rate: str | None, groups: Any, fig: Path) -> list[str]:
    lines = fresh_sections(fresh, rec, rec_rate, "fresh3", groups, fig)
    names = sorted(set(fresh["strategy"]) - set(_REFS) - {rec_rate})
    table = cell_table(fresh, "balanced_accuracy", names)
    per_wl = 100 * (table[rec] - table["ENT"]).groupby(level="workload").mean()
    lines += [
        f"{rec} − ENT per workload (points, mean over learners and budgets):",
        "",
        _md(per_wl.sort_values().to_frame("points"), "{:.2f}"),
        "",
    ]
    lines += ["Spending:", "", _md(spending(fresh, [rec, rec_rate or rec, "ENT"]), "{:.3f}"), ""]
    return lines
