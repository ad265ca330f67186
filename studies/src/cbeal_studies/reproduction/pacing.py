"""What pacing the budget does: CBEAL-6 with the paper's total ``B`` against the same ``B``
spent at most at the rate ``B / n`` (:class:`~cbeal.core.LabelRate`), on the paper's grid.

Same scenarios, data seeds, learner and model seeds as the reproduction; only the budget
differs. Measured: test accuracy (paired by replication), the share of the budget spent in
the first half of the stream, where the last label was asked, and labels used.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.catalog import learner as make_learner
from cbeal.reports.provenance import git_sha
from cbeal.simulation import simulate
from cbeal_studies.reproduction.runner import RunConfig, run_grid
from cbeal_studies.reproduction.scenarios import SCENARIOS, scenario

__all__ = ["PACING_METHODS", "pacing_study"]

PACING_METHODS = ("CBEAL-6", "CBEAL-6 (paced)")


def pacing_study(
    out: Path,
    *,
    replications: int = 10,
    learner: str = "svm",
    generator: str = "v1",
    n_jobs: int = -1,
    progress: bool = True,
) -> Path:
    """Run the comparison into `out` (resumable) and write ``pacing.md`` and its figure."""
    import pandas as pd

    cfg = RunConfig(
        scenarios=tuple(s.id for s in SCENARIOS),
        replications=replications,
        methods=PACING_METHODS,
        generator=generator,
        learner=learner,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        csv = run_grid(cfg, out, n_jobs=n_jobs, progress=progress)
    runs = pd.read_csv(csv)
    figure = out / "pacing.png"
    _figure(runs, figure, generator, learner)
    report = out / "pacing.md"
    report.write_text(_report(runs, figure, learner, generator))
    return report


def _paired(runs: Any) -> Any:
    wide = runs.pivot_table(
        index=["scenario", "replication"],
        columns="method",
        values=["accuracy", "spent_first_half", "last_acquisition", "n_acquired", "budget", "n"],
    )
    return wide


def _report(runs: Any, figure: Path, learner: str, generator: str) -> str:
    w = _paired(runs)
    a, b = PACING_METHODS
    diff = (w["accuracy"][b] - w["accuracy"][a]) * 100
    n_stream = w["n"][a] - 20
    half = {m: w["spent_first_half"][m] / w["budget"][m] for m in PACING_METHODS}
    last = {m: w["last_acquisition"][m] / n_stream for m in PACING_METHODS}
    used = {m: w["n_acquired"][m] / w["budget"][m] for m in PACING_METHODS}
    k = len(diff)
    se = diff.std(ddof=1) / np.sqrt(k)
    by = diff.groupby(level="scenario")
    cells = by.mean()
    lines = [
        "# Pacing the budget: CBEAL-6 with a total vs a rate",
        "",
        f"Generator {generator}, learner {learner}, {k} paired runs (24 scenarios × "
        f"{k // 24} replications), cbeal git {git_sha()}. Both runs of a pair see the same "
        f"data, learner and seed; *total*: the paper's budget B; *paced*: "
        f"`LabelRate(rate=B/n, total=B)`, i.e. after t samples at most ⌊B·t/n⌋ labels.",
        "",
        "| | total B | paced |",
        "|---|---:|---:|",
        f"| budget spent in the first half of the stream | {100 * half[a].mean():.0f} % | "
        f"{100 * half[b].mean():.0f} % |",
        f"| last label asked at (share of the stream) | {100 * last[a].mean():.0f} % | "
        f"{100 * last[b].mean():.0f} % |",
        f"| budget used | {100 * used[a].mean():.1f} % | {100 * used[b].mean():.1f} % |",
        f"| test accuracy (mean) | {100 * w['accuracy'][a].mean():.1f} % | "
        f"{100 * w['accuracy'][b].mean():.1f} % |",
        "",
        f"Accuracy, paced − total: **{diff.mean():+.2f} ± {se:.2f} points** (mean ± SE over "
        f"{k} pairs); paced better in {int((diff > 0).sum())}, worse in "
        f"{int((diff < 0).sum())}, tied in {int((diff == 0).sum())} pairs; per scenario "
        f"(mean over replications) paced ahead in {int((cells > 0).sum())} of 24.",
        "",
        "| scenario | n | pc | ds | sp | total B | paced | paced − total (± SE) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    acc = w["accuracy"].groupby(level="scenario").mean() * 100
    for sid in cells.index:
        s = scenario(sid)
        d = by.get_group(sid)
        lines.append(
            f"| {sid} | {s.n} | {s.pc:.0%} | {s.ds:.0%} | {s.sp:.0%} | {acc.loc[sid, a]:.1f} | "
            f"{acc.loc[sid, b]:.1f} | {d.mean():+.1f} ± {d.std(ddof=1) / np.sqrt(len(d)):.1f} |"
        )
    lines += ["", f"![When labels are spent]({figure.name})", ""]
    return "\n".join(lines)


def _figure(runs: Any, path: Path, generator: str, learner: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from cbeal_studies.reproduction.methods import METHODS

    fig, axes = plt.subplots(1, 3, figsize=(12, 3.6), sharey=True)
    colours = {"CBEAL-6": "#444444", "CBEAL-6 (paced)": "#1f77b4"}
    labels = {"CBEAL-6": "total B (the paper)", "CBEAL-6 (paced)": "paced: at most B·t/n"}
    for ax, sid in zip(axes, ("S01", "S02", "S03"), strict=True):
        s = scenario(sid)
        data = s.data(0, generator)
        seed = s.seed(0, generator)
        n_stream = data.X_stream.shape[0]
        for name in PACING_METHODS:
            build = METHODS[name].build
            assert build is not None
            model = build(make_learner(learner), data.budget, n_stream, seed)
            trace = simulate(model.fit(data.X0, data.y0), data.X_stream, data.y_stream)
            ax.plot(
                np.arange(1, n_stream + 1),
                np.cumsum(trace.acquired),
                color=colours[name],
                label=labels[name],
            )
        ax.plot(
            [0, n_stream], [0, data.budget], color="#999999", ls=":", lw=1, label="even spending"
        )
        ax.set_title(f"{sid}: n = {s.n}, {s.pc:.0%} positives, budget {data.budget}")
        ax.set_xlabel("samples seen in the stream")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("labels asked so far")
    axes[0].legend(loc="lower right", fontsize=8)
    fig.suptitle("When CBEAL-6 spends its labels (replication 0)", y=1.02)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
