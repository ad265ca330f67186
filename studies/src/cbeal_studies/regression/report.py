"""Tables and figures of the regression benchmark (studies/REGRESSION.md): label ratios against
random sampling, final RMSE / MAE / in-band share, learning curves with the band."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.evaluation.regression import labels_to_reach

from .workloads import DEV, EVAL

__all__ = ["cell_table", "label_ratio", "load_runs", "write_report"]

DEV_REPLICATIONS = 2  # the development part was cut to replications 0-1 for time
DEV_CHOICE = "F:QBCR+EMCM"  # the candidate the rule chose (registered as CBEAL-R)


def load_runs(out: Path) -> list[dict[str, Any]]:
    path = out / "runs.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _mean_curve(runs: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """The replications' curves averaged at the label counts all of them reached."""
    n = min(len(r["curve"]) for r in runs)
    labels = np.array([r["curve"][i][0] for i in range(n) for r in runs[:1]])
    rmse = np.mean([[r["curve"][i][1] for i in range(n)] for r in runs], axis=0)
    return labels, rmse


def label_ratio(runs: list[dict[str, Any]], rs: list[dict[str, Any]]) -> float:
    """Labels the mean curve of `runs` needs to reach RS's mean final RMSE and stay at or
    below it, over RS's mean labels; ∞ when it never does."""
    target = float(np.mean([r["final"]["rmse"] for r in rs]))
    labels, rmse = _mean_curve(runs)
    need = labels_to_reach(labels, rmse, target + 1e-12)
    return math.inf if need is None else need / float(np.mean([r["labels"] for r in rs]))


def _cells(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, list[dict[str, Any]]]]:
    cells: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for r in rows:
        cells[(r["workload"], r["learner"])][r["strategy"]].append(r)
    return cells


def cell_table(rows: list[dict[str, Any]], part: tuple[str, ...]) -> dict[str, Any]:
    """Per strategy: label ratio per cell, its median, mean rank of final RMSE, means."""
    cells = {k: v for k, v in _cells(rows).items() if k[0] in part and "RS" in v}
    strategies = sorted({s for v in cells.values() for s in v})
    ratios: dict[str, dict[tuple[str, str], float]] = defaultdict(dict)
    ranks: dict[str, list[float]] = defaultdict(list)
    rel: dict[str, list[float]] = defaultdict(list)  # final RMSE in % of RS's, per cell
    for key, by in sorted(cells.items()):
        finals = {s: float(np.mean([r["final"]["rmse"] for r in runs])) for s, runs in by.items()}
        order = sorted(finals, key=finals.__getitem__)
        for s in finals:
            rel[s].append(100.0 * (finals[s] / finals["RS"] - 1.0))
        for s, runs in by.items():
            ratios[s][key] = label_ratio(runs, by["RS"])
            ranks[s].append(1 + order.index(s))
    summary = {}
    for s in strategies:
        runs = [r for k, v in cells.items() for r in v.get(s, [])]
        summary[s] = {
            "median_ratio": float(np.median(list(ratios[s].values()))),
            "mean_rank": float(np.mean(ranks[s])),
            "vs_rs": float(np.mean(rel[s])),
            "vs_rs_se": float(np.std(rel[s], ddof=1) / np.sqrt(len(rel[s])))
            if len(rel[s]) > 1
            else math.nan,
            "rmse": float(np.mean([r["final"]["rmse"] for r in runs])),
            "in_band": float(np.mean([r["final"]["in_band"] for r in runs])),
            "labels": float(np.mean([r["labels"] for r in runs])),
            "first_half": float(np.nanmean([r["first_half"] for r in runs])),
            "cpu_s": float(np.mean([r["cpu_s"] for r in runs])),
            "cells": len(ratios[s]),
        }
    return {"cells": sorted(cells), "ratios": ratios, "summary": summary}


def _fmt(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:.2f}"


