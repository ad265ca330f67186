"""The suite's figures: a critical-difference-style rank chart, paired verdicts, and the two
appendix figures (analytic curves beside Monte Carlo with the real agents)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cbeal_studies.label_efficiency.analysis import critical_difference, mean_ranks, paired

__all__ = ["figure_appendix_comparison", "figure_appendix_ld", "figure_paired", "figure_ranks"]

_GROUP_COLOURS = {
    "agent": "tab:blue",
    "cbeal": "tab:grey",
    "baseline": "tab:green",
    "peer": "tab:orange",
    "recommended": "tab:red",
    "candidate": "tab:purple",
    "ablation": "tab:brown",
    "fusion": "tab:pink",
    "member": "tab:olive",
    "fusion2": "tab:cyan",
    "recommended-rate": "tab:red",
}


def figure_ranks(
    table: Any,
    groups: dict[str, str],
    path: Path,
    *,
    title: str,
    metric_label: str = "balanced accuracy",
) -> Path:
    """Mean rank of every strategy (1 = best) with Nemenyi's critical difference.

    Strategies whose mean rank lies within one critical difference of the best are not
    significantly worse than it (α = 0.05) and are drawn filled; the others hollow.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ranks = mean_ranks(table)
    k, n = table.shape[1], table.shape[0]
    cd = critical_difference(k, n)
    fig, ax = plt.subplots(figsize=(8.5, 0.28 * k + 1.6))
    y = np.arange(k)[::-1]
    best = float(ranks.iloc[0])
    ax.axvspan(
        best,
        best + cd,
        color="0.92",
        zorder=0,
        label=f"within one critical difference of the best (CD = {cd:.2f})",
    )
    for yi, (name, r) in zip(y, ranks.items(), strict=True):
        colour = _GROUP_COLOURS.get(groups.get(str(name), ""), "black")
        filled = r <= best + cd
        ax.plot(r, yi, "o", ms=7, color=colour, mfc=colour if filled else "white", zorder=3)
        weight = "bold" if groups.get(str(name)) == "recommended" else "normal"
        ax.text(r + 0.25, yi, f"{name}  ({r:.1f})", va="center", fontsize=8, fontweight=weight)
    ax.set_yticks([])
    ax.set_xlim(0.5, k + 4.5)
    ax.set_ylim(-1, k)
    ax.set_xlabel(f"mean rank over {n} cells by final {metric_label} (1 = best)")
    ax.set_title(title, fontsize=10)
    present = {groups.get(str(c), "") for c in table.columns}
    handles: list[Any] = [
        plt.Line2D([], [], marker="o", ls="", color=c, label=g)
        for g, c in _GROUP_COLOURS.items()
        if g in present
    ]
    handles.append(
        plt.Line2D(
            [],
            [],
            marker="o",
            ls="",
            color="black",
            mfc="white",
            label="hollow: significantly worse than the best",
        )
    )
    handles.append(
        plt.Rectangle(
            (0, 0), 1, 1, color="0.92", label=f"within one critical difference (CD = {cd:.2f})"
        )
    )
    ax.legend(handles=handles, fontsize=7, loc="upper right", frameon=True)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def figure_paired(table: Any, ref: str, path: Path, *, title: str) -> Path:
    """Cells where `ref` wins, ties and loses against each strategy, sorted by wins."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = paired(table, ref).sort_values("wins")
    fig, ax = plt.subplots(figsize=(8.5, 0.26 * len(p) + 1.4))
    y = np.arange(len(p))
    ax.barh(y, p["wins"], color="tab:green", label=f"{ref} better")
    ax.barh(y, p["ties"], left=p["wins"], color="0.75", label="tie")
    ax.barh(y, p["losses"], left=p["wins"] + p["ties"], color="tab:red", label=f"{ref} worse")
    ax.set_yticks(
        y,
        [
            f"{s}  ({d:+.1f} ± {e:.1f} pts)"
            for s, d, e in zip(p.index, 100 * p["mean_diff"], 100 * p["se"], strict=True)
        ],
        fontsize=7,
    )
    ax.axvline(len(table) / 2, color="black", lw=0.6, ls=":")
    ax.set_xlabel(
        f"cells (of {len(table)}); dotted line: half the cells\n"
        "label: mean difference ± s.e. of balanced accuracy, points"
    )
    ax.set_title(title, fontsize=10, pad=22)
    ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=3, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def figure_appendix_ld(res: dict[str, Any], path: Path) -> Path:
    """Appendix Fig. "LD_char": expected LD acquisition probability, analytic vs Monte Carlo."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ld = res["ld"]
    Ls, dist, ratios = ld["windows"], ld["distances"], ld["ratios"]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    colours = plt.cm.viridis(np.linspace(0, 0.9, len(Ls)))
    for i, (L, c) in enumerate(zip(Ls, colours, strict=True)):
        axes[0].plot(dist, ld["analytic_raw"][i], "--", color=c)
        axes[0].plot(dist, ld["mc_raw"][i], "o-", color=c, ms=4, label=f"L = {L}")
        axes[1].plot(dist, ld["analytic_capped"][i], "--", color=c)
        axes[1].plot(dist, ld["mc_capped"][i], "o-", color=c, ms=4, label=f"L = {L}")
        axes[2].plot(ratios, ld["ratio_analytic_capped"][i], "--", color=c)
        axes[2].plot(ratios, ld["ratio_mc_capped"][i], "o-", color=c, ms=4, label=f"L = {L}")
    axes[0].set_title("(a) uncapped E[lsf / (L δ)] (the appendix's quantity)", fontsize=9)
    axes[1].set_title("(b) what the agent acts on: E[min(1, lsf / (L δ))]", fontsize=9)
    axes[2].set_title("(c) as (b), ‖μ1 − μ2‖² = 4, varying σ2 / σ1", fontsize=9)
    for ax in axes[:2]:
        ax.set_xlabel("squared distance of the cluster centres ‖μ1 − μ2‖²")
    axes[2].set_xlabel("σ2 / σ1")
    axes[0].set_ylabel("expected acquisition probability")
    axes[1].axhline(1.0, color="grey", lw=0.6, ls=":")
    axes[2].axhline(1.0, color="grey", lw=0.6, ls=":")
    for ax in axes:
        ax.legend(fontsize=7, title="dashed: analytic\nsolid + dots: Monte Carlo", title_fontsize=7)
    fig.suptitle(
        "LD-Agent (q = 15, δ_L = 0.05, σ1 = 1): analytic approximation vs "
        "Monte Carlo with cbeal's LowDensityAgent",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def figure_appendix_comparison(res: dict[str, Any], path: Path) -> Path:
    """Appendix Fig. "LD_RAL_comp": LD (δ_L = 0.5) versus RAL (θ = 0.95) over L and distance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ld, comp = res["ld"], res["comparison"]
    Ls, dist = ld["windows"], ld["distances"]
    panels = [
        ("LD, appendix formula (uncapped)", comp["ld_analytic"]),
        ("LD agent, Monte Carlo (capped)", comp["ld_mc"]),
        ("RAL agent (θ = 0.95) on logistic regression, Monte Carlo", comp["ral_mc"]),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    for ax, (title, grid) in zip(axes, panels, strict=True):
        arr = np.asarray(grid).T  # rows: distances, columns: window sizes
        im = ax.imshow(
            arr,
            origin="lower",
            aspect="auto",
            cmap="magma",
            vmin=0.0,
            vmax=max(1.0, float(arr.max())),
        )
        for (r, c), v in np.ndenumerate(arr):
            ax.text(
                c,
                r,
                f"{v:.2f}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if v < 0.6 * max(1.0, float(arr.max())) else "black",
            )
        ax.set_xticks(range(len(Ls)), [str(v) for v in Ls])
        ax.set_yticks(range(len(dist)), [f"{v:g}" for v in dist])
        ax.set_xlabel("window size L (= labelled samples for RAL)")
        ax.set_ylabel("‖μ1 − μ2‖²")
        ax.set_title(title, fontsize=9)
        fig.colorbar(im, ax=ax, label="expected acquisition probability")
    fig.suptitle(
        "Exploration (LD) versus exploitation (RAL): probability of acquiring a "
        "sample of a cluster at distance ‖μ1 − μ2‖² (q = 15, σ1 = σ2 = 1)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path
