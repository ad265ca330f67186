"""The parts of a ``cbeal run`` report that differ for measured values (a regression run
with a tolerance): the data's values against the tolerance, the CbeAL run's prequential
errors, and the figures — the prediction error against the tolerance band, the labels
spent against the budget, and the learning curve against the labels spent."""

from __future__ import annotations

import math
from pathlib import Path

from cbeal.reports.document import Block
from cbeal.tablerun import UserRun
from cbeal.tablerun.equal_labels import SPENT_ENOUGH

__all__ = ["cbeal_blocks", "data_sentence", "equal_label_blocks", "figure_blocks", "figures"]


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
        f"value counts as right, in the unit of `{result.table.label}`){_rule(result)}, "
        f"{t.tolerance_share:.2f} standard deviations of the training values."
    )


def _rule(result: UserRun) -> str:
    if result.options.tolerance_rule != "default":
        return ""
    return (
        f"; the default: a quarter of the standard deviation of the {result.split.n_initial} "
        "measured values in D0 (give the `tolerance` to set your own)"
    )


def _ratio(x: float) -> str:
    return "never" if not math.isfinite(x) else f"{x:.2f}×"


def equal_label_blocks(result: UserRun) -> list[Block]:
    """Each method against random sampling with the same number of labels (lower RMSE is
    better), with the label ratio and a warning when a method spent under 80 % of its budget."""
    rows = result.stats.equal_labels
    if not rows:
        return []
    n = len(result.seeds)
    over = f"mean ± standard error over {n} seeds" if n > 1 else "one seed"
    table = [
        [
            r.method,
            f"{r.labels:.1f} ({100 * r.spent:.0f} %)",
            f"{r.rmse:.4g}",
            f"{r.random_rmse:.4g}",
            f"{r.difference:+.1f} %" + ("" if math.isnan(r.se) else f" ± {r.se:.1f}"),
            _ratio(r.label_ratio),
        ]
        for r in rows
    ]
    blocks: list[Block] = [
        ("h", 2, "Against random sampling with the same number of labels"),
        (
            "p",
            "Random sampling at equal labels: the same learner trained on D0 and as many "
            "stream rows as the method spent, drawn uniformly at random (one draw per seed). "
            "Lower RMSE is better: a negative difference means the method's choice of parts "
            f"beat chance ({over}). The label ratio is the labels after which the method's "
            f"learning curve reaches random sampling's RMSE with all {result.budget} labels "
            "and stays there, over the budget (median over the seeds; below 1× it saved "
            "labels).",
        ),
        (
            "table",
            [
                "method",
                "labels spent (of budget)",
                "RMSE",
                "random, same labels",
                "difference",
                "label ratio",
            ],
            table,
        ),
    ]
    low = [f"{r.method} ({100 * r.spent:.0f} %)" for r in rows if r.underspent]
    if low:
        blocks.append(
            (
                "p",
                f"**Warning:** {', '.join(low)} spent less than {100 * SPENT_ENOUGH:.0f} % of "
                "the budget; a comparison of final scores then compares fewer labels — the "
                "equal-label difference above does not.",
            )
        )
    return blocks


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
    from cbeal.plotting import plot_band_run, plot_learning_curves

    use = result.stats.budget
    fig = plot_band_run(
        result.trace,
        title=f"{result.name} on {result.table.path.name}",
        allowance=use.allowance,
        budget_label=_budget_label(result),
    )
    folder.mkdir(exist_ok=True)
    out = {"run": folder / "run.png"}
    fig.savefig(out["run"], dpi=110)
    if result.curves:
        full = result.scores.get("All Training Data")
        n = result.labels.get("All Training Data", 0)
        runs = [s for s in result.seeds if s.curves] or []
        by_method = {
            m: [(s.curves[m].labels, s.curves[m].rmse, s.curves[m].in_band) for s in runs]
            for m in result.curves
        }
        random = [s.uniform[result.budget] for s in runs if result.budget in s.uniform]
        curves = plot_learning_curves(
            by_method
            if runs
            else {m: (c.labels, c.rmse, c.in_band) for m, c in result.curves.items()},
            tolerance=float(result.options.tolerance or 0.0),
            reference=None
            if not full
            else (f"all {n} training labels", full["rmse"], full["in_band"]),
            random=(f"random sampling, {result.budget} labels", sum(random) / len(random))
            if random
            else None,
        )
        out["curve"] = folder / "curve.png"
        curves.savefig(out["curve"], dpi=110)
    return out


def _budget_label(result: UserRun) -> str:
    use = result.stats.budget
    allowed = f"{use.given} of the parts seen (a paced rate)" if use.paced else "a count"
    return f"allowed by the budget: {allowed if use.paced else f'{use.labels} labels ({allowed})'}"


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
                "Learning curves: the test RMSE (lower is better) and the share of test parts "
                "within tolerance of the learner trained on D0 and the first k labels each "
                "method asked for, against k"
                + (
                    f" — the mean over all {len(result.seeds)} seeds, with a band of ± one "
                    "standard error"
                    if len(result.seeds) > 1
                    else ""
                )
                + "; dashed, the learner trained on every training label; dotted, random "
                f"sampling with all {result.budget} labels.",
            ),
            ("img", "learning curves", found["curve"]),
        ]
    return blocks
