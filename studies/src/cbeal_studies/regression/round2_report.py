"""Tables of round 2 (studies/REGRESSION.md): each strategy against random sampling at equal
labels, per cell and over the cells, with budget spent and the label ratio."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.evaluation.regression import labels_to_reach

__all__ = ["cell_rows", "summary", "write_report"]


def _load(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _ratio(curve: list[list[float]], target: float, budget: int) -> float:
    labels = np.array([c[0] for c in curve])
    rmse = np.array([c[1] for c in curve])
    need = labels_to_reach(labels, rmse, target + 1e-12)
    return math.inf if need is None else need / budget


def cell_rows(rows: list[dict[str, Any]], cell_keys: tuple[str, ...]) -> dict[tuple, dict]:
    """Per cell (the values of `cell_keys`) and strategy: the equal-label difference (%),
    budget spent, label ratio and first-half share, each the mean over the cell's runs."""
    uniform = {
        (r["workload"], r["learner"], r["replication"], r["share"]): r["uniform"]
        for r in rows
        if r["strategy"] == "="
    }
    acc: dict[tuple, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["strategy"] == "=":
            continue
        u = uniform.get((r["workload"], r["learner"], r["replication"], r["share"]))
        if u is None:
            continue
        key = tuple(r[k] for k in cell_keys)
        acc[key][r["strategy"]].append((r, u))
    out: dict[tuple, dict] = {}
    for key, by in acc.items():
        out[key] = {}
        for s, runs in by.items():
            d = [100.0 * (r["rmse"] / u[r["labels"]] - 1.0) for r, u in runs]
            rs_final = float(np.mean([u[-1] for _, u in runs]))
            # the mean curve at the label counts every run reached
            n = min(len(r["curve"]) for r, _ in runs)
            curve = [
                [runs[0][0]["curve"][i][0], float(np.mean([r["curve"][i][1] for r, _ in runs]))]
                for i in range(n)
            ]
            budget = runs[0][0]["budget"]
            out[key][s] = {
                "d": float(np.mean(d)),
                "spent": float(np.mean([r["labels"] / r["budget"] for r, _ in runs])),
                "ratio": _ratio(curve, rs_final, budget),
                "first_half": float(np.nanmean([r["first_half"] for r, _ in runs])),
                "cpu": float(np.mean([r["cpu_s"] for r, _ in runs])),
            }
    return out


def summary(cells: dict[tuple, dict]) -> dict[str, dict[str, float]]:
    """Per strategy over the cells: mean ± s.e. of the difference, cells better, worst
    cell, least budget spent, median label ratio."""
    names = sorted({s for v in cells.values() for s in v})
    out = {}
    for s in names:
        vals = [v[s] for v in cells.values() if s in v]
        d = np.array([v["d"] for v in vals])
        out[s] = {
            "mean": float(d.mean()),
            "se": float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else math.nan,
            "better": int(np.sum(d < 0)),
            "cells": int(d.size),
            "worst": float(d.max()),
            "min_spent": float(min(v["spent"] for v in vals)),
            "spent": float(np.mean([v["spent"] for v in vals])),
            "median_ratio": float(np.median([v["ratio"] for v in vals])),
            "first_half": float(np.mean([v["first_half"] for v in vals])),
            "cpu": float(np.mean([v["cpu"] for v in vals])),
        }
    return out


def _fmt(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:.2f}"


def _table(cells: dict[tuple, dict], title: str) -> str:
    summ = summary(cells)
    lines = [f"### {title}", "",
             "| strategy | RMSE vs RS at equal labels (%) | better in | worst cell (%) | "
             "budget spent (least cell) | median label ratio | first half | CPU s/run |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for s in sorted(summ, key=lambda k: summ[k]["mean"]):
        v = summ[s]
        lines.append(
            f"| {s} | {v['mean']:+.1f} ± {v['se']:.1f} | {v['better']}/{v['cells']} | "
            f"{v['worst']:+.1f} | {100 * v['spent']:.0f} % ({100 * v['min_spent']:.0f} %) | "
            f"{_fmt(v['median_ratio'])} | {v['first_half']:.2f} | {v['cpu']:.1f} |"
        )
    keys = sorted(cells)
    lines += ["", "Per cell: RMSE vs RS at equal labels (%) / budget spent (%):", "",
              "| strategy | " + " | ".join(" / ".join(map(str, k)) for k in keys) + " |",
              "|---|" + "---:|" * len(keys)]  # fmt: skip
    for s in sorted(summ, key=lambda k: summ[k]["mean"]):
        row = [
            f"{cells[k][s]['d']:+.1f} / {100 * cells[k][s]['spent']:.0f}" if s in cells[k] else "–"
            for k in keys
        ]
        lines.append(f"| {s} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def write_report(out: Path) -> str:
    """``tables.md`` of round 2 from ``dev.jsonl`` and ``fresh.jsonl``; returns it."""
    dev = [r for r in _load(out / "dev.jsonl") if r["learner"] == "bayes-ridge"]
    text = ""
    if dev:
        cells = cell_rows(dev, ("workload", "replication"))
        text += _table(cells, "Development part (bayes-ridge, replications 0–1)") + "\n"
    fresh = _load(out / "fresh.jsonl")
    if fresh:
        cells = cell_rows(fresh, ("workload", "share"))
        text += _table(cells, "Fresh part (bayes-ridge, seeds 0–4; cell = table × budget)")
    (out / "tables.md").write_text(text)
    return text
