"""Every number a ``cbeal run`` report shows, computed once, in the run step.

:func:`cbeal.tablerun.execute` fills a :class:`RunStats` (the budget and what it allows at
each stream row, the data's class counts and gaps, each score as mean ± standard error over
the seeds, CbeAL's paired comparisons, the CbeAL run's own numbers); the report
(:mod:`cbeal.runreport`) only renders them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cbeal.catalog import describe_budget
from cbeal.core import Budget, LabelRate
from cbeal.simulation.trace import Trace
from cbeal.streams.table import Table
from cbeal.tablerun.repeats import Paired, mean_se, paired
from cbeal.tablerun.split import Split

__all__ = [
    "HEADLINE",
    "BudgetUse",
    "Comparison",
    "DataStats",
    "RunStats",
    "Score",
    "budget_use",
    "comparisons",
    "data_stats",
    "score_table",
]

#: The scores a comparison is judged on (those a run has: F1 and recall for two classes;
#: RMSE, MAE and the share within tolerance for measured values).
HEADLINE = ("balanced_accuracy", "f1", "recall", "macro_f1", "rmse", "mae", "in_band")
#: Scores where lower is better (errors).
LOWER_BETTER = frozenset({"rmse", "mae"})


@dataclass(frozen=True, eq=False)
class BudgetUse:
    """The budget of a run: as given, its meaning, and what it allows.

    ``allowance[t - 1]`` is the most labels a method may have spent after ``t`` stream
    rows: ``floor(rate · t)`` for a paced rate (it grows along the stream), the count for
    a count (all of it from the first row on).
    """

    given: str
    kind: str  # "paced rate" or "count"
    words: str
    labels: int
    n_stream: int
    share: float  # labels / n_stream
    allowance: np.ndarray

    @property
    def paced(self) -> bool:
        return self.kind == "paced rate"

    def to_dict(self) -> dict[str, Any]:
        return {
            "given": self.given,
            "meaning": self.kind,
            "in_words": self.words,
            "labels_allowed": self.labels,
            "share_of_stream": round(self.share, 6),
        }


def budget_use(given: str | float, spend: Budget, labels: int, n_stream: int) -> BudgetUse:
    """The budget `spend` (read from `given`) over `n_stream` rows, allowing `labels`.

    >>> from cbeal.core import as_budget
    >>> use = budget_use("10%", as_budget("10%").set_params(burst=0), 4, 40)
    >>> use.kind, use.allowance[[0, 9, 10, 39]].tolist()
    ('paced rate', [0, 1, 1, 4])
    >>> budget_use("10%", as_budget("10%"), 4, 40).allowance[[0, 9, 10, 39]].tolist()
    [5, 6, 6, 9]
    >>> budget_use("3", as_budget("3"), 3, 40).allowance[[0, 39]].tolist()
    [3, 3]
    """
    fresh = spend.clone().start()  # nothing spent: left(t) is the allowance after t rows
    allowance = np.array([fresh.left(t) for t in range(1, n_stream + 1)], dtype=np.int64)
    return BudgetUse(
        given=str(given),
        kind="paced rate" if isinstance(spend, LabelRate) else "count",
        words=describe_budget(spend, n_stream),
        labels=labels,
        n_stream=n_stream,
        share=labels / n_stream,
        allowance=allowance,
    )


@dataclass(frozen=True)
class DataStats:
    """Class counts per part of the rows, missing values, and how rare the positive class is."""

    classes: dict[str, dict[str, int]]  # "all", "train", "initial", "test": class → rows
    missing_share: float  # share of missing feature values among the training rows
    empty_columns: tuple[str, ...]  # features with no value in the training rows
    positive_share: float | None  # share of the positive class among the training rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "class_counts": self.classes,
            "missing_share_train": self.missing_share,
            "empty_columns": list(self.empty_columns),
            "positive_share_train": self.positive_share,
        }


def _counts(y: np.ndarray) -> dict[str, int]:
    values, sizes = np.unique(y, return_counts=True)
    return {str(k): int(v) for k, v in zip(values.tolist(), sizes.tolist(), strict=True)}


def data_stats(table: Table, split: Split, positive: Any, *, measured: bool = False) -> DataStats:
    """The data's numbers; no class counts for `measured` values (a regression run)."""
    X = table.X[: split.n_train]
    y_train = split.part("train")[1]
    parts = {"all": table.y, "train": y_train}
    parts |= {p: split.part(p)[1] for p in ("initial", "test")}
    return DataStats(
        classes={} if measured else {p: _counts(y) for p, y in parts.items()},
        missing_share=float(np.isnan(X).mean()) if X.size else 0.0,
        empty_columns=tuple(
            n for j, n in enumerate(table.feature_names) if X.shape[0] and np.isnan(X[:, j]).all()
        ),
        positive_share=None if positive is None else float(np.mean(y_train == positive)),
    )


