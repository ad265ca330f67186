"""The rows of a table in stream order, split into D0, stream and test set, with the
preprocessing fitted on the training inputs only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cbeal.core import InvalidInputError
from cbeal.evaluation import choose_positive
from cbeal.learners import fit_preprocessor
from cbeal.streams.table import Table

__all__ = ["Split", "make_split", "positive_class"]


@dataclass(frozen=True, eq=False)
class Split:
    """Rows in stream order: raw values, the features after preprocessing, and the sizes.

    The stream models get the raw rows and the fitted ``preprocessor`` (so that a saved
    model takes raw rows of the user's file); the reference learners get ``Z``.
    """

    X: Any  # raw rows (a DataFrame with the feature names)
    Z: np.ndarray  # the same rows after the preprocessor
    y: np.ndarray
    preprocessor: Any
    n_initial: int
    n_stream: int
    n_test: int

    @property
    def n_train(self) -> int:
        return self.n_initial + self.n_stream

    def _bounds(self, name: str) -> tuple[int, int]:
        return {"initial": (0, self.n_initial), "stream": (self.n_initial, self.n_train),
                "train": (0, self.n_train), "test": (self.n_train, self.y.size)}[name]

    def part(self, name: str) -> tuple[Any, np.ndarray]:
        """Raw ``(X, y)`` of ``"initial"``, ``"stream"``, ``"train"`` or ``"test"``."""
        a, b = self._bounds(name)
        return self.X.iloc[a:b], self.y[a:b]

    def features(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Preprocessed ``(Z, y)`` of a part."""
        a, b = self._bounds(name)
        return self.Z[a:b], self.y[a:b]


def _sizes(n: int, *, initial: int, test_fraction: float) -> tuple[int, int, int]:
    if not 0.0 <= test_fraction < 1.0:
        raise InvalidInputError(f"`test_fraction` must be in [0, 1), got {test_fraction}; "
                                "e.g. 0.3 (or 0 to skip test metrics)")
    if initial < 1:
        raise InvalidInputError(f"`initial` must be at least 1 row, got {initial}; e.g. 10")
    n_test = max(1, round(test_fraction * n)) if test_fraction > 0 else 0
    n_stream = n - n_test - initial
    if n_stream < 1:
        raise InvalidInputError(
            f"too few rows: the file has {n}; the test set takes {n_test} (`test_fraction` "
            f"{test_fraction}) and D0 {initial} (`initial`), leaving {max(n_stream, 0)} for "
            "the stream. Lower `initial` or `test_fraction`, or use more rows."
        )
    return initial, n_stream, n_test


def make_split(table: Table, *, initial: int, test_fraction: float) -> Split:
    """Split the ordered rows and fit the preprocessing on the training inputs only."""
    import pandas as pd

    n0, n_stream, n_test = _sizes(table.n_rows, initial=initial, test_fraction=test_fraction)
    n_train = n0 + n_stream
    train_classes = np.unique(table.y[:n_train])
    if train_classes.size < 2:
        raise InvalidInputError(
            f"the training portion (the first {n_train} rows in time order) holds only class "
            f"{train_classes.tolist()[0]!r}; the other classes are all in the most recent rows. "
            "Lower `test_fraction` or use a longer history."
        )
    X = pd.DataFrame(table.X, columns=list(table.feature_names))
    pre = fit_preprocessor(X.iloc[:n_train])  # inputs only: no labels, no test rows
    return Split(X=X, Z=np.asarray(pre.transform(X)), y=table.y, preprocessor=pre,
                 n_initial=n0, n_stream=n_stream, n_test=n_test)


def positive_class(table: Table, split: Split, wanted: str | None) -> Any:
    """The class F1, precision and recall are about (default: the training minority)."""
    try:
        return choose_positive(split.y[: split.n_train], wanted)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{exc} (in column {table.label!r})") from None
