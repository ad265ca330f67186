"""Figures of the case study: scores against budget (like the paper's Fig. 5) and one run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cbeal_studies.casestudy.report import REFERENCES, summarize
from cbeal_studies.casestudy.runner import run_method
from cbeal_studies.casestudy.studies import CASE_STUDIES

__all__ = ["figure_one_run", "figure_scores", "make_case_figures"]

# methods: no red (the failure colour) and no purple or grey (the two references)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#8c564b", "#17becf", "#bcbd22", "#e377c2")
MARKERS = ("o", "s", "^", "v", "D", "P", "X")  # a second cue where colours are close
REFERENCE_COLORS = {"Initial": "#7f7f7f", "All Training Data": "#6a3d9a"}
PANELS = (
    ("train_accuracy", "training accuracy"),
    ("test_accuracy", "test accuracy"),
    ("test_balanced_accuracy", "test balanced accuracy"),
    ("test_recall", "test recall of failures"),
)


def figure_scores(runs: pd.DataFrame, study: str, path: Path) -> Path:
    """Mean ± SE of four scores against the budget; Initial and All Training Data as lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = summarize(runs[runs["study"] == study])
    fig, axes = plt.subplots(1, len(PANELS), figsize=(4.2 * len(PANELS), 3.6), sharex=True)
    methods = [m for m in dict.fromkeys(summary["method"]) if m not in REFERENCES]
    others = [m for m in methods if m != "CBEAL-6"]  # CbeAL-6 is black and bold
    for ax, (metric, title) in zip(axes, PANELS, strict=True):
        for j, name in enumerate(methods):
            sub = summary[summary["method"] == name].sort_values("budget_share")
            bold = name == "CBEAL-6"
            k = others.index(name) if not bold else 0
            ax.errorbar(
                100 * sub["budget_share"] + 0.12 * (j - len(methods) / 2),
                100 * sub[metric],
                yerr=100 * sub[f"{metric}_se"],
                capsize=2,
                marker="o" if bold else MARKERS[k % len(MARKERS)],
                ms=4 if bold else 3.5,
                lw=2.2 if bold else 1.0,
                color="black" if bold else PALETTE[k % len(PALETTE)],
                label=name,
                zorder=3 if bold else 2,
            )
        # the references do not depend on the budget: a dash-dotted line at the mean and a
        # shaded band of ± one standard error, each named in the legend
        for name in REFERENCES:
            ref = summary[summary["method"] == name]
            if ref.empty or metric not in ref:
                continue
            color = REFERENCE_COLORS[name]
            mean, se = 100 * float(ref[metric].iloc[0]), 100 * float(ref[f"{metric}_se"].iloc[0])
            ax.axhline(mean, color=color, ls="-.", lw=1.3, label=f"{name} (mean)")
            if np.isfinite(se):
                ax.axhspan(
                    mean - se, mean + se, color=color, alpha=0.15, lw=0, label=f"{name} ± SE"
                )
        ax.set_title(title)
        ax.set_xlabel("budget (% of the stream)")
        ax.set_xticks(100 * np.array(sorted(b for b in summary["budget_share"] if b >= 0)))
        ax.set_ylabel("%")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="lower center", ncol=(len(labels) + 1) // 2, fontsize=8, frameon=False
    )
    first = runs[runs["study"] == study].iloc[0]
    fig.suptitle(
        f"{study}: {first['dataset']}, learner {first['learner']} — mean ± SE over "
        f"{runs[runs['study'] == study]['replication'].nunique()} replications; "
        "the references use no budget (Initial: D0 only; All Training Data: every "
        "training label)",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def figure_one_run(
    study_id: str, path: Path, *, replication: int = 0, budget_share: float = 0.10
) -> Path:
    """One CbeAL-6 run: when labels were asked, the standardized weights, spend vs budget."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from cbeal.plotting import STREAM_AXIS, plot_budget, plot_weights

    study = CASE_STUDIES[study_id]
    data = study.data(replication)
    budget = data.budget(budget_share)
    _, trace = run_method(study, "CBEAL-6", data, budget, study.seed(replication))
    fig, axes = plt.subplots(
        3, 1, figsize=(9, 7.5), sharex=True, gridspec_kw={"height_ratios": [1, 2, 1.5]}
    )
    _plot_asks(trace, axes[0])
    plot_weights(trace, axes[1], title="standardized agent weights (after EWMA flips)")
    plot_budget(trace, axes[2], title=f"label spend against the budget ({budget_share:.0%})")
    for ax in axes[:-1]:
        ax.set_xlabel("")
    axes[-1].set_xlabel(STREAM_AXIS)
    fig.suptitle(
        f"{study_id}: one CbeAL-6 run (replication {replication}, "
        f"{int(data.y0.sum())} failure(s) in D0)",
        fontsize=10,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _plot_asks(trace: Any, ax: Any) -> None:
    from cbeal.plotting import FAILURE, PASS

    t = np.arange(len(trace))
    fails = trace.y_true == 1
    ax.vlines(t[fails], 0.0, 0.35, color=FAILURE, alpha=0.45, lw=0.6, label="failure in the stream")
    asked = trace.acquired
    ax.vlines(t[asked & ~fails], 0.45, 1.0, color=PASS, lw=0.8, label="asked: pass")
    ax.vlines(t[asked & fails], 0.45, 1.0, color=FAILURE, lw=1.4, label="asked: failure")
    ax.set_yticks([])
    ax.set_ylim(0, 1.35)  # room for the legend above the bars
    ax.set_title("when labels were asked (top) and where the failures were (bottom)")
    ax.legend(fontsize=7, loc="upper right", ncol=3)


def make_case_figures(results: Path, out: Path) -> list[Path]:
    """Both figures for every study in `results`; returns the files written."""
    runs = pd.read_csv(results)
    written = []
    for study in runs["study"].unique():
        written.append(figure_scores(runs, str(study), out / f"{study}_scores.png"))
        if str(study) in CASE_STUDIES and "CBEAL-6" in set(runs["method"]):
            written.append(figure_one_run(str(study), out / f"{study}_run.png"))
    return written
