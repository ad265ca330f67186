"""Figures of the case study: scores against budget (like the paper's Fig. 5) and one run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cbeal.experiments.casestudy.report import REFERENCES, summarize
from cbeal.experiments.casestudy.runner import run_method
from cbeal.experiments.casestudy.studies import CASE_STUDIES

__all__ = ["figure_one_run", "figure_scores", "make_case_figures"]

PALETTE = ("C0", "C1", "C2", "C4", "C5", "C6", "C8", "C9")  # no red: All Training Data's
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
    for ax, (metric, title) in zip(axes, PANELS, strict=True):
        for j, name in enumerate(methods):
            sub = summary[summary["method"] == name].sort_values("budget_share")
            bold = name == "CBEAL-6"
            ax.errorbar(100 * sub["budget_share"] + 0.12 * (j - len(methods) / 2),
                        100 * sub[metric], yerr=100 * sub[f"{metric}_se"], capsize=2,
                        marker="o", ms=4 if bold else 3, lw=2.2 if bold else 1.0,
                        color="black" if bold else PALETTE[j % len(PALETTE)], label=name,
                        zorder=3 if bold else 2)
        # the paper's Fig. 5: Initial in black, All Training Data in red, dash-dotted
        for name, color in zip(REFERENCES, ("dimgray", "tab:red"), strict=True):
            ref = summary[summary["method"] == name]
            if ref.empty or metric not in ref:
                continue
            mean, se = 100 * float(ref[metric].iloc[0]), 100 * float(ref[f"{metric}_se"].iloc[0])
            ax.axhline(mean, color=color, ls="-.", lw=1.2, label=name)
            if np.isfinite(se):
                for edge in (mean - se, mean + se):
                    ax.axhline(edge, color=color, ls=":", lw=0.8)
        ax.set_title(title)
        ax.set_xlabel("budget (% of the stream)")
        ax.set_xticks(100 * np.array(sorted(b for b in summary["budget_share"] if b >= 0)))
        ax.set_ylabel("%")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8,
               frameon=False)
    first = runs[runs["study"] == study].iloc[0]
    fig.suptitle(f"{study}: {first['dataset']}, learner {first['learner']} — mean ± SE over "
                 f"{runs[runs['study'] == study]['replication'].nunique()} replications",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def figure_one_run(study_id: str, path: Path, *, replication: int = 0,
                   budget_share: float = 0.10) -> Path:
    """One CbeAL-6 run: when labels were asked, the standardized weights, spend vs budget."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from cbeal.plotting import plot_budget, plot_weights

    study = CASE_STUDIES[study_id]
    data = study.data(replication)
    budget = data.budget(budget_share)
    _, trace = run_method(study, "CBEAL-6", data, budget, study.seed(replication))
    fig, axes = plt.subplots(3, 1, figsize=(9, 7.5), sharex=True,
                             gridspec_kw={"height_ratios": [1, 2, 1.5]})
    _plot_asks(trace, axes[0])
    plot_weights(trace, axes[1], title="standardized agent weights (after EWMA flips)")
    plot_budget(trace, axes[2], title=f"label spend against the budget ({budget_share:.0%})")
    fig.suptitle(f"{study_id}: one CbeAL-6 run (replication {replication}, "
                 f"{int(data.y0.sum())} failure(s) in D0)", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _plot_asks(trace: Any, ax: Any) -> None:
    t = np.arange(len(trace))
    fails = trace.y_true == 1
    ax.vlines(t[fails], 0.0, 0.35, color="tab:orange", lw=0.6, label="failure in the stream")
    asked = trace.acquired
    ax.vlines(t[asked & ~fails], 0.45, 1.0, color="tab:blue", lw=0.8, label="asked: pass")
    ax.vlines(t[asked & fails], 0.45, 1.0, color="tab:red", lw=1.4, label="asked: failure")
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
