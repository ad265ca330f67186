"""The case-study protocol (spec §8): splits, preprocessing, runner, tables, errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cbeal.datasets import Dataset
from cbeal_studies.casestudy import (
    CASE_STUDIES,
    DATASETS,
    CaseStudy,
    contiguous_split,
    run_case_task,
    scores,
    studies_for,
)
from cbeal_studies.casestudy.pipeline import casestudy
from cbeal_studies.casestudy.report import metric_table, summarize, verdicts


# ----------------------------------------------------------------- splits
@pytest.mark.parametrize("n", [9, 10, 11, 300, 1567])
@pytest.mark.parametrize("seed", range(5))
def test_split_is_a_contiguous_wrapped_third_and_training_in_time_order(n: int, seed: int) -> None:
    train, test = contiguous_split(n, np.random.default_rng(seed))
    assert test.size == round(n / 3)
    assert np.all(np.diff(test) % n == 1)  # consecutive rows, modulo the wrap
    assert np.all(np.diff(train) > 0)  # the stream runs forward in time
    assert np.array_equal(np.sort(np.concatenate([train, test])), np.arange(n))


def test_split_start_is_random_and_wraps() -> None:
    starts = {int(contiguous_split(30, np.random.default_rng(s))[1][0]) for s in range(60)}
    assert len(starts) > 15
    wrapped = [s for s in range(60) if contiguous_split(30, np.random.default_rng(s))[1][-1] < 10]
    assert wrapped, "some test blocks must wrap around the end"


@pytest.mark.parametrize(("n", "frac"), [(2, 1 / 3), (10, 0.0), (10, 1.0), (3, 0.9)])
def test_split_rejects_impossible_requests(n: int, frac: float) -> None:
    with pytest.raises(ValueError, match="test"):
        contiguous_split(n, np.random.default_rng(0), test_fraction=frac)


# ----------------------------------------------------------------- data
def _toy(n: int = 240, seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 1.2).astype(np.int64)
    X[rng.random((n, 4)) < 0.05] = np.nan
    return Dataset(
        X=X,
        y=y,
        feature_names=("a", "b", "c", "d"),
        time=np.arange(n),
        target_name="fail",
        description="toy",
        class_names=("pass", "fail"),
    )


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> CaseStudy:
    monkeypatch.setitem(DATASETS, "toy", _toy)
    return CaseStudy(
        id="toy-l1",
        dataset="toy",
        learner="logreg-l1",
        budgets=(0.1, 0.2),
        replications=2,
        methods=("CBEAL-6", "RS", "US", "Initial", "All Training Data"),
    )


def test_data_follows_the_protocol(toy: CaseStudy) -> None:
    ds = _toy()
    data = toy.data(0)
    train, test = data.train_index, data.test_index
    assert np.array_equal(data.y0, ds.y[train[:10]])  # D0 = first 10 training samples
    assert np.array_equal(data.y_stream, ds.y[train[10:]])
    assert np.array_equal(data.y_test, ds.y[test])
    for X in (data.X0, data.X_stream, data.X_test):
        assert np.isfinite(X).all()
    # scaled on the training inputs: their columns have mean 0 and standard deviation ≈ 1
    assert np.allclose(data.X_train.mean(axis=0), 0.0, atol=1e-12)
    assert np.all(data.X_train.std(axis=0) < 1.0 + 1e-9)


def test_preprocessing_never_sees_the_test_rows(
    toy: CaseStudy, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = toy.data(1)

    def poisoned() -> Dataset:
        ds = _toy()
        ds.X[before.test_index] = 1e6  # a test-only extreme value
        return ds

    monkeypatch.setitem(DATASETS, "toy", poisoned)
    after = toy.data(1)
    assert np.array_equal(before.X_train, after.X_train)
    assert not np.array_equal(before.X_test, after.X_test)


def test_seeds_depend_on_dataset_and_replication_not_learner() -> None:
    l1, rf = CASE_STUDIES["secom-l1"], CASE_STUDIES["secom-rf"]
    assert l1.seed(3) == rf.seed(3)
    assert len({l1.seed(r) for r in range(10)}) == 10
    assert CASE_STUDIES["ai4i-l1"].seed(3) != l1.seed(3)


def test_budget_is_a_share_of_the_stream(toy: CaseStudy) -> None:
    data = toy.data(0)
    assert data.budget(0.1) == round(0.1 * data.y_stream.size)
    assert data.budget(1e-6) == 1


def test_bundled_secom_split_sizes() -> None:
    data = CASE_STUDIES["secom-l1"].data(0)
    assert data.y_test.size == 522 and data.y0.size == 10 and data.y_stream.size == 1035
    assert data.X_stream.shape[1] == 590 and np.isfinite(data.X_stream).all()


# ----------------------------------------------------------------- scores
def test_scores_by_hand() -> None:
    y = np.array([0, 0, 0, 0, 1, 1])
    p = np.array([0, 0, 1, 0, 1, 0])
    s = scores(y, p)
    assert s["accuracy"] == pytest.approx(4 / 6)
    assert s["recall"] == pytest.approx(0.5)
    assert s["precision"] == pytest.approx(0.5)
    assert s["f1"] == pytest.approx(0.5)
    assert s["balanced_accuracy"] == pytest.approx((3 / 4 + 1 / 2) / 2)


def test_accuracy_rewards_a_model_that_never_flags_a_failure() -> None:
    y = np.r_[np.zeros(93, int), np.ones(7, int)]
    s = scores(y, np.zeros(100, int))
    assert s["accuracy"] == pytest.approx(0.93)
    assert s["balanced_accuracy"] == 0.5 and s["recall"] == 0.0 and s["f1"] == 0.0


# ----------------------------------------------------------------- runner
def test_task_rows_budgets_resume_and_determinism(toy: CaseStudy, tmp_path: Path) -> None:
    path = tmp_path / "r00.json"
    rows = run_case_task(toy, 0, path=path)
    assert len(rows) == 3 * 2 + 2  # stream methods × budgets + the two references
    for r in rows:
        if r["budget_share"] is None:
            assert r["method"] in ("Initial", "All Training Data")
        else:
            assert 0 <= r["n_acquired"] <= r["budget"]
        for k in ("test_accuracy", "test_balanced_accuracy", "test_f1", "train_accuracy"):
            assert 0.0 <= r[k] <= 1.0
        assert r["git_sha"] and r["seed"] == toy.seed(0)
    # resume: nothing is recomputed ...
    again = run_case_task(toy, 0, path=path)
    assert [r["finished"] for r in again] == [r["finished"] for r in rows]
    # ... except a row that went missing, which comes back with the same numbers
    kept = [r for r in rows if not (r["method"] == "RS" and r["budget_share"] == 0.2)]
    path.write_text(json.dumps(kept))
    redone = {(r["method"], r["budget_share"]): r for r in run_case_task(toy, 0, path=path)}
    old = {(r["method"], r["budget_share"]): r for r in rows}
    assert redone[("RS", 0.2)]["test_accuracy"] == old[("RS", 0.2)]["test_accuracy"]
    assert redone[("RS", 0.2)]["n_acquired"] == old[("RS", 0.2)]["n_acquired"]


def test_all_training_data_sees_every_training_label(toy: CaseStudy) -> None:
    rows = {r["method"]: r for r in run_case_task(toy, 1)}
    data = toy.data(1)
    assert rows["All Training Data"]["n_acquired"] == data.y_stream.size
    assert rows["Initial"]["n_acquired"] == 0


def test_refit_every_k_ends_with_a_learner_fitted_on_every_label(toy: CaseStudy) -> None:
    from dataclasses import replace

    from cbeal_studies.casestudy import run_method

    study = replace(toy, learner="random-forest", refit=7)
    data = study.data(0)
    model, trace = run_method(study, "RS", data, 20, 0)
    assert trace.n_acquired > 0
    X_pool, _ = model.labelled_pool
    assert model.estimator_.n_features_in_ == 4
    assert model.labels_since_refit == 0 and len(X_pool) == 10 + trace.n_acquired


# ----------------------------------------------------------------- tables
def _runs() -> pd.DataFrame:
    rows = []
    for rep, (mine, theirs) in enumerate([(0.8, 0.7), (0.6, 0.7), (0.9, 0.5)]):
        for method, value in (("CBEAL-6", mine), ("RS", theirs)):
            rows.append(
                {
                    "study": "s",
                    "method": method,
                    "budget_share": 0.1,
                    "replication": rep,
                    "test_accuracy": value,
                }
            )
        rows.append(
            {
                "study": "s",
                "method": "Initial",
                "budget_share": np.nan,
                "replication": rep,
                "test_accuracy": 0.5,
            }
        )
    return pd.DataFrame(rows)


def test_tables_mean_se_and_paired_verdicts() -> None:
    runs = _runs()
    table = metric_table(summarize(runs), "s", "test_accuracy", ["CBEAL-6", "RS", "Initial"])
    se = np.std([0.8, 0.6, 0.9], ddof=1) / np.sqrt(3)
    assert table.loc["CBEAL-6", "10 %"] == f"{100 * np.mean([0.8, 0.6, 0.9]):.1f} ± {100 * se:.1f}"
    assert table.loc["Initial", "10 %"] == "50.0 ± 0.0"
    v = verdicts(runs, "s", "test_accuracy", ["RS", "Initial"])
    assert v.loc["RS", "10 %"] == "+13.3 (2/3)"
    assert v.loc["Initial", "10 %"] == "+26.7 (3/3)"


# ----------------------------------------------------------------- pipeline
def test_studies_for_each_dataset() -> None:
    assert studies_for("ai4i") == ["ai4i-l1", "ai4i-rf"]
    with pytest.raises(ValueError, match="secom"):
        studies_for("fdm")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"learner": "svm"}, "l1, rf or all"),
        ({"replications": 0}, "replications"),
        ({"budgets": [10]}, "shares"),
        ({"methods": ["CBEAL-7"]}, "unknown methods"),
    ],
)
def test_casestudy_rejects_bad_options(kwargs: dict, match: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=match):
        casestudy("secom", tmp_path, **kwargs)
    assert not (tmp_path / "runs").exists()


def test_casestudy_pipeline_writes_results_and_tables(
    toy: CaseStudy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cbeal_studies.casestudy import studies

    monkeypatch.setitem(studies.CASE_STUDIES, "toy-l1", toy)
    out = casestudy(
        "toy",
        tmp_path,
        learner="l1",
        replications=2,
        budgets=[0.1],
        methods=["CBEAL-6", "RS", "Initial", "All Training Data"],
        n_jobs=1,
        progress=False,
        figures=False,
    )
    frame = pd.read_csv(out["results"])
    assert set(frame["method"]) == {"CBEAL-6", "RS", "Initial", "All Training Data"}
    assert set(frame["replication"]) == {0, 1}
    text = out["tables"]["toy-l1"].read_text()
    assert "Test balanced accuracy" in text and "CbeAL-6 minus each method" in text


# ----------------------------------------------------------------- command line
@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["--dataset", "fdm"], "invalid choice"),
        (["--dataset", "ai4i", "--budgets", "30x"], "percentages of the stream"),
        (["--dataset", "ai4i", "--budgets", "130"], "shares of the stream"),
        (["--dataset", "ai4i", "--methods", "CBEAL-7"], "unknown methods"),
        (["--dataset", "ai4i", "--replications", "0"], "replications"),
    ],
)
def test_cli_errors_say_what_to_do(
    argv: list[str], hint: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cbeal.cli import main

    try:
        code = main(["casestudy", *argv, "--out", str(tmp_path / "out")])
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    assert code == 2
    assert hint in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_cli_runs_a_narrow_case_study(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cbeal.cli import main

    code = main(
        [
            "casestudy",
            "--dataset",
            "ai4i",
            "--learner",
            "l1",
            "--replications",
            "1",
            "--budgets",
            "3",
            "--methods",
            "CBEAL-6,RS,Initial",
            "--jobs",
            "1",
            "--no-figures",
            "--no-progress",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "ai4i-l1" in out and "CBEAL-6" in out
    frame = pd.read_csv(tmp_path / "results_ai4i.csv")
    assert sorted(frame["method"]) == ["CBEAL-6", "Initial", "RS"]
    assert (tmp_path / "tables" / "ai4i-l1.md").exists()


@pytest.mark.parametrize("seed", range(6))
def test_scores_agree_with_scikit_learn(seed: int) -> None:
    from sklearn import metrics

    rng = np.random.default_rng(seed)
    y = (rng.random(50) < 0.1 * (seed + 1)).astype(int)
    p = (rng.random(50) < 0.2).astype(int)
    s = scores(y, p)
    kw = {"pos_label": 1, "zero_division": 0.0}
    assert s["accuracy"] == pytest.approx(metrics.accuracy_score(y, p))
    assert s["balanced_accuracy"] == pytest.approx(metrics.balanced_accuracy_score(y, p))
    assert s["f1"] == pytest.approx(metrics.f1_score(y, p, **kw))
    assert s["recall"] == pytest.approx(metrics.recall_score(y, p, **kw))
    assert s["precision"] == pytest.approx(metrics.precision_score(y, p, **kw))


def test_cli_says_which_extra_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from cbeal.cli import main

    for name in ("cbeal_studies.casestudy.pipeline", "cbeal_studies.casestudy.report"):
        monkeypatch.delitem(sys.modules, name, raising=False)  # re-imported without pandas
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if pandas were not installed
    code = main(["casestudy", "--dataset", "ai4i", "--out", str(tmp_path / "o")])
    assert code == 2
    err = capsys.readouterr().err
    assert "needs pandas" in err and "pip install -e '.[all]'" in err


def test_a_narrowed_rerun_keeps_every_finished_row(
    toy: CaseStudy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cbeal_studies.casestudy import studies

    monkeypatch.setitem(studies.CASE_STUDIES, "toy-l1", toy)
    kw = {"learner": "l1", "budgets": [0.1], "n_jobs": 1, "progress": False, "figures": False}
    first = casestudy("toy", tmp_path, replications=2, methods=["CBEAL-6", "RS"], **kw)
    before = pd.read_csv(first["results"])
    again = casestudy("toy", tmp_path, replications=1, methods=["RS"], **kw)
    after = pd.read_csv(again["results"])
    assert len(after) == len(before) == 4
    assert set(after["method"]) == {"CBEAL-6", "RS"}