def _markdown(table: dict[str, Any], title: str) -> str:
    head = ("| strategy | median label ratio | mean rank (final RMSE) | final RMSE vs RS (%) | "
            "final RMSE | in band | labels | first half | CPU s/run | cells |")  # fmt: skip
    lines = [f"### {title}", "", head, "|---|" + "---:|" * 9]
    summary = table["summary"]
    for s in sorted(summary, key=lambda k: (summary[k]["median_ratio"], summary[k]["mean_rank"])):
        v = summary[s]
        lines.append(
            f"| {s} | {_fmt(v['median_ratio'])} | {v['mean_rank']:.2f} | "
            f"{v['vs_rs']:+.1f} ± {v['vs_rs_se']:.1f} | {v['rmse']:.3f} | "
            f"{v['in_band']:.3f} | {v['labels']:.1f} | {v['first_half']:.2f} | "
            f"{v['cpu_s']:.1f} | {v['cells']} |"
        )
    cells = table["cells"]
    lines += ["", "Label ratio per cell (labels to reach RS's final RMSE / RS's labels):", "",
              "| strategy | " + " | ".join(f"{w} / {lrn}" for w, lrn in cells) + " |",
              "|---|" + "---:|" * len(cells)]  # fmt: skip
    for s in sorted(summary):
        row = [_fmt(table["ratios"][s].get(c, math.nan)) for c in cells]
        lines.append(f"| {s} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def _figure(rows: list[dict[str, Any]], part: tuple[str, ...], path: Path, name: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = {k: v for k, v in _cells(rows).items() if k[0] in part and "RS" in v}
    keys = sorted(cells)
    cols = 5
    fig, axes = plt.subplots(math.ceil(len(keys) / cols), cols, figsize=(3.2 * cols, 6.4),
                             squeeze=False)  # fmt: skip
    for ax, key in zip(axes.ravel(), keys, strict=False):
        by = cells[key]
        tol = float(np.mean([r["tolerance"] for r in by["RS"]]))
        for s, runs in sorted(by.items()):
            labels, rmse = _mean_curve(runs)
            ax.plot(labels, rmse, label=s, lw=2.2 if s in ("RS", name) else 0.9,
                    color="black" if s == "RS" else None)  # fmt: skip
        target = float(np.mean([r["final"]["rmse"] for r in by["RS"]]))
        ax.axhline(target, color="black", ls=":", lw=0.8)
        ax.axhspan(0, tol, color="tab:green", alpha=0.12)
        ax.set_title(f"{key[0]} / {key[1]}", fontsize=8)
        ax.set_xlabel("labels spent", fontsize=7)
        ax.set_ylabel("test RMSE", fontsize=7)
        ax.tick_params(labelsize=6)
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 5), fontsize=7)
    reps = len({r["replication"] for r in rows if r["workload"] in part})
    fig.suptitle(f"Test RMSE against labels spent (mean of {reps} replications; thick: RS "
                 f"and {name or 'none'}); dotted: RS's final RMSE; green: RMSE below the "
                 "tolerance", fontsize=8)  # fmt: skip
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(out: Path, recommended: str = "CBEAL-R") -> str:
    """Write ``tables.md`` and the learning-curve figures of each part; returns the tables."""
    rows = load_runs(out)
    text = ""
    for part, title in ((DEV, "Development part"), (EVAL, "Evaluation part")):
        if part == DEV:  # cut for time to replications 0-1 (studies/REGRESSION.md)
            rows = [r for r in load_runs(out) if r["replication"] < DEV_REPLICATIONS]
        else:
            rows = load_runs(out)
        table = cell_table(rows, part)
        if not table["cells"]:
            continue
        text += _markdown(table, title) + "\n"
        chosen = DEV_CHOICE if part == DEV else recommended
        _figure(rows, part, out / f"curves_{'dev' if part == DEV else 'eval'}.png", chosen)
    (out / "tables.md").write_text(text)
    return text
