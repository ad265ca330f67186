"""``cbeal run`` never destroys work: Ctrl-C, unwritable folders, the work estimate,
``--refit-every``, progress, ``--initial``, ``--repeats`` and ``--id``."""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from cbeal.catalog import RECOMMENDED
from cbeal.models import CbeAL
from cbeal.reports.folder import Staging, _sigint_deferred, check_out
from cbeal.tablerun import Estimate, RunOptions, run
from cbeal.tablerun.estimate import LONG_RUN, FitCost
from cbeal.tablerun.repeats import mean_se
from cbeal.tablerun.split import extend_initial

from .test_userrun import cli, line_frame, write


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    frame = line_frame(n=240, seed=6)
    frame["part"] = [f"P-{i:04d}" for i in range(len(frame))]
    return write(frame, tmp_path_factory.mktemp("safety") / "line.csv")


def files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def quick(data: Path, out: Path, *extra: str) -> int:
    return cli(data, out, "--time", "when", "--compare", "none", "--no-progress", *extra)


# ---------------------------------------------------------------------- Ctrl-C
def test_ctrl_c_mid_stream_keeps_the_previous_report(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rep"
    assert quick(data, out) == 0
    before = files(out)
    calls = {"n": 0}
    learn = CbeAL.learn_one

    def interrupted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 5:  # the fifth label of the rerun: Ctrl-C in the middle of the stream
            raise KeyboardInterrupt
        return learn(self, *args, **kwargs)

    monkeypatch.setattr(CbeAL, "learn_one", interrupted)
    capsys.readouterr()
    assert quick(data, out, "--seed", "9", "--format", "html") == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "unchanged" in err and "Traceback" not in err
    assert calls["n"] == 5 and files(out) == before  # byte for byte, nothing added


@pytest.mark.parametrize("previous", [True, False])
def test_ctrl_c_while_writing_leaves_no_partial_file(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, previous: bool
) -> None:
    out = tmp_path / "rep"
    if previous:
        assert quick(data, out) == 0
    before = files(out) if previous else {}
    import cbeal.runreport.writer as writer

    def stop(*args: Any, **kwargs: Any) -> Any:  # trace.csv and model.cbeal are written
        raise KeyboardInterrupt

    monkeypatch.setattr(writer, "_figures", stop)
    assert quick(data, out, "--seed", "4") == 130
    assert (files(out) if previous else {}) == before
    assert out.exists() == previous  # a folder this run created is removed again
    if previous:
        assert not [p for p in out.iterdir() if p.name.startswith(".cbeal-")]


def test_ctrl_c_during_the_final_moves_is_held_back() -> None:
    with pytest.raises(KeyboardInterrupt):
        with _sigint_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            finished = True  # the block ran to its end before the interrupt was raised
    assert finished


def test_publish_replaces_only_its_own_files(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "report.html").write_text("old report")
    with Staging(out) as stage:
        (stage.path / "report.md").write_text("new")
        stage.publish(stale=("report.md", "report.html"))
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "report.md"]


# ---------------------------------------------------------------------- --out
def _unwritable(tmp_path: Path, kind: str) -> Path:
    if kind == "read-only folder":
        folder = tmp_path / "locked"
        folder.mkdir()
        folder.chmod(0o555)
        try:  # root ignores permission bits: then there is nothing to test here
            os.rmdir(tempfile.mkdtemp(dir=folder))
            pytest.skip("this user can write to a read-only folder (root)")
        except OSError:
            return folder / "rep"
    if kind == "read-only file system":
        if not Path("/sys/kernel").is_dir():
            pytest.skip("no /sys on this system")
        return Path("/sys/cbeal-report")
    target = tmp_path / "a-file"
    target.write_text("x")
    return target / "rep"  # a folder inside a file


