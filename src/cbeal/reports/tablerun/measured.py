"""The parts of a ``cbeal run`` report that differ for measured values (a regression run
with a tolerance): the data's values against the tolerance, the CbeAL run's prequential
errors, and the figures — the prediction error against the tolerance band, the labels
spent against the budget, and the learning curve against the labels spent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cbeal.reports.document import Block
from cbeal.tablerun import UserRun

__all__ = ["cbeal_blocks", "data_sentence", "figure_blocks", "figures"]


def data_sentence(result: UserRun) -> str:
    """The measured values of the training and test rows and the tolerance against them."""
    t = result.target
    assert t is not None
    tr, te = t.train, t.test
    test = (
        f"; test rows: mean {te['mean']:.4g}, from {te['min']:.4g} to {te['max']:.4g}"
        if te["n"]
        else ""
    )
    return (
        f"Measured values of `{result.table.label}` — training rows: mean {tr['mean']:.4g}, "
        f"standard deviation {tr['std']:.4g}, from {tr['min']:.4g} to {tr['max']:.4g}{test}. "
        f"Tolerance: ±{t.tolerance:g} (a prediction within ±{t.tolerance:g} of the measured "
        f"value counts as right), {t.tolerance_share:.2f} standard deviations of the training "
        "values."
    )


def cbeal_blocks(result: UserRun) -> list[Block]:
    """The CbeAL run's labels, rewards and prequential errors."""
    s, t = result.stats.cbeal, result.target
    assert t is not None
    rule = result.options.regression_reward
    graded = "graded by how far outside (`regression_reward` normalized)"
    reward = "+1 each" if rule == "band" else graded
    return [
        ("h", 2, f"The {result.name} run (seed {result.options.seed})"),
        (
            "p",
            f"{s['n_acquired']} of {result.budget} labels spent. For {s['n_useful']} of the "
            f"parts asked for, the prediction made before the measurement was outside the "
            f"tolerance (±{t.tolerance:g}; reward {reward}); for {s['n_useless']} it was "
            f"within it: cumulative reward {s['cumulative_reward']:+.1f}. Over the stream, "
            "each part predicted before it was learned (prequential): RMSE "
            f"{s['prequential_rmse']:.4g}, MAE {s['prequential_mae']:.4g}, "
            f"{100 * s['prequential_in_band']:.1f} % within tolerance. Run time of all "
            f"methods: {result.seconds:.1f} s.",
        ),
    ]


def figures(result: UserRun, folder: Path) -> dict[str, Path]:
    """Draw ``run.png`` (error against the band, labels against the budget) and, with a
    test set, ``curve.png`` (learning curves); raises ImportError without matplotlib."""
    from matplotlib.figure import Figure

    from cbeal.plotting import plot_band, plot_budget

    use = result.stats.budget
    fig = Figure(figsize=(9, 7), layout="constrained")
    top, bottom = fig.subplots(2, 1, height_ratios=(1.6, 1))
    plot_band(result.trace, top)
    plot_budget(
        result.trace,
        bottom,
        allowance=use.allowance,
        budget_label="allowed by the budget: "
        + (
            f"{use.given} of the parts seen (a paced rate)"
            if use.paced
            else f"{use.labels} labels (a count)"
        ),
    )
    fig.suptitle(f"{result.name} on {result.table.path.name}")
    folder.mkdir(exist_ok=True)
    out = {"run": folder / "run.png"}
    fig.savefig(out["run"], dpi=110)
    if result.curves:
        out["curve"] = folder / "curve.png"
        _curve_figure(result).savefig(out["curve"], dpi=110)
    return out


def _curve_figure(result: UserRun) -> Any:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    full = result.scores.get("All Training Data", {})
    for method, curve in result.curves.items():
        left.plot(curve.labels, curve.rmse, marker="o", ms=3, label=method)
        right.plot(curve.labels, np.asarray(curve.in_band) * 100, marker="o", ms=3, label=method)
    if full:
        n = result.labels.get("All Training Data", 0)
        left.axhline(full["rmse"], color="grey", ls="--", lw=1, label=f"all {n} training labels")
        right.axhline(100 * full["in_band"], color="grey", ls="--", lw=1)
    left.set(xlabel="labels spent", ylabel="test RMSE", title="Test RMSE against labels spent")
    right.set(
        xlabel="labels spent",
        ylabel="% of test parts",
        title=f"Within tolerance (±{result.options.tolerance:g})",
    )
    left.legend(fontsize=8)
    return fig


def figure_blocks(result: UserRun, found: dict[str, Path]) -> list[Block]:
    """The figures with what they show."""
    blocks: list[Block] = [
        ("h", 2, "Figures"),
        (
            "p",
            f"The {result.name} run along the stream: on top each part's prediction error "
            "(predicted − measured, the prediction made before the part was learned) against "
            "the tolerance band (shaded), parts outside it in red and the parts asked for "
            "marked at the bottom; below, the labels spent against what the budget allows.",
        ),
        ("img", f"{result.name} run", found["run"]),
    ]
    if "curve" in found:
        blocks += [
            (
                "p",
                "Learning curves: the test RMSE and the share of test parts within tolerance "
                "of the learner trained on D0 and the first k labels each method asked for, "
                "against k; dashed, the learner trained on every training label.",
            ),
            ("img", "learning curves", found["curve"]),
        ]
    return blocks
