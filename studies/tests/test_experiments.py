"""Scenarios, the runner's resumability and provenance, tables and the paper's numbers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cbeal_studies.reproduction import GENERATORS, METHODS, SCENARIOS, run_task
from cbeal_studies.reproduction.report import write_tables
from cbeal_studies.reproduction.scenarios import scenario
from cbeal_studies.reproduction.tables import paper_tables, summarize, wins


def test_scenario_ids_are_permanent() -> None:
    assert len(SCENARIOS) == 24 and len({s.id for s in SCENARIOS}) == 24
    # the paper's row order: disturbance, positives, sparsity, n
    assert scenario("S01") == SCENARIOS[0]
    assert (scenario("S08").n, scenario("S08").pc, scenario("S08").sp) == (1000, 0.05, 0.30)
    assert (scenario("S16").ds, scenario("S16").sp, scenario("S16").n) == (0.03, 0.70, 500)
    with pytest.raises(ValueError, match="S01 to S24"):
        scenario("S25")


def test_workloads_are_seeded_and_versioned() -> None:
    s = scenario("S07")
    a, b = s.data(3, "v1"), s.data(3, "v1")
    np.testing.assert_array_equal(a.X_stream, b.X_stream)
    assert not np.array_equal(a.X_stream, s.data(4, "v1").X_stream)
    assert not np.array_equal(a.X_stream, s.data(3, "v2").X_stream)
    assert a.budget == 48 and a.X0.shape == (20, 15) and a.X_test.shape == (500, 15)
    assert int(a.y0.sum()) == 1  # 5 % of 20 rounds to 1: at least one positive
    assert GENERATORS["v1"].class_sep == 1.0


def test_disturbance_flips_exactly() -> None:
    clean = scenario("S01").data(0, "v1")
    noisy = scenario("S13").data(0, "v1")  # same cell with ds = 3 %
    assert noisy.params["ds"] == 0.03 and clean.params["ds"] == 0.0
    # flipped labels are exactly round(ds · (n − 20)) of the stream; test set untouched
    from cbeal.streams import make_stream

    s0 = make_stream(n=500, pc=0.1, ds=0.0, random_state=5)
    s3 = make_stream(n=500, pc=0.1, ds=0.03, random_state=5)
    np.testing.assert_array_equal(s0.X_stream, s3.X_stream)
    assert int((s0.y_stream != s3.y_stream).sum()) == round(0.03 * 480)
    np.testing.assert_array_equal(s0.y_test, s3.y_test)


def test_run_task_resumes_and_records_provenance(tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    s = scenario("S01")
    rows = run_task(s, 0, ["Initial", "RS"], learner="logreg", path=path)
    assert {r["method"] for r in rows} == {"Initial", "RS"}
    first = json.loads(path.read_text())
    for r in first:
        assert r["seed"] == s.seed(0, "v1") and r["cbeal_version"] and r["git_sha"]
    rows = run_task(s, 0, ["Initial", "RS", "US"], learner="logreg", path=path)
    again = {r["method"]: r for r in json.loads(path.read_text())}
    assert set(again) == {"Initial", "RS", "US"}
    # finished runs were skipped, not redone
    assert again["RS"]["finished"] == next(r for r in first if r["method"] == "RS")["finished"]


# Hand-built grid: per scenario the mean accuracy of each method (two replications each,
# mean ± 1/64, so every mean is exact and the SE is defined). Grid averages: LD1 0.68 >
# SPF1 0.64 (Opt. Explor. = LD1); RAL1 0.75 > RAL3 0.745 (Opt. Exploit. = RAL1).
HAND = {
    "S01": {
        "LD1": 0.70,
        "SPF1": 0.60,
        "RAL1": 0.80,
        "RAL3": 0.75,
        "CBEAL-2": 0.85,
        "CBEAL-6": 0.80,
        "RS": 0.79,
        "US": 0.81,
    },
    "S07": {
        "LD1": 0.66,
        "SPF1": 0.68,
        "RAL1": 0.70,
        "RAL3": 0.74,
        "CBEAL-2": 0.69,
        "CBEAL-6": 0.73,
        "RS": 0.60,
        "US": 0.60,
    },
}


def hand_rows() -> pd.DataFrame:
    rows = []
    for sid, accs in HAND.items():
        s = scenario(sid)
        for rep, delta in enumerate((-1 / 64, 1 / 64)):
            for method, acc in accs.items():
                rows.append(
                    {
                        "scenario": sid,
                        "replication": rep,
                        "method": method,
                        "ds": s.ds,
                        "pc": s.pc,
                        "sp": s.sp,
                        "n": s.n,
                        "accuracy": acc + delta,
                        "accuracy_full": acc + 0.05,
                        "n_acquired": 48,
                        "cumulative_reward": -10.0,
                        "share_positive": 0.25,
                        "generator": "v1",
                        "learner": "logreg",
                        "cbeal_version": "0",
                        "git_sha": "abc",
                        "seconds": 0.1,
                    }
                )
    return pd.DataFrame(rows)


def test_claims_are_counted_per_scenario(tmp_path: Path) -> None:
    summary = summarize(hand_rows())
    assert summary.attrs["best_agents"] == {"Opt. Explor.": "LD1", "Opt. Exploit.": "RAL1"}
    acc = summary[summary["metric"] == "accuracy"].set_index(["scenario", "method"])
    assert acc.loc[("S01", "Opt. Exploit. (Full)"), "mean"] == pytest.approx(0.85)
    assert acc.loc[("S07", "RAL3"), "se"] == pytest.approx(1 / 64)  # SD/sqrt(2) of ±1/64
    claims = wins(summary)
    assert claims["CBEAL-6 ≥ best single agent (Opt. Explor./Exploit.)"] == (2, 2)  # a tie
    assert claims["CBEAL-6 ≥ every single agent of its scenario"] == (1, 2)  # S07: RAL3
    assert claims["CBEAL-2 > both Opt. Explor. and Opt. Exploit."] == (1, 2)
    assert claims["CBEAL-6 > RS"] == (2, 2) and claims["CBEAL-6 > US"] == (1, 2)
    assert "CBEAL-6 > QBC-PYP" not in claims  # a method not run is not a claim
    results = tmp_path / "results.csv"
    hand_rows().to_csv(results, index=False)
    payload = write_tables(results, tmp_path / "tables")
    assert payload["wins"]["CBEAL-6 > US"] == [1, 2]
    text = (tmp_path / "tables" / "tables.md").read_text()
    assert "Opt. Explor. (Full)" in text and "CBEAL-6 > US" in text


def test_paper_numbers_extracted() -> None:
    paper = paper_tables()
    counts = paper.groupby("table").size().to_dict()
    assert counts == {
        "agents": 168,
        "benchmarks": 168,
        "variants": 120,
        "acquired": 96,
        "reward": 96,
    }
    bench = paper[paper["table"] == "benchmarks"]
    assert bench[bench["method"] == "All Training Data"]["mean"].mean() == pytest.approx(
        0.785, abs=0.001
    )
    cell = paper[
        (paper["table"] == "agents")
        & (paper["method"] == "CBEAL-6")
        & (paper["ds"] == 0.0)
        & (paper["pc"] == 0.10)
        & (paper["sp"] == 0.30)
        & (paper["n"] == 1000)
    ]
    assert cell["mean"].item() == pytest.approx(0.739)


def test_every_method_has_a_family() -> None:
    assert {m.family for m in METHODS.values()} == {
        "explore",
        "exploit",
        "cbeal",
        "benchmark",
        "extra",
        "crosscheck",
        "reference",
        "pacing",
    }
    assert all(m.full for m in METHODS.values() if m.family in ("explore", "exploit"))