@pytest.mark.parametrize("kind", ["read-only folder", "read-only file system", "under a file"])
def test_unusable_out_stops_before_computing(
    data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    kind: str,
) -> None:
    out = _unwritable(tmp_path, kind)
    import cbeal.tablerun

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("computed before checking --out")

    monkeypatch.setattr(cbeal.tablerun, "prepare", never)
    assert quick(data, out) == 2
    err = capsys.readouterr().err
    assert err.startswith("cbeal: error: ") and "--out" in err and "Traceback" not in err
    assert not out.exists()


def test_check_out_leaves_nothing_behind(tmp_path: Path) -> None:
    check_out(tmp_path / "new" / "rep")
    check_out(tmp_path)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------- estimate
def test_estimate_grows_with_the_square_of_the_labels() -> None:
    fit = FitCost(n1=400, t1=0.004, n2=2000, t2=0.02)  # linear: 10 µs per row
    assert fit.exponent == pytest.approx(1.0) and fit.seconds(20_000) == pytest.approx(0.2)
    est = Estimate(
        fit=fit,
        per_sample={RECOMMENDED: 1e-4},
        n_initial=10,
        n_stream=100_000,
        n_train=100_010,
        budget=10_000,
        refit_every=1,
        repeats=1,
    )
    one = est.refit_seconds(1)
    assert one == pytest.approx(sum(fit.seconds(10 + k) for k in range(1, 10_001)))
    assert est.refit_seconds(10) == pytest.approx(one / 10, rel=0.01)
    assert Estimate(**{**est.__dict__, "budget": 20_000}).refit_seconds(1) > 3.9 * one
    assert est.long and est.seconds() > LONG_RUN
    every = est.suggest()
    assert every is not None and every > 1 and est.seconds(every) <= LONG_RUN
    lines = est.lines()
    assert lines[0].startswith("warning: this run may take up to about")
    assert f"`refit_every` {every}" in lines[1]  # a parameter; the command line's as_flags
    short = Estimate(**{**est.__dict__, "budget": 50, "n_stream": 500})
    assert not short.long and short.lines() == []


def test_estimate_is_measured_on_the_file(data: Path) -> None:
    from cbeal.tablerun import prepare

    plan = prepare(RunOptions(data=data, label="quality", time="when", compare="RS,US"))
    est = plan.estimate
    assert est is not None and set(est.per_sample) == {RECOMMENDED, "RS", "US"}
    assert all(0 < s < 0.05 for s in est.per_sample.values())
    assert 0 < est.fit.t1 < 1 and est.fit.n2 == plan.split.n_train
    assert 0 < est.seconds() < 60


