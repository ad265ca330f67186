"""Plots of stream runs (matplotlib; ``pip install -e '.[plot]'``).

Every function draws on a given Axes (or a new one) and returns it, so figures can be
composed; nothing here computes results.

Colours mean the same thing in every figure cbeal draws: the failure (positive) class is
always :data:`FAILURE` (red) and passes :data:`PASS` (blue); red is used for nothing
else, so series (agents, methods) take their colours from :data:`SERIES`, which has no red.
Stream plots take an optional ``time`` array (one value per stream sample, numbers or
``datetime64``) to draw against time instead of the position in the stream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cbeal.trace import Trace

__all__ = [
    "FAILURE",
    "PASS",
    "SERIES",
    "distinct_colours",
    "plot_acquisitions",
    "plot_band",
    "plot_band_run",
    "plot_budget",
    "plot_cumulative_reward",
    "plot_decision_boundaries",
    "plot_drivers",
    "plot_label_requests",
    "plot_learning_curves",
    "plot_run",
    "plot_scores",
    "plot_weights",
]

FAILURE = "#d62728"  # the failure class, everywhere
PASS = "#1f77b4"  # the passing class
# tab10 without its red (and without pink, too close to it), black last
SERIES = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#000000",
)
STREAM_AXIS = "stream position (sample number)"


def _axes(ax: Any) -> Any:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7, 3))
    return ax


def _x(n: int, time: Any) -> np.ndarray:
    """The x value of each of `n` stream samples: their times, or positions 0 … n−1."""
    if time is None:
        return np.arange(n)
    x = np.asarray(time)
    if x.shape[0] != n:
        raise ValueError(f"time has {x.shape[0]} values for {n} stream samples")
    return x


def _stream_axis(ax: Any, x: np.ndarray, time: Any, label: str | None) -> None:
    if x.size:
        ax.set_xlim(x[0], x[-1])
    ax.set_xlabel(label or ("time" if time is not None else STREAM_AXIS))


def _class_colors(classes: list[Any], positive: Any) -> dict[Any, str]:
    """Failure red, the other class blue (more classes: series colours)."""
    others = [c for c in classes if c != positive]
    colors = {
        c: (PASS if len(others) == 1 else SERIES[i % len(SERIES)]) for i, c in enumerate(others)
    }
    if positive in classes:
        colors[positive] = FAILURE
    return colors


def plot_weights(
    trace: Trace,
    ax: Any = None,
    *,
    which: str = "after",
    title: str = "",
    time: Any = None,
    time_label: str | None = None,
) -> Any:
    """Standardized agent weights over the stream (``which``: before, exp4p or after).

    Exploration agents (LD, SPF) are drawn solid, exploitation agents (RAL) dashed.
    """
    ax = _axes(ax)
    w = {
        "before": trace.weights_before,
        "exp4p": trace.weights_exp4p,
        "after": trace.weights_after,
    }[which]
    x = _x(len(trace), time)
    for j, name in enumerate(trace.agent_names):
        ax.plot(
            x,
            w[:, j],
            lw=1.1,
            label=name,
            color=SERIES[j % len(SERIES)],
            ls="-" if name.startswith(("LD", "SPF")) else "--",
        )
    k = len(trace.agent_names)
    ax.axhline(1.0 / k, color="grey", lw=0.6, ls=":")
    if w.size:  # headroom above the lines for the legend strip, never a sliver of 1e-10
        low, high = float(w.min()), float(w.max())
        span = max(high - low, 0.1)
        ax.set_ylim(low - 0.05 * span, high + 0.35 * span)
    ax.ticklabel_format(axis="y", useOffset=False)
    _stream_axis(ax, x, time, time_label)
    ax.set_ylabel("standardized weight")
    ax.set_title(title or "Agent weights")
    ax.legend(ncol=min(8, k), fontsize=7, loc="upper left", frameon=False)
    return ax


def drivers(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """Which agents drove the asks: at each asked sample, each agent's share of the weighted
    advice (under score fusion, of the fused score), averaged over the samples asked so far.

    Returns the asked samples' positions and one row of shares per asked sample (rows sum
    to 1; an ask whose advice was all zero counts as an equal split).
    """
    at = np.flatnonzero(trace.acquired)
    part = trace.weights_before[at] * trace.advice[at]
    total = part.sum(axis=1, keepdims=True)
    k = max(len(trace.agent_names), 1)
    share = np.divide(part, total, out=np.full_like(part, 1.0 / k), where=total > 0)
    mean = np.cumsum(share, axis=0) / np.arange(1, len(at) + 1)[:, None]
    return at, mean


def plot_drivers(
    trace: Trace,
    ax: Any = None,
    *,
    title: str = "",
    time: Any = None,
    time_label: str | None = None,
) -> Any:
    """Which agents drove the asks (:func:`drivers`), over the stream: the panel that
    replaces the weights under score fusion, whose weights never move."""
    ax = _axes(ax)
    x = _x(len(trace), time)
    at, mean = drivers(trace)
    for j, name in enumerate(trace.agent_names):
        if at.size:
            ax.step(
                x[at], mean[:, j], where="post", lw=1.2, label=name, color=SERIES[j % len(SERIES)]
            )
    if not at.size:
        ax.text(0.5, 0.5, "no part asked", transform=ax.transAxes, ha="center", va="center")
    ax.set_ylim(0.0, 1.15)
    ax.yaxis.set_major_formatter(_percent())
    _stream_axis(ax, x, time, time_label)
    ax.set_ylabel("share of the asks")
    ax.set_title(
        title or "Which agents drove the asks (each one's share of the fused score, asks so far)"
    )
    if at.size:
        ax.legend(ncol=min(8, len(trace.agent_names)), fontsize=7, loc="upper left", frameon=False)
    return ax


def _percent() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(xmax=1.0, decimals=0)


def plot_acquisitions(
    traces: Mapping[str, Trace], ax: Any = None, *, title: str = "", positive: Any = None
) -> Any:
    """One row of ticks per method: when it asked for labels (red: the sample was a failure).

    The number of labels is part of each row's name, so nothing is drawn outside the axes.
    ``positive`` is the failure class (default: the largest label, 1 for 0/1 labels).
    """
    ax = _axes(ax)
    names = []
    for row, (name, tr) in enumerate(traces.items()):
        t = np.flatnonzero(tr.acquired)
        pos_class = tr.y_true.max() if positive is None else positive
        pos = np.asarray(tr.y_true[t] == pos_class)
        ax.vlines(t[~pos], row - 0.35, row + 0.35, color=PASS, lw=0.8)
        ax.vlines(t[pos], row - 0.35, row + 0.35, color=FAILURE, lw=1.2)
        names.append(f"{name}\n{t.size} labels, {int(pos.sum())} failures")
    ax.set_xlim(0, max(len(tr) for tr in traces.values()))
    ax.set_ylim(-0.6, len(traces) - 0.4)
    ax.set_yticks(range(len(traces)), names, fontsize=8)
    ax.set_xlabel(f"{STREAM_AXIS}; one tick per label, red: failure, blue: pass")
    ax.set_title(title or "Acquisitions")
    return ax


def plot_cumulative_reward(
    traces: Mapping[str, Trace],
    ax: Any = None,
    *,
    title: str = "",
    time: Any = None,
    time_label: str | None = None,
) -> Any:
    """Cumulative reward over the stream, one line per method (+1 per label that corrected
    the model, −0.5 per label it already had right)."""
    ax = _axes(ax)
    for j, (name, tr) in enumerate(traces.items()):
        x = _x(len(tr), time)
        ax.plot(x, tr.cumulative_reward, label=name, lw=1.2, color=SERIES[j % len(SERIES)])
    ax.axhline(0, color="grey", lw=0.6)
    _stream_axis(ax, x, time, time_label)
    ax.set_ylabel("cumulative reward")
    ax.set_title(title or "Cumulative reward (+1: the model was wrong, −0.5: it was right)")
    ax.legend(fontsize=8)
    return ax


def plot_budget(
    trace: Trace,
    ax: Any = None,
    *,
    title: str = "",
    time: Any = None,
    time_label: str | None = None,
    allowance: Any = None,
    budget_label: str = "",
) -> Any:
    """Labels spent against what the budget allows, over the stream.

    `allowance` holds, per stream sample, the most labels the budget allows so far: it
    climbs along the stream for a paced rate (``floor(rate · t)``) and is flat for a count.
    By default it is read from the trace's budget when that is a count or a share
    (``trace.metadata["budget"]``), else only the spend is drawn.
    """
    ax = _axes(ax)
    x = _x(len(trace), time)
    spent = np.cumsum(trace.acquired)
    if allowance is None:
        allowance = _allowance(trace.metadata.get("budget"), len(trace))
    if allowance is not None:
        allowance = np.asarray(allowance)
        if allowance.shape[0] != len(trace):
            raise ValueError(f"allowance has {allowance.shape[0]} values for {len(trace)} samples")
        # a wide grey band under the spend: visible where a method keeps to the limit
        ax.step(
            x,
            allowance,
            where="post",
            color="#b0b0b0",
            lw=4.0,
            solid_capstyle="butt",
            label=budget_label or "allowed by the budget",
        )
        top = max(int(allowance.max(initial=0)), int(spent.max(initial=0)), 1)
        ax.set_ylim(0, 1.1 * top)
    ax.step(x, spent, where="post", label="labels spent", color=SERIES[0], lw=1.5)
    _stream_axis(ax, x, time, time_label)
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # labels are counted, not measured
    ax.set_ylabel("labels")
    ax.set_title(title or "Labels spent and the budget")
    ax.legend(fontsize=8, loc="lower right")  # spend and allowance rise from the lower left
    return ax


def _allowance(budget: Any, n: int) -> np.ndarray | None:
    """The labels a count or share `budget` allows after each of `n` samples (None if it
    is neither, e.g. the repr of a Budget object)."""
    from cbeal.core import BudgetError, as_budget

    try:
        fresh = as_budget(budget)
    except BudgetError:
        return None
    return np.array([fresh.left(t) for t in range(1, n + 1)])


def plot_decision_boundaries(
    X: np.ndarray,
    y: np.ndarray,
    boundaries: list[tuple[int, np.ndarray, float]],
    ax: Any = None,
    *,
    truth: tuple[np.ndarray, float] | None = None,
    acquired: np.ndarray | None = None,
    title: str = "",
) -> Any:
    """Linear decision boundaries ``w·x + b = 0`` over time in 2-D (darker: later).

    Class 1 is the failure class (red); every element carries a legend label.
    """
    ax = _axes(ax)
    ax.scatter(X[y == 0, 0], X[y == 0, 1], s=4, c="#c7c7c7", label="pass")
    ax.scatter(X[y == 1, 0], X[y == 1, 1], s=7, c=FAILURE, label="failure")
    if acquired is not None and acquired.size:
        ax.scatter(
            X[acquired, 0],
            X[acquired, 1],
            s=16,
            facecolors="none",
            edgecolors="k",
            lw=0.7,
            label="labelled (asked for)",
        )
    xs = np.linspace(X[:, 0].min(), X[:, 0].max(), 50)
    last = max((t for t, _, _ in boundaries), default=1) or 1
    for i, (t, w, b) in enumerate(boundaries):
        if abs(w[1]) > 1e-12:
            ax.plot(
                xs,
                -(w[0] * xs + b) / w[1],
                color=PASS,
                alpha=0.15 + 0.85 * t / last,
                lw=1.0,
                label="model's boundary (darker = later)" if i == len(boundaries) - 1 else None,
            )
    if truth is not None and abs(truth[0][1]) > 1e-12:
        ax.plot(
            xs,
            -(truth[0][0] * xs + truth[1]) / truth[0][1],
            color=SERIES[1],
            lw=2,
            label="boundary with all labels",
        )
    ax.set_ylim(X[:, 1].min() - 0.5, X[:, 1].max() + 0.5)
    ax.set_xlabel("feature 1")
    ax.set_ylabel("feature 2")
    ax.set_title(title, fontsize=9)
    return ax


def plot_label_requests(
    trace: Trace,
    ax: Any = None,
    *,
    title: str = "",
    positive: Any = None,
    time: Any = None,
    time_label: str | None = None,
) -> Any:
    """When labels were asked: one tick per acquisition, one row per true class, the
    failure class (``positive``; default: the larger of two labels, none for more classes)
    on top, in red."""
    ax = _axes(ax)
    x = _x(len(trace), time)
    t = np.flatnonzero(trace.acquired)
    classes = np.unique(trace.y_true).tolist()
    pos = positive if positive is not None else max(classes) if len(classes) == 2 else None
    rows = [c for c in classes if c != pos] + ([pos] if pos in classes else [])
    colors = _class_colors(classes, pos)
    for row, cls in enumerate(rows):
        hit = t[trace.y_true[t] == cls]
        ax.plot(x[hit], np.full(hit.size, row), "|", ms=10, mew=1.5, color=colors[cls])
    counts = {c: int(np.sum(trace.y_true[t] == c)) for c in rows}
    ax.set_yticks(range(len(rows)), [f"{c} ({counts[c]})" for c in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    _stream_axis(ax, x, time, time_label)
    ax.set_ylabel("true class (labels)")
    ax.set_title(title or f"Parts asked for: {t.size} labels")
    return ax


def plot_run(
    trace: Trace,
    *,
    name: str = "CbeAL",
    title: str = "",
    positive: Any = None,
    time: Any = None,
    time_label: str | None = None,
    allowance: Any = None,
    budget_label: str = "",
) -> Any:
    """One figure of a run, panels sharing the stream (or time) axis: label requests,
    agent weights, label spend against the budget (`allowance`, `budget_label`: see
    :func:`plot_budget`) and cumulative reward.

    Returns a :class:`matplotlib.figure.Figure` that is not registered with pyplot (safe in
    scripts and servers; save it with ``fig.savefig``).
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 10), layout="constrained")
    axes = fig.subplots(4, 1, sharex=True, height_ratios=(1, 1.6, 1, 1))
    where = {"time": time, "time_label": time_label}
    plot_label_requests(trace, axes[0], positive=positive, **where)
    if trace.metadata.get("weighting") == "score fusion":  # fixed weights: who drove the asks
        plot_drivers(trace, axes[1], **where)
    else:
        plot_weights(
            trace,
            axes[1],
            title="Standardized agent weights (each agent's share of the vote)",
            **where,
        )
    plot_budget(trace, axes[2], allowance=allowance, budget_label=budget_label, **where)
    plot_cumulative_reward({name: trace}, axes[3], **where)
    for ax in axes[:-1]:
        ax.set_xlabel("")
    if title:
        fig.suptitle(title)
    return fig


