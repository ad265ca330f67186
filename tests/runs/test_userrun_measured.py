"""``cbeal run`` on measured values (a `tolerance`): the regression path end to end on the
bundled AI4I 2020 data as a CSV, and its input errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cbeal import CbeAL
from cbeal.cli import main
from cbeal.core.regression import regression_scores
from cbeal.datasets import load_ai4i2020

TORQUE = "Torque [Nm]"


@pytest.fixture(scope="module")
def csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 1,200 AI4I parts in file order, with the failure flag and a text grade."""
    d = load_ai4i2020()
    frame = pd.DataFrame(d.X[:1200], columns=list(d.feature_names))
    frame["Machine failure"] = d.y[:1200].astype(int)
    frame["grade"] = np.where(frame["Type"] == 0, "L", "M")
    path = tmp_path_factory.mktemp("ai4i") / "ai4i.csv"
    frame.to_csv(path, index=False)
    return path


def cli(csv: Path, out: Path, *extra: str) -> int:
    return main(["run", "--data", str(csv), "--out", str(out), "--no-progress", *extra])


def test_a_measured_target_runs_the_regression_path(
    csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rep"
    args = ("--target", TORQUE, "--tolerance", "5", "--drop", "Machine failure")
    assert cli(csv, out, *args) == 0
    stdout = capsys.readouterr().out
    assert "CBEAL-R, learner 'bayesian-ridge'" in stdout and "tolerance ±5" in stdout
    for name in ("report.md", "trace.csv", "summary.json", "model.cbeal"):
        assert (out / name).stat().st_size > 0, name
    for name in ("run.png", "curve.png"):
        assert (out / "figures" / name).stat().st_size > 10_000, name
    info = json.loads((out / "summary.json").read_text())
    assert info["method"] == "CBEAL-R" and info["agents"] == ["QBCRr", "DTLm", "DRIFT"]
    assert set(info["metrics"]["CBEAL-R"]) == {"rmse", "mae", "in_band"}
    assert info["split"] == {"initial": 10, "stream": 830, "test": 360}
    spent = info["labels_spent"]["CBEAL-R"]
    assert 0 < spent <= info["budget"]["labels_allowed"] == 83
    # the learned model does far better than D0 alone, and the saved model is the one scored
    m = info["metrics"]
    assert m["CBEAL-R"]["rmse"] < 0.5 * m["Initial"]["rmse"]
    model = CbeAL.load(out / "model.cbeal")
    test = pd.read_csv(csv).iloc[840:]
    pred = model.predict(test[list(model.feature_names_in_)])
    assert pred.dtype.kind == "f"
    assert regression_scores(test[TORQUE].to_numpy(), pred, 5.0) == m["CBEAL-R"]
    curve = info["learning_curves"]["CBEAL-R"]
    assert curve["labels"][0] == 0 and curve["labels"][-1] == spent
    assert curve["rmse"][0] == m["Initial"]["rmse"] and curve["rmse"][-1] == m["CBEAL-R"]["rmse"]
    assert info["target"]["tolerance"] == 5.0 and info["class_counts"] == {}
    report = (out / "report.md").read_text()
    assert "| method | labels from the stream | RMSE | MAE | within tolerance |" in report
    assert "Tolerance: ±5" in report and "![learning curves](figures/curve.png)" in report
    trace = pd.read_csv(out / "trace.csv")
    assert len(trace) == 830 and int(trace["acquired"].sum()) == spent


def test_the_learner_and_the_comparison_can_be_chosen(csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "rep"
    target = ("--target", "Process temperature [K]", "--tolerance", "0.5")
    args = (*target, "--drop", "Machine failure")
    extra = ("--learner", "rbf-bayesian-ridge", "--agents", "LD2,RALR1", "--compare", "RS,SPR")
    assert cli(csv, out, *args, *extra, "--budget", "40", "--repeats", "2") == 0
    info = json.loads((out / "summary.json").read_text())
    assert info["arguments"]["learner"] == "rbf-bayesian-ridge"
    assert set(info["metrics"]) == {"CbeAL(LD2,RALR1)", "RS", "SPR", "Initial", "All Training Data"}
    assert all(n <= 40 for m, n in info["labels_spent"].items() if m != "All Training Data")
    wins = [p for p in info["paired_wins"] if p["metric"] == "rmse"]
    assert len(wins) == 2 and all(p["wins"] + p["ties"] + p["losses"] == 2 for p in wins)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (("--label", TORQUE), "give the --tolerance of the measurement"),
        (("--label", "Machine failure", "--tolerance", "0.5"), "only the whole numbers 0, 1"),
        (("--label", "grade", "--tolerance", "0.5"), "is not numeric (e.g. 'M')"),
        (("--label", TORQUE, "--tolerance", "0"), "--tolerance must be a number > 0"),
        (("--label", TORQUE, "--tolerance", "-1"), "--tolerance must be a number > 0"),
        (("--label", TORQUE, "--tolerance", "nan"), "--tolerance must be a number > 0"),
        (("--label", TORQUE, "--tolerance", "5", "--learner", "logreg"), "is a classifier"),
        (("--label", "Machine failure", "--learner", "bayesian-ridge"), "is a regressor"),
        (("--label", TORQUE, "--tolerance", "5", "--preset", "CBEAL-5F"), "needs class labels"),
        (("--label", TORQUE, "--tolerance", "5", "--compare", "US"), "needs class labels"),
        (("--label", "Machine failure", "--preset", "CBEAL-R"), "is for measured values"),
        (("--label", TORQUE, "--tolerance", "5", "--positive", "1"), "leave out --positive"),
    ],
)
def test_bad_measured_input_stops_with_a_message(
    csv: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: tuple[str, ...],
    expected: str,
) -> None:
    out = tmp_path / "rep"
    assert cli(csv, out, "--drop", "grade" if "grade" not in extra else "Type", *extra) == 2
    err = capsys.readouterr().err
    assert expected in err, err
    assert not out.exists()


