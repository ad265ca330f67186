"""One run over the stream, panel by panel: when labels were asked, the agents' weights
(or, under score fusion, which agents drove the asks), the labels spent against the
budget, and all of them in one figure (:func:`plot_run`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.plotting.compare import plot_cumulative_reward
from cbeal.plotting.style import (
    SERIES,
    _axes,
    _class_colors,
    _percent,
    _stream_axis,
    _x,
)
from cbeal.simulation.trace import Trace

__all__ = [
    "drivers",
    "plot_budget",
    "plot_drivers",
    "plot_label_requests",
    "plot_run",
    "plot_weights",
]


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
