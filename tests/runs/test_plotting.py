"""The plots draw what the trace holds."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import CbeAL, Trace, make_stream, simulate
from cbeal.plotting import (
    plot_acquisitions,
    plot_budget,
    plot_cumulative_reward,
    plot_decision_boundaries,
    plot_weights,
)

matplotlib.use("Agg")
import matplotlib.pyplot as plt


@pytest.fixture(scope="module")
def trace() -> object:
    s = make_stream(n=300, random_state=0)
    model = CbeAL.from_preset(
        "CBEAL-6", estimator=LogisticRegression(), budget=28, random_state=0
    ).fit(s.X0, s.y0)
    return simulate(model, s.X_stream, s.y_stream)


def test_weights_one_line_per_agent(trace: object, tmp_path: Path) -> None:
    ax = plot_weights(trace)  # type: ignore[arg-type]
    lines = [ln for ln in ax.get_lines() if ln.get_label() in trace.agent_names]  # type: ignore[attr-defined]
    assert len(lines) == 6
    np.testing.assert_allclose(lines[4].get_ydata(), trace.weights_after[:, 4])  # type: ignore[attr-defined]
    ax.figure.savefig(tmp_path / "w.png")
    assert (tmp_path / "w.png").stat().st_size > 1000
    plt.close("all")


def test_acquisitions_bars_and_reward(trace: object) -> None:
    ax = plot_acquisitions({"a": trace, "b": trace})  # type: ignore[dict-item]
    n_bars = sum(len(c.get_segments()) for c in ax.collections)
    assert n_bars == 2 * trace.n_acquired  # type: ignore[attr-defined]
    ax = plot_cumulative_reward({"x": trace})  # type: ignore[dict-item]
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), np.cumsum(trace.reward))  # type: ignore[attr-defined]
    ax = plot_budget(trace)  # type: ignore[arg-type]
    assert ax.get_lines()[0].get_ydata()[-1] == trace.n_acquired  # type: ignore[attr-defined]
    plt.close("all")


def test_decision_boundaries() -> None:
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.5]])
    y = np.array([0, 1, 1])
    ax = plot_decision_boundaries(
        X, y, [(100, np.array([1.0, 1.0]), -1.0)], truth=(np.array([1.0, -1.0]), 0.0)
    )
    line = ax.get_lines()[0]
    xs, ys = line.get_xdata(), line.get_ydata()
    np.testing.assert_allclose(xs + ys, 1.0)  # x + y − 1 = 0
    plt.close("all")


@pytest.mark.parametrize(
    ("names", "positive"), [(("ok", "fail"), "fail"), (("fail", "pass"), "pass")]
)
def test_the_failure_class_is_red_whatever_its_name(
    trace: object, names: tuple[str, str], positive: str
) -> None:
    import dataclasses

    from matplotlib.colors import to_hex

    from cbeal.plotting import FAILURE, PASS, plot_label_requests

    y = np.where(trace.y_true == 1, names[1], names[0])  # type: ignore[attr-defined]
    tr = dataclasses.replace(trace, y_true=y)  # type: ignore[type-var]
    ax = plot_label_requests(tr, positive=positive)
    rows = [t.get_text().split(" ")[0] for t in ax.get_yticklabels()]
    colors = [to_hex(line.get_color()) for line in ax.get_lines()]
    assert rows[-1] == positive and colors[-1] == FAILURE and colors[0] == PASS
    plt.close("all")


def test_stream_plots_draw_against_time(trace: object) -> None:
    from cbeal.plotting import plot_run

    n = len(trace)  # type: ignore[arg-type]
    stamps = np.datetime64("2025-03-01T06:00") + np.arange(n).astype("timedelta64[m]")
    fig = plot_run(trace, time=stamps, time_label="time (column ts)")  # type: ignore[arg-type]
    bottom = fig.axes[-1]
    assert bottom.get_xlabel() == "time (column ts)"
    line = bottom.get_lines()[0]
    assert np.asarray(line.get_xdata())[0] == stamps[0]


@pytest.mark.parametrize(
    ("budget", "first", "last"), [("10%", 5, -10), (28, 28, 28), ("LabelRate()", None, None)]
)
def test_the_budget_line_climbs_for_a_paced_rate_and_is_flat_for_a_count(
    trace: object, budget: object, first: int | None, last: int | None
) -> None:
    import dataclasses

    tr = dataclasses.replace(trace, metadata={"budget": budget})  # type: ignore[type-var]
    ax = plot_budget(tr)
    drawn = {ln.get_label(): np.asarray(ln.get_ydata()) for ln in ax.get_lines()}
    np.testing.assert_array_equal(drawn["labels spent"], np.cumsum(tr.acquired))
    if first is None:  # not a count nor a share (a Budget's repr): the spend alone
        assert set(drawn) == {"labels spent"}
    else:
        allowed = drawn["allowed by the budget"]
        # 10 %: n // 10, and the rate's burst of 5 from the start
        last = last if last > 0 else len(tr) // -last + first  # type: ignore[operator]
        assert (allowed[0], allowed[-1]) == (first, last)
        assert np.all(np.diff(allowed) >= 0) and (budget != 28 or (allowed == 28).all())
    plt.close("all")


def test_a_run_figure_draws_the_allowance_it_is_given(trace: object) -> None:
    from cbeal.plotting import plot_run

    n = len(trace)  # type: ignore[arg-type]
    allowance = np.floor(0.1 * np.arange(1, n + 1)).astype(int)
    label = "allowed: 10% (a paced rate)"
    fig = plot_run(trace, allowance=allowance, budget_label=label)  # type: ignore[arg-type]
    lines = {ln.get_label(): ln for ln in fig.axes[2].get_lines()}
    np.testing.assert_array_equal(lines[label].get_ydata(), allowance)
    with pytest.raises(ValueError, match="allowance has 3 values"):
        plot_budget(trace, allowance=[1, 2, 3])  # type: ignore[arg-type]


def test_under_score_fusion_the_run_figure_draws_which_agents_drove_the_asks(
    trace: Trace,
) -> None:
    # issue 29, stumble 6: fusion's weights are fixed, so the weights panel was five flat
    # lines on a "1e-10+2e-1" offset axis; it now shows each member's share of the asks
    from cbeal.plotting import drivers, plot_run

    s = make_stream(n=400, random_state=1)
    model = CbeAL.from_preset(
        "CBEAL-5F", estimator=LogisticRegression(), budget=0.1, random_state=0
    ).fit(s.X0, s.y0)
    fused = simulate(model, s.X_stream, s.y_stream)
    assert fused.metadata["weighting"] == "score fusion"
    assert trace.metadata["weighting"] == "bandit"
    at, share = drivers(fused)
    assert at.size == fused.n_acquired > 0
    np.testing.assert_allclose(share.sum(axis=1), 1.0)
    first = fused.weights_before[at[0]] * fused.advice[at[0]]
    np.testing.assert_allclose(share[0], first / first.sum())  # the first ask alone
    fig = plot_run(fused)
    fig.canvas.draw()
    panel = fig.axes[1]
    assert "drove the asks" in panel.get_title()
    assert panel.get_ylim() == (0.0, 1.15)
    assert panel.yaxis.get_offset_text().get_text() == ""
    assert len(panel.get_lines()) == len(fused.agent_names)
    bandit = plot_run(trace)
    assert "Standardized agent weights" in bandit.axes[1].get_title()  # the paper's bandit


def test_fixed_weights_draw_without_an_offset_axis(trace: Trace) -> None:
    import dataclasses

    flat = dataclasses.replace(trace, weights_after=np.full_like(trace.weights_after, 1 / 6))
    ax = plot_weights(flat)
    ax.figure.canvas.draw()
    assert ax.yaxis.get_offset_text().get_text() == ""
    low, high = ax.get_ylim()
    assert high - low >= 0.04  # not a sliver of 1e-10