def test_the_file_as_argument_a_default_tolerance_and_whole_number_targets(
    csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`cbeal run FILE --target COL` with no tolerance: the default from D0, printed with
    the column it is in; a target of whole numbers (rotational speed in rpm) is measured."""
    out = tmp_path / "rep"
    frame = pd.read_csv(csv)
    y0 = frame["Rotational speed [rpm]"].to_numpy()[:10]
    assert np.all(np.mod(y0, 1) == 0)  # whole numbers
    args = ["run", str(csv), "--target", "Rotational speed [rpm]", "--out", str(out)]
    args += ["--no-progress", "--drop", "Machine failure,grade", "--budget", "40"]
    assert main([*args, "--compare", "RS,LD2", "--repeats", "2"]) == 0
    stdout = capsys.readouterr().out
    expected = 0.25 * float(np.std(y0, ddof=1))
    info = json.loads((out / "summary.json").read_text())
    assert info["target"]["tolerance"] == pytest.approx(expected)
    assert f"tolerance ±{expected:.4g} (unit of 'Rotational speed [rpm]'; default" in stdout
    report = (out / "report.md").read_text()
    assert "a quarter of the standard deviation of the 10 measured values in D0" in report
    # the baseline: random sampling with the same labels, per method, with the label ratio
    assert "## Against random sampling with the same number of labels" in report
    rows = {r["method"]: r for r in info["equal_labels"]}
    assert set(rows) == {info["method"], "RS", "LD2"}
    for r in rows.values():
        assert r["random_rmse"] > 0 and r["labels"] <= 40
        assert r["spent"] == pytest.approx(r["labels"] / 40)
        assert r["difference"] == pytest.approx(100 * (r["rmse"] / r["random_rmse"] - 1), abs=30)
    # LD2 alone asks only for rare outliers: under 80 % of the budget is flagged
    low = [m for m, r in rows.items() if r["spent"] < 0.8]
    assert ("**Warning:**" in report) == bool(low)


def test_the_file_twice_is_refused(csv: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(["run", str(csv), "--data", str(tmp_path / "other.csv"), "--target", TORQUE])
