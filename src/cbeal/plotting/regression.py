"""Regressors' runs: each part's error against the tolerance band, and learning curves
(test RMSE and the share within the tolerance against the labels spent)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cbeal.plotting.run import plot_budget
from cbeal.plotting.style import FAILURE, PASS, STREAM_AXIS, _axes, distinct_colours
from cbeal.simulation.trace import Trace

__all__ = ["plot_band", "plot_band_run", "plot_learning_curves"]


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
