"""Ranks, paired wins and the issue's goal checks from the suite's result rows.

Everything is computed per *cell* (workload × learner × budget share) on the mean over the
replications; a strategy is compared with another on the cells both ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Goal", "cell_table", "critical_difference", "goal", "mean_ranks", "paired"]

CELL = ["workload", "learner", "budget_share"]


def cell_table(
    frame: Any, metric: str = "balanced_accuracy", names: Sequence[str] | None = None
) -> Any:
    """Cells × strategies: the mean of `metric` over the replications (stream runs only).

    Cells where some strategy of `names` is missing are dropped, so every rank compares
    the same cells.
    """
    runs = frame[frame["budget_share"].notna()]
    if names is not None:
        runs = runs[runs["strategy"].isin(list(names))]
    table = runs.pivot_table(index=CELL, columns="strategy", values=metric, aggfunc="mean")
    if names is not None:
        table = table[[n for n in names if n in table.columns]]
    return table.dropna()


def mean_ranks(table: Any) -> Any:
    """Mean rank of each strategy over the cells (1 = best; ties share the average rank)."""
    return table.rank(axis=1, ascending=False, method="average").mean().sort_values()


def paired(table: Any, ref: str) -> Any:
    """`ref` against every other strategy: wins / ties / losses over cells and the mean
    difference of the metric with its standard error over cells."""
    import pandas as pd

    rows = []
    for other in table.columns:
        if other == ref:
            continue
        d = table[ref] - table[other]
        rows.append(
            {
                "strategy": other,
                "wins": int((d > 1e-12).sum()),
                "ties": int((d.abs() <= 1e-12).sum()),
                "losses": int((d < -1e-12).sum()),
                "mean_diff": float(d.mean()),
                "se": float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else np.nan,
            }
        )
    return pd.DataFrame(rows).set_index("strategy")


def critical_difference(k: int, n_cells: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of mean ranks for `k` strategies on `n_cells` cells.

    >>> round(critical_difference(10, 44), 3)
    2.042
    """
    from scipy.stats import studentized_range

    q = float(studentized_range.ppf(1 - alpha, k, np.inf)) / np.sqrt(2)
    return float(q * np.sqrt(k * (k + 1) / (6.0 * n_cells)))


@dataclass(frozen=True)
class Goal:
    """The issue's three goal checks for one strategy on one set of cells."""

    strategy: str
    n_cells: int
    rank: float
    best_rank: bool
    rank_position: int
    share_ge_best_agent: float
    share_above_rs: float

    @property
    def met(self) -> bool:
        return self.best_rank and self.share_ge_best_agent >= 0.6 and self.share_above_rs >= 0.9


def goal(table: Any, ref: str, agents: Sequence[str], rs: str = "RS") -> Goal:
    """Check `ref` on `table`: best mean rank of all its strategies; ≥ the best single agent
    of `agents` (chosen per cell, in hindsight) in ≥ 60 % of cells; above `rs` in ≥ 90 %."""
    ranks = mean_ranks(table)
    best_agent = table[[a for a in agents if a in table.columns]].max(axis=1)
    return Goal(
        strategy=ref,
        n_cells=len(table),
        rank=float(ranks[ref]),
        best_rank=bool(ranks.index[0] == ref),
        rank_position=int(list(ranks.index).index(ref)) + 1,
        share_ge_best_agent=float((table[ref] >= best_agent - 1e-12).mean()),
        share_above_rs=float((table[ref] > table[rs]).mean()),
    )