@dataclass(frozen=True)
class Score:
    """One score of one method over the seeds: the values, their mean and standard error
    (NaN for a single seed).

    >>> Score.of([0.5, 0.7]).mean
    0.6
    """

    values: tuple[float, ...]
    mean: float
    se: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Score:
        mean, se = mean_se(values)
        return cls(tuple(values), mean, se)


def score_table(seeds: Sequence[Any]) -> dict[str, dict[str, Score]]:
    """Method → metric → :class:`Score` over the seeds (:class:`cbeal.tablerun.SeedRun`)."""
    if not seeds or not seeds[0].scores:
        return {}
    return {
        method: {k: Score.of([run.scores[method][k] for run in seeds]) for k in row}
        for method, row in seeds[0].scores.items()
    }


@dataclass(frozen=True)
class Comparison:
    """CbeAL (`method`) against `other`, seed by seed, on each headline score."""

    method: str
    other: str
    paired: tuple[Paired, ...]

    @property
    def verdict(self) -> str:
        """In words, counting each score once: ahead, behind, tied, or mixed."""
        wins = sum(p.wins > p.losses for p in self.paired)
        losses = sum(p.losses > p.wins for p in self.paired)
        n = len(self.paired)
        if wins == n:
            return "ahead on all of them"
        if losses == n:
            return "behind on all of them"
        if wins == losses == 0:
            return "tied on all of them"
        if losses == 0:
            return "ahead or tied"
        return "behind or tied" if wins == 0 else "mixed"


def comparisons(seeds: Sequence[Any], method: str, others: Sequence[str]) -> list[Comparison]:
    """CbeAL against each comparison method on the :data:`HEADLINE` scores it has."""
    if not seeds or not seeds[0].scores:
        return []
    keys = [k for k in HEADLINE if k in seeds[0].scores[method]]
    return [
        Comparison(
            method,
            other,
            tuple(paired(seeds, method, other, k, lower_better=k in LOWER_BETTER) for k in keys),
        )
        for other in others
    ]


@dataclass(frozen=True, eq=False)
class RunStats:
    """Everything a report of a ``cbeal run`` shows beyond the inputs (see module doc)."""

    budget: BudgetUse
    data: DataStats
    scores: dict[str, dict[str, Score]]  # empty without a test set
    comparisons: list[Comparison]
    cbeal: dict[str, Any]  # the CbeAL run (first seed): labels, rewards, flips
    weights: dict[str, float]  # CbeAL's final standardized weights
    control_chart: bool  # whether CbeAL's bandit flips weights with the EWMA chart
    fusion: str | None = None  # a score-fusion preset's weights ("equal", "evidence"), else None
    #: a regression run's methods against random sampling at equal labels (else empty)
    equal_labels: list[Any] = field(default_factory=list)


def cbeal_numbers(trace: Trace, budget: BudgetUse) -> tuple[dict[str, Any], dict[str, float]]:
    """The CbeAL run's summary (its budget in words) and final weights."""
    summary = {**trace.summary(), "budget": budget.words}
    final = trace.weights_after[-1] if len(trace) else np.full(len(trace.agent_names), math.nan)
    weights = {n: float(w) for n, w in zip(trace.agent_names, final, strict=True)}
    return summary, weights
