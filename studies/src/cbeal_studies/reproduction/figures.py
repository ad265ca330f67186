"""The paper's simulation figures: 3 (toy example), 4 (acquisitions, weights), 7 (reward), A1."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.catalog import learner as make_learner
from cbeal.simulation import simulate
from cbeal.simulation.trace import Trace
from cbeal.streams import make_stream
from cbeal_studies.reproduction.methods import METHODS
from cbeal_studies.reproduction.scenarios import scenario

__all__ = ["make_figures"]

TOY_METHODS = ("LD1", "SPF1", "RAL1", "CBEAL-2", "RS", "US", "DBALStream", "QBC-PYP")


def _run(name: str, data: Any, learner: str, seed: int) -> tuple[Any, Trace]:
    method = METHODS[name]
    assert method.build is not None
    model = method.build(make_learner(learner), data.budget, data.X_stream.shape[0], seed)
    model.fit(data.X0, data.y0)
    return model, simulate(model, data.X_stream, data.y_stream)


def figure_toy(path: Path, seed: int = 0) -> None:
    """Fig. 3: decision boundaries every 100 samples, p = 2, n = 500, pc = 10 %, B = 48."""
    import matplotlib.pyplot as plt
    from sklearn.linear_model import LogisticRegression

    from cbeal.plotting import plot_decision_boundaries

    data = make_stream(n=500, pc=0.10, ds=0.0, sp=0.0, p=2, random_state=seed)
    X_all = np.vstack([data.X0, data.X_stream])
    y_all = np.concatenate([data.y0, data.y_stream])
    truth = LogisticRegression().fit(X_all, y_all)
    fig, axes = plt.subplots(
        2, 4, figsize=(16, 8.2), sharex=True, sharey=True, layout="constrained"
    )
    for ax, name in zip(axes.flat, TOY_METHODS, strict=True):
        method = METHODS[name]
        assert method.build is not None
        model = method.build(LogisticRegression(), data.budget, data.X_stream.shape[0], seed)
        model.fit(data.X0, data.y0)
        bounds: list[tuple[int, np.ndarray, float]] = []
        acquired: list[int] = []
        for start in range(0, data.X_stream.shape[0], 100):
            sl = slice(start, start + 100)
            tr = simulate(model, data.X_stream[sl], data.y_stream[sl])
            acquired.extend(start + np.flatnonzero(tr.acquired))
            est = model.estimator_
            if est is not None:
                bounds.append((start + 100, est.coef_[0], float(est.intercept_[0])))
        acc = float(np.mean(model.predict(data.X_test) == data.y_test))
        plot_decision_boundaries(
            data.X_stream,
            data.y_stream,
            bounds,
            ax,
            truth=(truth.coef_[0], float(truth.intercept_[0])),
            acquired=np.asarray(acquired, dtype=int),
            title=f"{name}: test accuracy {acc:.1%}, {len(acquired)} labels",
        )
    for ax in axes.flat:  # shared axes: label the outer ones only
        ax.label_outer()
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="outside lower center", ncol=len(labels), fontsize=9, markerscale=2
    )
    fig.suptitle(
        "Toy example: two features, 500 samples, 10 % failures, budget 48 labels, "
        "logistic regression. Blue lines: the model's boundary after every 100 "
        "samples (darker = later)"
    )
    fig.savefig(path, dpi=110)
    plt.close(fig)


def figure_acquisitions(path: Path, path_no_ewma: Path, learner: str, seed: int = 0) -> None:
    """Fig. 4 (acquisition bars, CBEAL-6 weights) and A1 (weights without EWMA), scenario S02."""
    import matplotlib.pyplot as plt

    from cbeal.plotting import plot_acquisitions, plot_weights

    data = scenario("S02").data(seed, "v1")
    traces = {}
    accs = {}
    for name in (
        "LD1",
        "RAL1",
        "LD2",
        "RAL2",
        "SPF1",
        "RAL3",
        "CBEAL-2",
        "CBEAL-4",
        "CBEAL-6",
        "CBEAL-6 (no EWMA)",
    ):
        model, traces[name] = _run(name, data, learner, seed)
        accs[name] = float(np.mean(model.predict(data.X_test) == data.y_test))
    # one shared stream axis and constrained layout: panel (d) lines up with (a)-(c)
    fig, axes = plt.subplots(
        4,
        1,
        figsize=(11, 14),
        sharex=True,
        layout="constrained",
        gridspec_kw={"height_ratios": [1.3, 1.6, 1.0, 1.6]},
    )
    names = [f"{n} ({accs[n]:.1%})" for n in traces]
    labelled = dict(zip(names, traces.values(), strict=True))
    plot_acquisitions(
        {k: v for k, v in labelled.items() if k.startswith(("LD1", "RAL1", "CBEAL-2"))},
        axes[0],
        title="(a) pair 1 and CBEAL-2",
    )
    plot_acquisitions(
        {k: v for k, v in labelled.items() if k.startswith(("LD2", "RAL2", "SPF1", "RAL3"))},
        axes[1],
        title="(b) pairs 2 and 3",
    )
    plot_acquisitions(
        {k: v for k, v in labelled.items() if k.startswith(("CBEAL-4 ", "CBEAL-6 ("))},
        axes[2],
        title="(c) CBEAL-4 and CBEAL-6",
    )
    plot_weights(
        traces["CBEAL-6"],
        axes[3],
        title="(d) standardized weights of CBEAL-6 "
        "(share of the vote; flipped around 1/6 by the EWMA chart early on)",
    )
    for ax in axes[:-1]:
        ax.set_xlabel("")
    axes[-1].set_xlabel(
        "stream position (sample number); in (a)-(c) one tick per label, "
        "red: failure (positive), blue: pass"
    )
    fig.suptitle(
        "Scenario S02 (n = 1000, ds = 0 %, sp = 30 %, pc = 10 %), replication "
        f"{seed}\nwhen each method asked for labels; test accuracy in brackets"
    )
    fig.savefig(path, dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(11, 4))
    plot_weights(
        traces["CBEAL-6 (no EWMA)"],
        ax,
        title="CBEAL-6 with plain Exp4.P (no EWMA flipping), scenario S02",
    )
    fig.tight_layout()
    fig.savefig(path_no_ewma, dpi=110)
    plt.close(fig)


def figure_reward(path: Path, learner: str, seed: int = 0) -> None:
    """Fig. 7: cumulative reward of CBEAL-2/-4/-6 and the best exploitation agent, S01."""
    import matplotlib.pyplot as plt

    from cbeal.plotting import plot_cumulative_reward

    data = scenario("S01").data(seed, "v1")
    traces = {n: _run(n, data, learner, seed)[1] for n in ("CBEAL-2", "CBEAL-4", "CBEAL-6", "RAL3")}
    fig, ax = plt.subplots(figsize=(9, 4))
    plot_cumulative_reward(
        traces,
        ax,
        title="Cumulative reward, scenario S01 "
        "(n = 500, ds = 0 %, sp = 30 %, pc = 10 %)\n+1 per label the "
        "model had wrong, −0.5 per label it already had right",
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def make_figures(out: Path, learner: str = "svm", seed: int = 0) -> list[Path]:
    """Write the four figures as PNG into `out`; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    out.mkdir(parents=True, exist_ok=True)
    paths = [
        out / "fig3_toy.png",
        out / "fig4_acquisitions_weights.png",
        out / "figA1_weights_no_ewma.png",
        out / "fig7_cumulative_reward.png",
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        figure_toy(paths[0], seed)
        figure_acquisitions(paths[1], paths[2], learner, seed)
        figure_reward(paths[3], learner, seed)
    return paths
