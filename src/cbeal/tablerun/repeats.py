"""Summaries over the seeds of a ``cbeal run`` with several `repeats`: mean ± standard error of each
score, and paired wins of CbeAL against each comparison method (same rows, same seed)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Paired", "mean_se", "paired"]


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error (sample SD / sqrt(n)); the SE is NaN for a single value.

    >>> mean_se([0.5, 0.7, 0.6])
    (0.6, 0.0577...)
    """
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.nan
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


@dataclass(frozen=True)
class Paired:
    """How often `method` beat `other` on `metric` over the seeds (ties counted apart)."""

    method: str
    other: str
    metric: str
    wins: int
    ties: int
    losses: int

    @property
    def n(self) -> int:
        return self.wins + self.ties + self.losses

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "other": self.other,
            "metric": self.metric,
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
        }


def paired(
    seeds: Sequence[Any], method: str, other: str, metric: str, *, lower_better: bool = False
) -> Paired:
    """Count the seeds where `method` scored better than, equal to or worse than `other`
    (better: higher, or lower for an error such as RMSE with `lower_better`).

    `seeds` are :class:`cbeal.tablerun.SeedRun` objects (anything with ``.scores``).
    """
    wins = ties = losses = 0
    sign = -1.0 if lower_better else 1.0
    for run in seeds:
        a, b = sign * run.scores[method][metric], sign * run.scores[other][metric]
        if math.isclose(a, b, rel_tol=0.0, abs_tol=1e-12):
            ties += 1
        elif a > b:
            wins += 1
        else:
            losses += 1
    return Paired(method, other, metric, wins, ties, losses)
