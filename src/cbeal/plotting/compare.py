"""Methods side by side: when each asked for labels, their cumulative reward, their test
scores, and a linear model's decision boundaries as labels came in (2-D)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cbeal.plotting.style import FAILURE, PASS, SERIES, STREAM_AXIS, _axes, _stream_axis, _x
from cbeal.simulation.trace import Trace

__all__ = [
    "plot_acquisitions",
    "plot_cumulative_reward",
    "plot_decision_boundaries",
    "plot_scores",
]


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