def plot_scores(
    scores: Mapping[str, Mapping[str, float]],
    ax: Any = None,
    *,
    labels: Mapping[str, str] | None = None,
    title: str = "",
) -> Any:
    """Grouped bars: one group per method, one bar per metric (values in [0, 1]).

    With ``ax=None`` the bars go on a new figure that is not registered with pyplot.
    """
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(max(6.0, 1.3 * len(scores)), 3.8), layout="constrained").subplots()
    metrics = list(dict.fromkeys(m for row in scores.values() for m in row))
    width = 0.8 / max(len(metrics), 1)
    x = np.arange(len(scores))
    for j, metric in enumerate(metrics):
        vals = [row.get(metric, np.nan) for row in scores.values()]
        ax.bar(
            x + (j - (len(metrics) - 1) / 2) * width,
            vals,
            width,
            label=(labels or {}).get(metric, metric),
            color=SERIES[j % len(SERIES)],
        )
    ax.set_xticks(x, list(scores), rotation=20, ha="right")
    ax.set_ylim(0, 1.22)  # headroom for the legend above the bars
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("score on the test set")
    ax.set_title(title or "Test scores per method")
    ax.legend(fontsize=7, ncol=max(len(metrics), 1), loc="upper center")
    return ax


def plot_band(trace: Trace, ax: Any = None, *, title: str = "") -> Any:
    """A regressor's run: each part's prediction error against the tolerance band.

    The error ``ŷ − y`` of the prediction made *before* the part was learned, the band
    ``± tolerance`` shaded (green), parts outside it in red, and the parts whose value was
    asked for marked with a tick at the bottom. The title gives the share within the band.
    """
    tol = trace.metadata.get("tolerance")
    if tol is None:
        raise ValueError("plot_band needs the trace of a model with a regressor and a tolerance")
    ax = _axes(ax)
    tol = float(tol)
    err = np.asarray(trace.y_pred, dtype=np.float64) - np.asarray(trace.y_true, dtype=np.float64)
    t = np.arange(err.shape[0])
    out = np.abs(err) > tol
    ax.axhspan(-tol, tol, color="#2ca02c", alpha=0.15, label=f"tolerance ± {tol:.3g}")
    ax.scatter(t[~out], err[~out], s=4, color=PASS, label="within tolerance")
    ax.scatter(t[out], err[out], s=6, color=FAILURE, label="outside tolerance")
    low = float(np.min(err, initial=-tol))
    asked = np.flatnonzero(trace.acquired)
    ax.vlines(asked, low - 0.3 * tol, low - 0.05 * tol, color="black", lw=0.9,
              label=f"asked for ({asked.size})")  # fmt: skip
    ax.axhline(0.0, color="black", lw=0.5)
    ax.set_xlabel(STREAM_AXIS)
    ax.set_ylabel("prediction − measured")
    share = float(np.mean(~out)) if err.size else float("nan")
    ax.set_title(title or f"Prediction error against the band ({share:.0%} within tolerance)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=4)
    return ax


def plot_band_run(
    trace: Trace, *, title: str = "", allowance: Any = None, budget_label: str = ""
) -> Any:
    """A regressor's run in one figure: each part's error against the tolerance band
    (:func:`plot_band`) above the labels spent against the budget (:func:`plot_budget`).

    Returns a :class:`matplotlib.figure.Figure` that is not registered with pyplot.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 7), layout="constrained")
    top, bottom = fig.subplots(2, 1, height_ratios=(1.6, 1))
    plot_band(trace, top)
    plot_budget(trace, bottom, allowance=allowance, budget_label=budget_label)
    if title:
        fig.suptitle(title)
    return fig


def distinct_colours(n: int) -> list[Any]:
    """`n` colours no two alike: matplotlib's ten, then twenty, then evenly spaced hues.

    >>> len(set(map(tuple, distinct_colours(14))))
    14
    """
    from matplotlib import colormaps

    if n <= 10:
        return [colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [colormaps["tab20"](i) for i in range(n)]
    return [colormaps["hsv"](i / n) for i in range(n)]


def _seed_band(runs: Sequence[tuple[Any, Any, Any]]) -> tuple[np.ndarray, ...]:
    """The seeds' curves on one grid of label counts (up to the fewest labels any seed
    spent): labels, mean RMSE, its standard error, mean share within tolerance."""
    end = min(float(np.asarray(r[0], dtype=np.float64)[-1]) for r in runs)
    grid = np.unique(np.concatenate([np.asarray(r[0], dtype=np.float64) for r in runs]))
    grid = grid[grid <= end]
    rmse = np.array([np.interp(grid, r[0], r[1]) for r in runs])
    share = np.array([np.interp(grid, r[0], r[2]) for r in runs])
    se = rmse.std(axis=0, ddof=1) / np.sqrt(len(runs)) if len(runs) > 1 else 0.0 * grid
    return grid, rmse.mean(axis=0), se, share.mean(axis=0)


def plot_learning_curves(
    curves: Mapping[str, Any],
    *,
    tolerance: float,
    reference: tuple[str, float, float] | None = None,
    random: tuple[str, float] | None = None,
) -> Any:
    """Learning curves of regressors: test RMSE (left, lower is better) and the share of
    test parts within the tolerance (right) against the labels spent.

    `curves` maps a method to ``(labels, rmse, share within tolerance)``, or to a list of
    them, one per seed: then the mean over the seeds is drawn with a band of ± one
    standard error. `reference` is ``(label, rmse, share)`` of a model trained on every
    label, drawn dashed; `random` ``(label, rmse)`` of random sampling at the full budget,
    dotted. Returns a :class:`matplotlib.figure.Figure` not registered with pyplot.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    colours = distinct_colours(len(curves))
    n_seeds = 1
    for colour, (method, runs) in zip(colours, curves.items(), strict=True):
        runs = [runs] if isinstance(runs, tuple) else list(runs)
        n_seeds = max(n_seeds, len(runs))
        labels, rmse, se, share = _seed_band(runs)
        left.plot(labels, rmse, marker="o", ms=3, label=method, color=colour)
        if len(runs) > 1:
            left.fill_between(labels, rmse - se, rmse + se, color=colour, alpha=0.15, lw=0)
        right.plot(labels, 100 * share, marker="o", ms=3, color=colour)
    if reference is not None:
        name, rmse_all, share_all = reference
        left.axhline(rmse_all, color="grey", ls="--", lw=1, label=name)
        right.axhline(100 * share_all, color="grey", ls="--", lw=1)
    if random is not None:
        left.axhline(random[1], color="black", ls=":", lw=1, label=random[0])
    over = f"mean of {n_seeds} seeds ± SE" if n_seeds > 1 else "one seed"
    left.set(xlabel="labels spent", ylabel="test RMSE (lower is better)",
             title=f"Test RMSE against labels spent ({over})")  # fmt: skip
    right.set(
        xlabel="labels spent",
        ylabel="% of test parts",
        title=f"Within tolerance (±{tolerance:.4g})",
    )
    left.legend(fontsize=7 if len(curves) > 6 else 8)
    return fig
