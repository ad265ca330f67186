"""Notes a ``cbeal run`` report adds about the data and the scores (things a reader must know
before trusting a number)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.streams.table import Table
from cbeal.tablerun.split import Split

__all__ = ["data_notes", "looks_like_an_id", "score_notes"]


def data_notes(table: Table, split: Split, classes: np.ndarray) -> list[str]:
    notes = [split.initial_note] if split.initial_note else []
    unseen = sorted(set(np.unique(split.part("test")[1]).tolist()) - set(classes.tolist()))
    if unseen and classes.size:  # no classes: measured values (a regression run)
        notes.append(
            f"the test set holds classes never seen in training ({unseen}); no model "
            "can predict them."
        )
    if table.ignored:
        notes.append(
            f"non-numeric columns left out: {', '.join(table.ignored)} (encode them "
            "as numbers and name them in `features` to use them)."
        )
    ids = [
        name
        for name, col in zip(table.feature_names, table.X.T, strict=True)
        if looks_like_an_id(col)
    ]
    if ids:
        notes.append(
            f"feature(s) {', '.join(ids)} look like a row id or a counter (whole "
            "numbers, all distinct, in order); leave them out with `drop` unless they "
            "carry meaning."
        )
    return notes


def looks_like_an_id(col: np.ndarray) -> bool:
    """Whole, distinct, monotone values: a row number or counter, not a measurement."""
    if col.size < 20 or np.isnan(col).any() or not np.all(np.mod(col, 1) == 0):
        return False
    steps = np.diff(col)
    return bool(np.all(steps > 0) or np.all(steps < 0))


def score_notes(
    split: Split, positive: Any, preds: dict[str, np.ndarray], y_test: np.ndarray
) -> list[str]:
    """Warnings about the scores: too few positives to score, or suspiciously perfect ones."""
    notes = []
    if split.n_test and positive is not None:
        n_pos = int(np.sum(y_test == positive))
        if n_pos < 5:
            notes.append(
                f"the test set holds only {n_pos} row(s) of `{positive}`: F1, "
                "precision and recall rest on too few cases to compare methods; use a "
                "larger `test_fraction` or a time column that spreads the failures."
            )
    near_perfect = [
        m
        for m, p in preds.items()
        if p.size and np.mean(p == y_test) > 0.995 and np.unique(y_test).size > 1
    ]
    if near_perfect and positive is not None and np.mean(y_test == positive) < 0.5:
        notes.append(
            f"{', '.join(near_perfect)} classify the test set almost perfectly: check "
            "that no feature is derived from the label (e.g. failure-mode flags) and "
            "leave such columns out with `drop`."
        )
    return notes
