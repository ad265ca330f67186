"""Issue 23, round 4: the development part fusion4-dev and the choice among member sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from cbeal_studies.label_efficiency.profiles import PROFILES
from cbeal_studies.label_efficiency.scenarios import WORKLOADS

pd = pytest.importorskip("pandas")


def _rows(values: dict[str, list[float]], **extra: object) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "strategy": name,
                "workload": f"w{i}",
                "learner": "logreg",
                "budget_share": 0.05,
                "balanced_accuracy": v,
                "family": "keel" if i % 2 else "drift",
                **extra,
            }
            for name, vals in values.items()
            for i, v in enumerate(vals)
        ]
    )


def test_round4_rule_takes_the_lowest_rank_then_ent_then_the_control() -> None:
    from cbeal_studies.label_efficiency.fusion4_report import (
        CANDIDATES,
        CONTROL,
        FIXED,
        choose_round4,
    )

    base = [0.70, 0.60, 0.80, 0.75, 0.65, 0.72]
    vals = {n: [v - 0.1 for v in base] for n in [*FIXED, *CANDIDATES]}
    vals["ENT"] = base
    vals[CONTROL] = [v - 0.01 for v in base]
    vals["F:H+MIN-end"] = [v + 0.02 for v in base]  # clearly the best in rank
    winner, ranks, bal = choose_round4(_rows(vals))
    assert winner == "F:H+MIN-end" and ranks.index[0] == "F:H+MIN-end"
    assert bal.shape == (6, 14)
    # dropped by the cutoff: not ranked, cannot win
    winner, ranks, _ = choose_round4(_rows(vals), (CONTROL, "F:H+QBC+MIN-end"))
    assert winner == CONTROL and "F:H+MIN-end" not in ranks.index
    # tied in rank and in the gain over ENT: the control
    vals["F:H+MIN-end"] = vals["F:H+QBC+MIN-end"] = vals[CONTROL]
    assert choose_round4(_rows(vals))[0] == CONTROL
    # within 0.1 rank (one cell of six swaps by a little) but more over ENT: the challenger
    vals["F:H+QBC+MIN-end"] = [
        v - 0.01 + {0: 0.005, 1: -0.001}.get(i, 0.0) for i, v in enumerate(base)
    ]
    winner, ranks, _ = choose_round4(_rows(vals))
    assert abs(ranks["F:H+QBC+MIN-end"] - ranks[CONTROL]) <= 0.1
    assert winner == "F:H+QBC+MIN-end"


def test_round4_development_part_joins_fusion3_dev_fresh3_and_the_new_rows(
    tmp_path: Path,
) -> None:
    from cbeal_studies.label_efficiency.fusion4_report import (
        CANDIDATES,
        CONTROL,
        FIXED,
        assemble_dev,
    )

    def rows(names: list[str], rep: int, **extra: object) -> pd.DataFrame:
        out = _rows({n: [0.5] for n in names}, replication=rep, **extra)
        return pd.concat([out, _rows({"Initial": [0.4]}, replication=rep)]).assign(
            budget_share=lambda f: f["budget_share"].where(f["strategy"] != "Initial")
        )

    old = pd.concat(
        [
            rows([*FIXED, "F:5F-delay", CONTROL], r, source=tag).assign(
                workload=lambda f, t=tag: t + "/" + f["workload"]
            )
            for tag, r in (("fusion2-dev", 0), ("fresh", 0), ("fresh2", 2))
        ]
    )
    old[old["budget_share"].notna()].to_csv(tmp_path / "results_fusion3-dev.csv")
    rows([*FIXED, "CBEAL-5F", "CBEAL-8"], 4).to_csv(tmp_path / "results_fresh3.csv")
    rows(["F:H+QBC+MIN-end", "F:4U-eq", CONTROL], 0).to_csv(tmp_path / "results_fusion2-dev.csv")
    rows(["F:H+MIN-end"], 0).to_csv(tmp_path / "results_fusion4-dev2.csv")
    rows(list(CANDIDATES[1:]), 0).to_csv(tmp_path / "results_fusion4-fresh.csv")
    rows(list(CANDIDATES[1:]), 2).to_csv(tmp_path / "results_fusion4-fresh2.csv")
    rows(list(CANDIDATES[1:]), 4).to_csv(tmp_path / "results_fusion4-fresh3.csv")
    dev = assemble_dev(tmp_path)
    per = dev.groupby("source")["strategy"].apply(lambda s: sorted(s))
    for tag in ("fusion2-dev", "fresh", "fresh2", "fresh3"):
        # the control renamed in fresh3; F:5F-delay, CBEAL-8 and round-2 rows left out
        assert per[tag] == sorted([*FIXED, *CANDIDATES])
    assert dev["workload"].nunique() == 4  # the same workload id is a cell per source


def test_round4_profiles_cover_the_development_cells_in_run_order() -> None:
    dev = {k for k, (_, p) in WORKLOADS.items() if p == "dev"}
    assert set(PROFILES["fusion4-dev2"].workloads) == dev
    assert PROFILES["fusion4-dev2"].names == ("F:H+MIN-end",)  # H+QBC+MIN has these rows
    for name, reps in (("fusion4-fresh", [0, 1]), ("fusion4-fresh2", [2, 3])):
        assert list(PROFILES[name].replication_ids) == reps
        assert PROFILES[name].names == ("F:H+MIN-end", "F:H+QBC+MIN-end")
    assert PROFILES["fusion4-fresh3"].workloads == PROFILES["fresh3"].workloads
    assert list(PROFILES["fusion4-fresh3"].replication_ids) == [4, 5]
