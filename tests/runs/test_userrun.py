"""``cbeal run``: CbeAL on a user's own table, the report folder, and every input error."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from cbeal import CbeAL, InvalidInputError, make_stream, simulate
from cbeal.catalog import RECOMMENDED, preset_entry
from cbeal.cli import main
from cbeal.core import RATE_BURST, BudgetError, LabelCount, LabelRate
from cbeal.evaluation import scores
from cbeal.tablerun import RunOptions, UserRun, run, run_budget

FEATURES = [f"sensor{j}" for j in range(5)]


def line_frame(n: int = 300, seed: int = 0) -> pd.DataFrame:
    """A small line: 5 sensors, string labels (15 % 'fail'), hourly timestamps, shuffled rows."""
    s = make_stream(n=n, pc=0.15, p=5, sp=0.2, random_state=seed)
    frame = pd.DataFrame(np.vstack([s.X0, s.X_stream]), columns=FEATURES)
    frame["quality"] = np.where(np.r_[s.y0, s.y_stream] == 1, "fail", "ok")
    frame["when"] = pd.date_range("2024-01-01", periods=n, freq="h").astype(str)
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix in (".parquet", ".pq"):
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False, sep="\t" if path.suffix == ".tsv" else ",")
    return path


@pytest.fixture(scope="module")
def csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(line_frame(), tmp_path_factory.mktemp("data") / "line.csv")


def cli(data: Path, out: Path, *extra: str) -> int:
    return main(["run", "--data", str(data), "--label", "quality", "--out", str(out), *extra])


def api(data: Path, **kw: Any) -> UserRun:
    return run(RunOptions(data=data, label="quality", **{"time": "when", "compare": "none", **kw}))


def no_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("matplotlib", "matplotlib.figure"):
        monkeypatch.setitem(sys.modules, name, None)


# ---------------------------------------------------------------------- the report folder
def test_cli_writes_the_report_folder(
    csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rep"
    assert cli(csv, out, "--time", "when", "--compare", "RS,US", "--no-progress") == 0
    for name in (
        "report.md",
        "trace.csv",
        "summary.json",
        "model.cbeal",
        "figures/run.png",
        "figures/scores.png",
    ):
        assert (out / name).stat().st_size > 0, name
    stdout = capsys.readouterr().out
    assert f"report: {out / 'report.md'}" in stdout and RECOMMENDED in stdout
    info = json.loads((out / "summary.json").read_text())
    assert info["split"] == {"initial": 10, "stream": 200, "test": 90}
    assert info["budget"]["labels_allowed"] == 20 and info["budget"]["meaning"] == "paced rate"
    assert info["data"]["sha256"] and info["data"]["file"] == "line.csv"
    assert set(info["metrics"]) == {RECOMMENDED, "RS", "US", "Initial", "All Training Data"}
    assert set(info["metrics"]["RS"]) == {
        "accuracy",
        "balanced_accuracy",
        "f1",
        "precision",
        "recall",
    }
    assert info["positive_class"] == "fail" and info["class_counts"]["all"]["fail"] == 45
    assert all(n <= 20 for m, n in info["labels_spent"].items() if m != "All Training Data")
    report = (out / "report.md").read_text()
    for text in (
        "## Protocol",
        "## Results",
        f"| {RECOMMENDED} |",
        "| RS |",
        "figures/run.png",
        "figures/scores.png",
        "fitted on the training rows' inputs only",
    ):
        assert text in report, text
    assert CbeAL.load(out / "model.cbeal").budget_used_ == info["labels_spent"][RECOMMENDED]


def test_the_saved_model_takes_raw_rows_of_the_file(tmp_path: Path) -> None:
    frame = line_frame(n=300, seed=4)
    frame.loc[frame.index[::5], "sensor2"] = np.nan  # raw rows have gaps the model imputes
    frame["sensor0"] = 1000.0 + 50.0 * frame["sensor0"]  # and scales far from standard
    data = write(frame, tmp_path / "raw.csv")
    assert cli(data, tmp_path / "rep", "--time", "when", "--compare", "none") == 0
    info = json.loads((tmp_path / "rep" / "summary.json").read_text())
    model = CbeAL.load(tmp_path / "rep" / "model.cbeal")
    test = pd.read_csv(data).sort_values("when", kind="stable").iloc[-90:]
    pred = model.predict(test[FEATURES])  # the user's raw columns, straight from the file
    assert scores(test["quality"].to_numpy(), pred, positive="fail") == pytest.approx(
        info["metrics"][RECOMMENDED]
    )
    result = api(data)
    np.testing.assert_array_equal(pred, result.model.predict(result.split.part("test")[0]))
    with pytest.raises(InvalidInputError, match="missing"):
        model.predict(test[FEATURES[1:]])


def test_time_column_orders_the_stream(csv: Path, tmp_path: Path) -> None:
    assert cli(csv, tmp_path / "rep", "--time", "when", "--compare", "none") == 0
    trace = pd.read_csv(tmp_path / "rep" / "trace.csv")
    original = pd.read_csv(csv)
    assert len(trace) == 200 and trace["time"].is_monotonic_increasing
    assert (original.loc[trace["row"], "when"].to_numpy() == trace["time"].to_numpy()).all()
    assert (original.loc[trace["row"], "quality"].to_numpy() == trace["y_true"]).all()
    first = preset_entry().agents[0]
    assert {"t", "acquired", "reward", f"weight_after[{first}]"} <= set(trace.columns)


def test_without_time_the_file_order_is_kept(csv: Path) -> None:
    result = api(csv, time=None)
    np.testing.assert_array_equal(result.table.row, np.arange(300))


def test_same_seed_same_trace(csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    no_matplotlib(monkeypatch)  # also: the report is written without figures, and says so
    for out in ("a", "b"):
        assert cli(csv, tmp_path / out, "--time", "when", "--compare", "none", "--seed", "3") == 0
    assert (tmp_path / "a/trace.csv").read_bytes() == (tmp_path / "b/trace.csv").read_bytes()
    assert not (tmp_path / "a/figures").exists()
    assert "pip install -e '.[plot]'" in (tmp_path / "a/report.md").read_text()


def test_html_report_embeds_the_figures(tmp_path: Path) -> None:
    data = write(line_frame(n=200, seed=1), tmp_path / "line.parquet")
    assert cli(data, tmp_path / "rep", "--format", "html", "--time", "when") == 0
    page = (tmp_path / "rep" / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 2 and "<table>" in page
    assert "figures/run.png" not in page and not (tmp_path / "rep" / "report.md").exists()


@pytest.mark.parametrize(
    ("spec", "kind", "labels"),
    [("10%", LabelRate, 20), ("0.1", LabelRate, 20), ("25", LabelCount, 25), ("1", LabelCount, 1)],
)
def test_a_share_is_a_paced_rate_and_a_whole_number_a_count(
    spec: str, kind: type, labels: int
) -> None:
    spend, allowed = run_budget(spec, 200)
    assert isinstance(spend, kind) and allowed == labels


@pytest.mark.parametrize("spec", [" 0.004 ", "201", "100%", "-3", "ten"])
def test_a_budget_that_cannot_be_spent_is_refused(spec: str) -> None:
    with pytest.raises(BudgetError):
        run_budget(spec, 200)


@pytest.mark.parametrize("spec", ["10%", "0.1", "25"])
def test_labels_spent_within_budget(csv: Path, spec: str) -> None:
    result = api(csv, budget=spec, compare="RS")
    assert result.budget == run_budget(spec, 200)[1]
    assert result.trace.n_acquired <= result.budget
    assert result.labels["RS"] <= result.budget


def test_a_rate_spreads_the_labels_over_the_stream(tmp_path: Path) -> None:
    # the outside test: CBEAL-6 with "10%" spent all its labels in the first fifth of the rows
    data = write(line_frame(n=600, seed=4), tmp_path / "line.csv")
    result = api(data, budget="10%", preset="CBEAL-6", compare="none", test_fraction=0.0)
    steps = np.flatnonzero(result.trace.acquired)
    n = result.split.n_stream
    assert result.trace.n_acquired >= 0.9 * result.budget
    assert 0.35 <= np.mean(steps < n / 2) <= 0.65  # about half in each half of the stream


def test_test_set_is_the_most_recent_rows(csv: Path) -> None:
    result = api(csv, test_fraction=0.25, initial=15)
    sp, tab = result.split, result.table
    assert (sp.n_initial, sp.n_stream, sp.n_test) == (15, 210, 75)
    stamps = pd.to_datetime(pd.Series(tab.time))
    assert stamps.iloc[sp.n_train :].min() > stamps.iloc[: sp.n_train].max()
    original = pd.read_csv(csv)
    latest = original.sort_values("when").tail(75)
    assert set(tab.row[sp.n_train :]) == set(latest.index)
    np.testing.assert_array_equal(sp.part("test")[1], latest["quality"].to_numpy())


def test_preprocessing_ignores_the_test_rows(csv: Path, tmp_path: Path) -> None:
    frame = pd.read_csv(csv)
    newest = frame.sort_values("when").index[-3:]  # test rows
    frame.loc[newest[-1], "sensor0"] = 1e9
    frame.loc[newest[:2], "sensor1"] = np.nan
    base, changed = api(csv), api(write(frame, tmp_path / "extreme.csv"))
    np.testing.assert_array_equal(
        base.split.features("train")[0], changed.split.features("train")[0]
    )
    np.testing.assert_array_equal(base.trace.acquired, changed.trace.acquired)
    assert changed.split.features("test")[0][-1, 0] > 1e6  # scaled with the training statistics


def test_all_nan_feature_and_tsv_and_ints(tmp_path: Path) -> None:
    frame = line_frame(n=200, seed=2)
    frame["empty"] = np.nan
    frame["quality"] = (frame["quality"] == "fail").astype(int)
    result = api(write(frame, tmp_path / "line.tsv"), compare="RS")
    assert "empty" in result.table.feature_names
    assert result.positive == 1 and set(result.scores["Initial"]) >= {"f1", "recall"}


def test_multiclass_labels_get_macro_f1(tmp_path: Path) -> None:
    frame = line_frame(n=200, seed=3)
    frame["quality"] = np.where(
        frame["sensor0"] > 0.5, "high", np.where(frame["sensor0"] < -0.5, "low", "mid")
    )
    result = api(write(frame, tmp_path / "three.csv"), learner="logreg")
    assert "macro_f1" in result.scores[result.name] and "f1" not in result.scores[result.name]


def test_scores_match_the_definitions() -> None:
    t = np.array(["ok"] * 6 + ["fail"] * 4)
    p = np.array(["ok"] * 5 + ["fail"] * 2 + ["ok"] * 3)
    s = scores(t, p, positive="fail")
    assert s["accuracy"] == 0.6 and s["precision"] == 0.5 and s["recall"] == 0.25
    assert s["balanced_accuracy"] == pytest.approx((5 / 6 + 0.25) / 2)
    assert s["f1"] == pytest.approx(2 * 0.5 * 0.25 / 0.75)


def test_rare_failures_warn_that_accuracy_misleads(tmp_path: Path) -> None:
    frame = line_frame(n=300, seed=4)
    fails = frame.index[frame["quality"] == "fail"]
    frame = frame.drop(fails[:36])  # 9 failures left: 3.4 %
    assert cli(write(frame, tmp_path / "rare.csv"), tmp_path / "rep", "--time", "when") == 0
    assert (
        "accuracy alone rewards a model that never flags a failure"
        in (tmp_path / "rep" / "report.md").read_text()
    )


# ---------------------------------------------------------------------- input errors
def _bad_frames() -> dict[str, Any]:
    base = line_frame(n=120, seed=5)
    one_class = base.assign(quality="ok")
    late = base.sort_values("when").reset_index(drop=True)
    late["quality"] = np.where(late.index >= 100, "fail", "ok")
    unlabelled = base.copy()
    unlabelled.loc[[3, 7], "quality"] = np.nan
    text = base.assign(**{f: "x" for f in FEATURES})
    badtime = base.assign(when=["soon"] * 120)
    three = base.assign(quality=np.arange(120) % 3)
    return {
        "one_class": one_class,
        "late": late,
        "unlabelled": unlabelled,
        "text": text,
        "badtime": badtime,
        "three": three,
        "base": base,
    }


ERRORS = [
    ("missing.csv", [], "not found"),
    ("table.xlsx", [], "unsupported file type '.xlsx'"),
    ("empty.csv", [], "is empty"),
    ("header.csv", [], "no data rows"),
    ("base.csv", ["--label", "qualty"], "did you mean 'quality'"),
    ("base.csv", ["--time", "When"], "did you mean 'when'"),
    ("base.csv", ["--features", "sensor0,sensr1"], "did you mean 'sensor1'"),
    ("base.csv", ["--drop", "nothing"], "Pass one of the columns with --drop"),
    ("base.csv", ["--features", "sensor0,when", "--time", "when"], "cannot also be a feature"),
    ("text.csv", [], "encode those columns as numbers"),
    ("text.csv", ["--features", "sensor0,sensor1"], "are not numeric; encode them"),
    ("one_class.csv", [], "one class only ('ok' in all 120 rows)"),
    ("late.csv", ["--time", "when"], "Lower --test-fraction"),
    ("unlabelled.csv", [], "2 of 120 rows have no label"),
    ("three.csv", [], "another --learner: logreg"),
    ("badtime.csv", ["--time", "when"], "cannot read the time column 'when'"),
    ("base.csv", ["--initial", "90"], "too few rows"),
    ("base.csv", ["--initial", "0"], "--initial must be at least 1"),
    ("base.csv", ["--test-fraction", "1"], "--test-fraction must be in [0, 1)"),
    ("base.csv", ["--budget", "0"], "must be at least 1 label or a share"),
    ("base.csv", ["--budget", "-5"], "must be at least 1 label or a share"),
    ("base.csv", ["--budget", "lots"], "cannot read the budget"),
    ("base.csv", ["--budget", "500"], "exceeds the stream of 74 rows"),
    ("base.csv", ["--budget", "150%"], "more than 0 % and less than 100 %"),
    ("base.csv", ["--preset", "CBEAL-66"], "unknown preset 'CBEAL-66'"),
    ("base.csv", ["--agents", "LD1,RAL7"], "did you mean 'RAL4'? choose one of: LD1"),
    ("base.csv", ["--agents", "LD1"], "at least two different agents"),
    ("base.csv", ["--learner", "svn"], "did you mean 'svm'"),
    ("base.csv", ["--compare", "RS,USS"], "did you mean 'US'"),
    ("base.csv", ["--positive", "bad"], "not one of the training classes"),
    ("base.csv", ["--label", "when", "--time", "when"], "both the label and the time column"),
]


@pytest.fixture(scope="module")
def bad_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bad")
    for name, frame in _bad_frames().items():
        write(frame, folder / f"{name}.csv")
    (folder / "empty.csv").write_text("")
    (folder / "header.csv").write_text("quality,sensor0\n")
    (folder / "table.xlsx").write_bytes(b"PK")
    return folder


@pytest.mark.parametrize(("file", "extra", "hint"), ERRORS, ids=[e[2][:30] for e in ERRORS])
def test_input_errors_exit_2_with_a_hint_and_write_nothing(
    bad_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    file: str,
    extra: list[str],
    hint: str,
) -> None:
    out = tmp_path / "rep"
    assert cli(bad_dir / file, out, *extra) == 2
    err = capsys.readouterr().err
    assert err.startswith("cbeal: error: ") and hint in err, err
    assert "Traceback" not in err and not out.exists()


def test_missing_pandas_says_what_to_install(
    csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    assert cli(csv, tmp_path / "rep") == 2
    assert "pip install -e '.[pandas]'" in capsys.readouterr().err


# ---------------------------------------------------------------------- review follow-ups
def _dated(fmt: str, n: int = 120, start: str = "2024-01-01") -> pd.DataFrame:
    frame = line_frame(n=n).drop(columns="when")
    stamps = pd.date_range(start, periods=n, freq="D")
    frame["when"] = stamps.strftime(fmt)
    frame["order"] = np.arange(n)  # the true time order, to compare with
    return frame.sample(frac=1.0, random_state=1).reset_index(drop=True)


def _stream_order(result: UserRun, frame: pd.DataFrame) -> np.ndarray:
    rows = result.table.row[: result.split.n_train]
    return frame["order"].to_numpy()[rows]


def test_day_first_dates_are_ordered_by_date(tmp_path: Path) -> None:
    frame = _dated("%d/%m/%Y %H:%M:%S")
    result = api(write(frame.drop(columns="order"), tmp_path / "dmy.csv"))
    assert np.array_equal(_stream_order(result, frame), np.arange(result.split.n_train))


def test_ambiguous_day_month_dates_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = _dated("%m/%d/%Y", n=60).drop(columns="order")
    frame["when"] = [f"0{1 + i % 9}/0{1 + (i // 9) % 9}/2024" for i in range(len(frame))]
    code = cli(write(frame, tmp_path / "amb.csv"), tmp_path / "o", "--time", "when")
    assert code == 2 and "day-first or month-first" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_offsets_across_a_daylight_saving_change(tmp_path: Path) -> None:
    frame = _dated("%Y-%m-%dT10:00:00", start="2024-03-01")
    frame["when"] = [
        w + ("+01:00" if o < 30 else "+02:00")
        for w, o in zip(frame["when"], frame["order"], strict=True)
    ]
    result = api(write(frame.drop(columns="order"), tmp_path / "tz.csv"))
    assert np.array_equal(_stream_order(result, frame), np.arange(result.split.n_train))


def test_semicolon_csv_and_bom_txt(tmp_path: Path) -> None:
    frame = line_frame(n=120)
    semi = tmp_path / "semi.csv"
    frame.to_csv(semi, index=False, sep=";")
    bom = tmp_path / "bom.txt"
    bom.write_text(frame.to_csv(index=False, sep="\t"), encoding="utf-8-sig")
    for path in (semi, bom):
        assert api(path).table.feature_names == tuple(FEATURES)


@pytest.mark.parametrize(
    ("change", "hint"),
    [
        ("duplicate", "repeats the column name"),
        ("continuous", "non-whole numbers"),
        ("many", "distinct values"),
    ],
)
def test_more_label_and_header_errors(
    change: str, hint: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = line_frame(n=120)
    if change == "duplicate":
        frame.columns = [*FEATURES[:-1], FEATURES[0], "quality", "when"]
    elif change == "continuous":
        frame["quality"] = np.linspace(0.5, 9.3, len(frame))
    else:
        frame["quality"] = np.arange(len(frame)) % 60
    code = cli(write(frame, tmp_path / "bad.csv"), tmp_path / "o", "--time", "when")
    assert code == 2 and hint in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_notes_for_ids_leaks_and_too_few_test_failures(tmp_path: Path) -> None:
    frame = line_frame(n=200)
    frame = frame.sort_values("when").reset_index(drop=True)
    frame["row_id"] = np.arange(len(frame))
    frame["fail_flag"] = (frame["quality"] == "fail").astype(int)  # derived from the label
    notes = " ".join(api(write(frame, tmp_path / "leak.csv")).notes)
    assert "row_id" in notes and "look like a row id" in notes
    assert "almost perfectly" in notes
    few = frame.drop(columns=["row_id", "fail_flag"])
    few.loc[few.index[-60:], "quality"] = "ok"  # the most recent rows (the test set): no fail
    notes = " ".join(api(write(few, tmp_path / "few.csv")).notes)
    assert "only 0 row(s) of `fail`" in notes


def test_rerun_removes_stale_outputs_and_out_must_be_a_folder(
    csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rep"
    assert cli(csv, out, "--time", "when", "--compare", "none", "--format", "html") == 0
    assert cli(csv, out, "--time", "when", "--compare", "none", "--test-fraction", "0") == 0
    assert not (out / "report.html").exists() and not (out / "figures/scores.png").exists()
    info = json.loads((out / "summary.json").read_text())
    assert "All Training Data" not in info["labels_spent"]
    capsys.readouterr()
    target = tmp_path / "file.txt"
    target.write_text("x")
    assert cli(csv, target, "--time", "when") == 2
    assert "is a file" in capsys.readouterr().err


# ---------------------------------------------------------------------- CSV dialects
def _european(tmp_path: Path, name: str, frame: pd.DataFrame) -> Path:
    path = tmp_path / name
    frame.to_csv(path, index=False, sep=";", decimal=",")
    return path


def test_semicolons_and_decimal_commas_keep_every_feature(tmp_path: Path) -> None:
    # the outside test: 9 features, 7 with decimals; a semicolon CSV lost those 7
    frame = line_frame(n=200, seed=7)
    frame["count_a"] = np.arange(200) % 7
    frame["count_b"] = np.arange(200) % 5
    frame["sensor4"] = 1000.0 * frame["sensor4"]  # big numbers: no thousands separators
    frame["sensor5"] = frame["sensor0"] + 0.5
    frame["sensor6"] = frame["sensor1"] - 0.5
    data = _european(tmp_path, "eu.csv", frame)
    assert "," in data.read_text().splitlines()[1]
    result = api(data)
    decimals = [*FEATURES, "sensor5", "sensor6"]
    assert set(result.table.feature_names) == {*decimals, "count_a", "count_b"}
    assert result.table.dialect.separator == ";"
    assert set(result.table.dialect.decimal_comma) == set(decimals)
    order = np.argsort(pd.to_datetime(frame["when"]).to_numpy(), kind="stable")
    want = frame[list(result.table.feature_names)].to_numpy(dtype=float)[order]
    np.testing.assert_allclose(result.table.X, want)


def test_a_column_with_decimal_commas_and_points_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = line_frame(n=120, seed=7)
    text = frame.astype({"sensor2": str}).copy()
    text["sensor2"] = [f"{1000 + 100 * abs(v):,.2f}".replace(",", " ") for v in frame["sensor2"]]
    text["sensor2"] = text["sensor2"].str.replace(".", ",").str.replace(" ", ".")  # 1.234,56
    data = _european(tmp_path, "thousands.csv", text)
    assert cli(data, tmp_path / "o", "--time", "when") == 2
    err = capsys.readouterr().err
    assert "column 'sensor2' holds numbers with a decimal comma and numbers with a point" in err
    assert "one decimal mark and no thousands separators" in err


# ---------------------------------------------------------------------- the saved model
@pytest.mark.parametrize("kind", ["bool", "int"])
def test_the_saved_model_keeps_the_label_type_and_continues_with_a_new_budget(
    tmp_path: Path, kind: str
) -> None:
    frame = line_frame(n=400, seed=8)
    fail = (frame["quality"] == "fail").to_numpy()
    frame["quality"] = fail if kind == "bool" else fail.astype(int)
    data = write(frame, tmp_path / f"{kind}.csv")
    assert cli(data, tmp_path / "rep", "--time", "when", "--compare", "none") == 0
    model = CbeAL.load(tmp_path / "rep" / "model.cbeal")
    user = pd.read_csv(data).sort_values("when", kind="stable")
    labels = user["quality"].to_numpy()
    assert labels.dtype == (bool if kind == "bool" else np.int64)
    pred = model.predict(user[FEATURES])
    assert pred.dtype == labels.dtype and set(model.classes_.tolist()) == {False, True}
    assert 0.75 < np.mean(pred == labels)  # not the silent 0 % of text classes
    new = user.iloc[-120:]  # new parts of the line
    spent_before = model.budget_used_
    assert model.budget_left <= 1  # the run spent its budget
    model.renew_budget("10%")
    assert model.budget_used_ == 0 and model.get_params()["budget"] == "10%"
    trace = simulate(model, new[FEATURES], new["quality"].to_numpy())
    # "10%": a token bucket, at most RATE_BURST labels ahead of 0.1 · t
    allowed = np.floor(0.1 * np.arange(1, 121) + RATE_BURST + 1e-9)
    assert np.all(np.cumsum(trace.acquired) <= allowed) and trace.n_acquired >= 8
    assert model.budget_used_ == trace.n_acquired
    n0 = json.loads((tmp_path / "rep" / "summary.json").read_text())["split"]["initial"]
    assert len(model.labelled_pool[1]) == n0 + spent_before + trace.n_acquired
    again = tmp_path / "again.cbeal"
    model.set_params(budget=5).save(again)  # a count, from the next part on
    loaded = CbeAL.load(again)
    assert loaded.budget_left == 5 and str(loaded.budget_).startswith("5 labels from sample")
    more = simulate(loaded, new[FEATURES], new["quality"].to_numpy())
    assert more.n_acquired <= 5 and loaded.predict(new[FEATURES]).dtype == labels.dtype


def test_an_imputer_inside_the_estimator_points_to_the_preprocessor() -> None:
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    s = make_stream(n=200, random_state=1)
    X0 = s.X0.copy()
    X0[2, 1] = np.nan
    estimator = make_pipeline(SimpleImputer(), LogisticRegression())
    model = CbeAL.from_preset("CBEAL-6", estimator=estimator, budget=10)
    with pytest.raises(InvalidInputError, match=r"give it a `preprocessor`, e\.g\. preprocessor="):
        model.fit(X0, s.y0)
    X = s.X_stream[:5].copy()
    X[3, 0] = np.nan
    model.fit(s.X0, s.y0)
    with pytest.raises(InvalidInputError, match="inside a Pipeline passed as the `estimator`"):
        model.query_many(X)
    fixed = CbeAL.from_preset(  # the fix the message names
        "CBEAL-6",
        estimator=LogisticRegression(),
        preprocessor=make_pipeline(SimpleImputer(), StandardScaler()),
        budget=10,
    ).fit(X0, s.y0)
    assert len(fixed.query_many(X)) == 5


# ---------------------------------------------------------------------- the budget's meaning
@pytest.mark.parametrize(
    ("spec", "meaning", "words"),
    [("10%", "paced rate", "'10%' is a share: a paced rate"), ("25", "count", "a count")],
)
def test_the_report_says_which_budget_meaning_it_used(
    csv: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    spec: str,
    meaning: str,
    words: str,
) -> None:
    out = tmp_path / "rep"
    assert cli(csv, out, "--time", "when", "--compare", "RS", "--budget", spec) == 0
    console = capsys.readouterr().out
    budget_line = next(line for line in console.splitlines() if line.startswith("budget: "))
    assert budget_line.endswith(words)
    info = json.loads((out / "summary.json").read_text())["budget"]
    assert info["given"] == spec and info["meaning"] == meaning
    assert info["in_words"] in budget_line and info["in_words"] in (out / "report.md").read_text()
    report = (out / "report.md").read_text()
    assert f"read as a **{meaning}**" in report
    other = "count" if meaning == "paced rate" else "paced rate"
    assert f"read as a **{other}**" not in report
    assert ("staircase" in report) == (meaning == "paced rate")


@pytest.mark.parametrize("spec", ["10%", "25"])
def test_the_allowance_is_what_the_models_were_held_to(csv: Path, spec: str) -> None:
    result = api(csv, budget=spec, compare="RS")
    allowance = result.stats.budget.allowance
    assert allowance.shape == (200,) and allowance[-1] == result.budget
    if spec == "10%":  # a paced rate grows with the rows seen, a few labels ahead, 10 % in all
        ahead = np.arange(1, 201) // 10 + int(RATE_BURST)
        np.testing.assert_array_equal(allowance, np.minimum(ahead, 20))
    else:
        assert (allowance == 25).all()
    for trace in result.traces.values():
        assert np.all(np.cumsum(trace.acquired) <= allowance)


# ---------------------------------------------------------------------- computed once
def test_the_report_only_renders_numbers_the_run_step_computed(
    csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cbeal.runreport import console_lines, write_report

    result = api(csv, compare="RS,US", repeats=2)
    stats = result.stats
    assert set(stats.scores) == {RECOMMENDED, "RS", "US", "Initial", "All Training Data"}
    assert [c.other for c in stats.comparisons] == ["RS", "US"]

    def computes(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the report computed a statistic")

    for target in (
        "cbeal.tablerun.repeats.mean_se",
        "cbeal.tablerun.repeats.paired",
        "cbeal.tablerun.results.mean_se",
        "cbeal.tablerun.results.paired",
        "cbeal.tablerun.results.budget_use",
        "cbeal.simulation.trace.Trace.summary",
        "cbeal.evaluation.scores",
        "cbeal.catalog.describe_budget",
        "cbeal.tablerun.results.data_stats",
        "cbeal.tablerun.results.score_table",
        "cbeal.tablerun.results.comparisons",
    ):
        monkeypatch.setattr(target, computes)
    report = write_report(result, tmp_path / "rep").read_text()
    console_lines(result, tmp_path / "rep" / "report.md")
    score = stats.scores[RECOMMENDED]["balanced_accuracy"]
    assert f"{score.mean:.3f} ± {score.se:.3f}" in report
    info = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert info["cbeal_run"]["n_acquired"] == stats.cbeal["n_acquired"]
    assert len(info["paired_wins"]) == sum(len(c.paired) for c in stats.comparisons)


def test_the_readme_continues_the_saved_model_as_printed(tmp_path: Path) -> None:
    import re
    import subprocess

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    [code] = [
        c
        for c in re.findall(r"```python\n(.*?)```", readme, flags=re.S)
        if c.startswith("# continue.py")
    ]
    frame = line_frame(n=400, seed=9).sort_values("when")
    frame["quality"] = frame["quality"] == "fail"
    write(frame.iloc[:300], tmp_path / "line3.csv")
    write(frame.iloc[300:], tmp_path / "line3-new.csv")
    assert cli(tmp_path / "line3.csv", tmp_path / "line3-report", "--time", "when") == 0
    (tmp_path / "continue.py").write_text(code)
    done = subprocess.run(
        [sys.executable, "continue.py"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    asked = int(done.stdout.split(" of ")[0])
    assert 1 <= asked <= 10  # 10 % of 100 new parts, paced
    model = CbeAL.load(tmp_path / "line3-report" / "model.cbeal")
    assert len(model.pending) == asked and model.budget_used_ == asked
