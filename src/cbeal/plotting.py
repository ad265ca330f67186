"""Plots of stream runs (matplotlib; ``pip install cbeal[plot]``).

Every function draws on a given Axes (or a new one) and returns it, so figures can be
composed; nothing here computes results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cbeal.trace import Trace

__all__ = [
    "plot_acquisitions",
    "plot_budget",
    "plot_cumulative_reward",
    "plot_decision_boundaries",
    "plot_label_requests",
    "plot_run",
    "plot_scores",
    "plot_weights",
]


def _axes(ax: Any) -> Any:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7, 3))
    return ax


def plot_weights(trace: Trace, ax: Any = None, *, which: str = "after", title: str = "") -> Any:
    """Standardized agent weights over the stream (``which``: before, exp4p or after)."""
    ax = _axes(ax)
    w = {"before": trace.weights_before, "exp4p": trace.weights_exp4p,
         "after": trace.weights_after}[which]
    for j, name in enumerate(trace.agent_names):
        ax.plot(w[:, j], lw=1.0, label=name, ls="-" if name.startswith(("LD", "SPF")) else "--")
    ax.axhline(1.0 / len(trace.agent_names), color="grey", lw=0.6, ls=":")
    ax.set_xlabel("stream position t")
    ax.set_ylabel("standardized weight")
    ax.set_title(title or "Agent weights")
    ax.legend(ncol=min(6, len(trace.agent_names)), fontsize=7, loc="upper right")
    return ax


def plot_acquisitions(traces: Mapping[str, Trace], ax: Any = None, *, title: str = "") -> Any:
    """One row of bars per method: when it asked for labels (dark: the sample was positive)."""
    ax = _axes(ax)
    for row, tr in enumerate(traces.values()):
        t = np.flatnonzero(tr.acquired)
        pos = np.asarray(tr.y_true[t] == tr.y_true.max())
        ax.vlines(t[~pos], row - 0.35, row + 0.35, color="tab:blue", lw=0.8)
        ax.vlines(t[pos], row - 0.35, row + 0.35, color="tab:red", lw=1.2)
        # label count at the right edge, in axes coordinates so the layout stays put
        ax.text(1.005, row, f"{t.size}", va="center", fontsize=7,
                transform=ax.get_yaxis_transform())
    ax.set_xlim(0, max(len(tr) for tr in traces.values()))
    ax.set_yticks(range(len(traces)), list(traces))
    ax.set_xlabel("stream position t (red: positive sample)")
    ax.set_title(title or "Acquisitions")
    return ax


def plot_cumulative_reward(traces: Mapping[str, Trace], ax: Any = None, *,
                           title: str = "") -> Any:
    """Cumulative reward over the stream, one line per method."""
    ax = _axes(ax)
    for name, tr in traces.items():
        ax.plot(tr.cumulative_reward, label=name, lw=1.2)
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlabel("stream position t")
    ax.set_ylabel("cumulative reward")
    ax.set_title(title or "Cumulative reward")
    ax.legend(fontsize=8)
    return ax


def plot_budget(trace: Trace, ax: Any = None, *, title: str = "") -> Any:
    """Labels spent against the budget over the stream."""
    ax = _axes(ax)
    ax.plot(np.cumsum(trace.acquired), label="labels spent")
    budget = trace.metadata.get("budget")
    if budget:
        ax.axhline(budget, color="tab:red", ls="--", label=f"budget {budget}")
    ax.set_xlabel("stream position t")
    ax.set_ylabel("labels")
    ax.set_title(title or "Label spend")
    ax.legend(fontsize=8)
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
    """Linear decision boundaries ``w·x + b = 0`` over time in 2-D (darker: later)."""
    ax = _axes(ax)
    ax.scatter(X[y == 0, 0], X[y == 0, 1], s=4, c="lightgrey")
    ax.scatter(X[y == 1, 0], X[y == 1, 1], s=6, c="tab:green")
    if acquired is not None and acquired.size:
        ax.scatter(X[acquired, 0], X[acquired, 1], s=14, facecolors="none", edgecolors="k",
                   lw=0.7)
    xs = np.linspace(X[:, 0].min(), X[:, 0].max(), 50)
    last = max((t for t, _, _ in boundaries), default=1) or 1
    for t, w, b in boundaries:
        if abs(w[1]) > 1e-12:
            ax.plot(xs, -(w[0] * xs + b) / w[1], color="tab:blue", alpha=0.15 + 0.85 * t / last,
                    lw=1.0)
    if truth is not None and abs(truth[0][1]) > 1e-12:
        ax.plot(xs, -(truth[0][0] * xs + truth[1]) / truth[0][1], color="tab:orange", lw=2)
    ax.set_ylim(X[:, 1].min() - 0.5, X[:, 1].max() + 0.5)
    ax.set_title(title, fontsize=9)
    return ax


def plot_label_requests(trace: Trace, ax: Any = None, *, title: str = "") -> Any:
    """When labels were asked: one marker per acquisition, one row and colour per true class."""
    ax = _axes(ax)
    t = np.flatnonzero(trace.acquired)
    classes = np.unique(trace.y_true)
    for row, cls in enumerate(classes.tolist()):
        hit = t[trace.y_true[t] == cls]
        ax.plot(hit, np.full(hit.size, row), "|", ms=10, mew=1.5, color=f"C{row % 10}",
                label=f"{cls} ({hit.size})")
    ax.set_yticks(range(classes.size), [str(c) for c in classes.tolist()])
    ax.set_ylim(-0.6, classes.size - 0.4)
    ax.set_xlim(0, max(len(trace), 1))
    ax.set_xlabel("stream position t")
    ax.set_ylabel("true class")
    ax.set_title(title or f"Labels asked for ({t.size})")
    return ax


def plot_run(trace: Trace, *, name: str = "CbeAL", title: str = "") -> Any:
    """One figure of a run, panels sharing the stream axis: label requests, agent weights,
    label spend against the budget and cumulative reward.

    Returns a :class:`matplotlib.figure.Figure` that is not registered with pyplot (safe in
    scripts and servers; save it with ``fig.savefig``).
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 10), layout="constrained")
    axes = fig.subplots(4, 1, sharex=True, height_ratios=(1, 1.6, 1, 1))
    plot_label_requests(trace, axes[0])
    plot_weights(trace, axes[1], title="Standardized agent weights")
    plot_budget(trace, axes[2])
    plot_cumulative_reward({name: trace}, axes[3])
    for ax in axes[:-1]:
        ax.set_xlabel("")
    if title:
        fig.suptitle(title)
    return fig


def plot_scores(scores: Mapping[str, Mapping[str, float]], ax: Any = None, *,
                labels: Mapping[str, str] | None = None, title: str = "") -> Any:
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
        ax.bar(x + (j - (len(metrics) - 1) / 2) * width, vals, width,
               label=(labels or {}).get(metric, metric))
    ax.set_xticks(x, list(scores), rotation=20, ha="right")
    ax.set_ylim(0, 1.22)  # headroom for the legend above the bars
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("score on the test set")
    ax.set_title(title or "Test scores per method")
    ax.legend(fontsize=7, ncol=max(len(metrics), 1), loc="upper center")
    return ax
