"""Scenarios, the runner's resumability and provenance, tables and the paper's numbers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cbeal.experiments import GENERATORS, METHODS, SCENARIOS, RunConfig, run_grid, run_task
from cbeal.experiments.report import write_tables
from cbeal.experiments.scenarios import scenario
from cbeal.experiments.tables import paper_tables, summarize, wins


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


def test_grid_tables_and_claims(tmp_path: Path) -> None:
    names = ("LD1", "SPF1", "RAL3", "RAL1", "CBEAL-2", "CBEAL-4", "CBEAL-6", "RS", "US",
             "Initial", "All Training Data")
    cfg = RunConfig(scenarios=("S01", "S07"), replications=2, methods=names, learner="logreg")
    results = run_grid(cfg, tmp_path, n_jobs=1, progress=False)
    runs = pd.read_csv(results)
    assert len(runs) == 2 * 2 * len(names)
    assert (runs["n_acquired"][~runs["method"].isin(["Initial", "All Training Data"])]
            <= runs["budget"][~runs["method"].isin(["Initial", "All Training Data"])]).all()
    summary = summarize(runs)
    best = summary.attrs["best_agents"]
    assert best["Opt. Explor."] in ("LD1", "SPF1") and best["Opt. Exploit."] in ("RAL1", "RAL3")
    claims = wins(summary)
    won, total = claims["CBEAL-6 > RS"]
    acc = runs.pivot_table(index="scenario", columns="method", values="accuracy")
    assert won == int((acc["CBEAL-6"] > acc["RS"]).sum()) and total == 2
    payload = write_tables(results, tmp_path / "tables")
    text = (tmp_path / "tables" / "tables.md").read_text()
    assert "Opt. Explor. (Full)" in text and "ours − paper" in text.replace("Ours", "ours")
    assert set(payload["wins"]) == set(claims)


def test_paper_numbers_extracted() -> None:
    paper = paper_tables()
    counts = paper.groupby("table").size().to_dict()
    assert counts == {"agents": 168, "benchmarks": 168, "variants": 120, "acquired": 96,
                      "reward": 96}
    bench = paper[paper["table"] == "benchmarks"]
    assert bench[bench["method"] == "All Training Data"]["mean"].mean() == pytest.approx(
        0.785, abs=0.001)
    cell = paper[(paper["table"] == "agents") & (paper["method"] == "CBEAL-6")
                 & (paper["ds"] == 0.0) & (paper["pc"] == 0.10) & (paper["sp"] == 0.30)
                 & (paper["n"] == 1000)]
    assert cell["mean"].item() == pytest.approx(0.739)


def test_every_method_has_a_family() -> None:
    assert {m.family for m in METHODS.values()} == {"explore", "exploit", "cbeal", "benchmark",
                                                     "extra", "crosscheck", "reference",
                                                     "pacing"}
    assert all(m.full for m in METHODS.values() if m.family in ("explore", "exploit"))