def test_long_run_warning_names_refit_every(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("cbeal.tablerun.estimate.LONG_RUN", 1e-6)  # everything is long
    # which K helps depends on timings (tested above); here: that the hint reaches the user
    monkeypatch.setattr(Estimate, "suggest", lambda self: 20)
    assert quick(data, tmp_path / "rep") == 0
    err = capsys.readouterr().err
    assert "cbeal: warning: this run may take up to about" in err
    # the library names the parameter (`refit_every`); the command line may show its flag
    assert "`refit_every` 20 " in err or "--refit-every 20 " in err


def test_refit_every_retrains_less_and_once_at_the_end(data: Path) -> None:
    every = run(RunOptions(data=data, label="quality", time="when", compare="none"))
    fives = run(RunOptions(data=data, label="quality", time="when", compare="none", refit_every=5))
    n = fives.trace.n_acquired
    assert every.model.learner_version == 1 + every.trace.n_acquired
    assert fives.model.learner_version == 1 + n // 5 + (n % 5 > 0)
    assert fives.model.labels_since_refit == 0  # the last labels are in the final model


def test_progress_bars_are_labelled_by_method(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(data, tmp_path / "rep", "--time", "when", "--compare", "RS,US", "--progress") == 0
    err = capsys.readouterr().err
    for name in (RECOMMENDED, "RS", "US"):
        assert f"{name}: 100%" in err, err


@pytest.mark.parametrize("terminal", [True, False])
def test_progress_shows_by_itself_on_a_terminal_for_a_long_run(
    data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    terminal: bool,
) -> None:
    runner = importlib.import_module("cbeal.tablerun.run")  # the module, not run()
    monkeypatch.setattr(runner, "PROGRESS_AFTER", 0.0)  # every run is "long"
    monkeypatch.setattr(sys.stderr, "isatty", lambda: terminal)
    assert cli(data, tmp_path / "rep", "--time", "when", "--compare", "RS") == 0
    err = capsys.readouterr().err
    assert (f"{RECOMMENDED}: 100%" in err and "RS: 100%" in err) == terminal, err


# ---------------------------------------------------------------------- --initial, --repeats, --id
def test_initial_is_extended_until_it_holds_both_classes(tmp_path: Path) -> None:
    frame = line_frame(n=240, seed=6).sort_values("when").reset_index(drop=True)
    first_fail = int(np.flatnonzero(frame["quality"] == "fail")[0])
    frame.loc[: first_fail + 25, "quality"] = "ok"  # the first 26+ training rows pass
    result = run(
        RunOptions(
            data=write(frame, tmp_path / "late.csv"), label="quality", time="when", compare="US"
        )
    )
    d0 = result.split.part("initial")[1]
    assert set(d0) == {"ok", "fail"} and d0[-1] == "fail" and d0.size > 10
    assert result.split.requested_initial == 10 and "D0 was extended" in " ".join(result.notes)


def test_initial_says_why_it_cannot_hold_both_classes() -> None:
    y = np.array(["ok"] * 90 + ["fail"] * 3)
    size, note = extend_initial(y, 10)
    assert size == 10 and note is not None and "training row 91 of 93" in note


def test_repeats_give_mean_se_and_paired_wins(data: Path, tmp_path: Path) -> None:
    assert quick(data, tmp_path / "rep", "--compare", "RS", "--repeats", "3") == 0
    info = json.loads((tmp_path / "rep" / "summary.json").read_text())
    seeds = info["seeds"]
    assert [s["seed"] for s in seeds] == [0, 1, 2] and info["metrics"] == seeds[0]["metrics"]
    bal = [s["metrics"][RECOMMENDED]["balanced_accuracy"] for s in seeds]
    rs = [s["metrics"]["RS"]["balanced_accuracy"] for s in seeds]
    assert len(set(rs)) > 1  # the seeds really differ
    row = next(
        p for p in info["paired_wins"] if p["other"] == "RS" and p["metric"] == "balanced_accuracy"
    )
    assert row["wins"] == sum(a > b for a, b in zip(bal, rs, strict=True))
    assert row["wins"] + row["ties"] + row["losses"] == 3
    mean, se = mean_se(bal)
    assert se == pytest.approx(np.std(bal, ddof=1) / np.sqrt(3))
    report = (tmp_path / "rep" / "report.md").read_text()
    assert f"{mean:.3f} ± {se:.3f}" in report and "Paired comparison" in report
    assert f"| {RECOMMENDED} vs RS | {row['wins']} / {row['ties']} / {row['losses']}" in report


def test_id_columns_are_carried_into_the_trace(data: Path, tmp_path: Path) -> None:
    assert quick(data, tmp_path / "rep", "--id", "part") == 0
    trace = pd.read_csv(tmp_path / "rep" / "trace.csv")
    original = pd.read_csv(data)
    assert list(trace.columns[:4]) == ["t", "row", "time", "part"]
    assert (original.loc[trace["row"], "part"].to_numpy() == trace["part"].to_numpy()).all()
    info = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert info["data"]["id_columns"] == ["part"] and "part" not in info["data"]["features"]


def test_unknown_id_column_is_named(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert quick(data, tmp_path / "rep", "--id", "prat") == 2
    err = capsys.readouterr().err
    assert "did you mean 'part'" in err and "--id" in err
