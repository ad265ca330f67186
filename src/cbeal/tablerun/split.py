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
    requested_initial: int = 0  # `initial` as asked; n_initial may be larger (every class)
    initial_note: str | None = None  # how D0 was extended, or why it could not be

    @property
    def n_train(self) -> int:
        return self.n_initial + self.n_stream

    def _bounds(self, name: str) -> tuple[int, int]:
        return {
            "initial": (0, self.n_initial),
            "stream": (self.n_initial, self.n_train),
            "train": (0, self.n_train),
            "test": (self.n_train, self.y.size),
        }[name]

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
        raise InvalidInputError(
            f"`test_fraction` must be in [0, 1), got {test_fraction}; "
            "e.g. 0.3 (or 0 to skip test metrics)"
        )
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


def make_split(
    table: Table, *, initial: int, test_fraction: float, measured: bool = False
) -> Split:
    """Split the ordered rows and fit the preprocessing on the training inputs only.

    With class labels D0 is extended until it holds every class (:func:`extend_initial`);
    with `measured` values (a regression run) D0 is the first `initial` rows.
    """
    import pandas as pd

    n0, n_stream, n_test = _sizes(table.n_rows, initial=initial, test_fraction=test_fraction)
    n_train = n0 + n_stream
    note = None
    if not measured:
        train_classes = np.unique(table.y[:n_train])
        if train_classes.size < 2:
            raise InvalidInputError(
                f"the training portion (the first {n_train} rows in time order) holds only "
                f"class {train_classes.tolist()[0]!r}; the other classes are all in the most "
                "recent rows. Lower `test_fraction` or use a longer history."
            )
        n0, note = extend_initial(table.y[:n_train], n0)
    X = pd.DataFrame(table.X, columns=list(table.feature_names))
    pre = fit_preprocessor(X.iloc[:n_train])  # inputs only: no labels, no test rows
    return Split(
        X=X,
        Z=np.asarray(pre.transform(X)),
        y=table.y,
        preprocessor=pre,
        n_initial=n0,
        n_stream=n_train - n0,
        n_test=n_test,
        requested_initial=initial,
        initial_note=note,
    )


def extend_initial(y_train: np.ndarray, initial: int) -> tuple[int, str | None]:
    """D0's size: the first `initial` training rows, extended forward in time until D0 holds
    every class of the training rows — as long as at least half of them stay in the stream.

    Returns the size and a note (None when D0 already held every class). A one-class D0
    leaves the stream models predicting that class until the stream gives another, and
    uncertainty-based methods then never ask; hence the extension.

    >>> extend_initial(np.array(["ok"] * 12 + ["fail"] + ["ok"] * 20), 10)[0]
    13
    >>> extend_initial(np.array(["ok"] * 30 + ["fail"]), 10)[0]
    10
    """
    missing = [c for c in np.unique(y_train).tolist() if c not in set(y_train[:initial].tolist())]
    if not missing:
        return initial, None
    first = {c: int(np.flatnonzero(y_train == c)[0]) for c in missing}
    last = max(first, key=lambda c: first[c])
    need = first[last] + 1
    names = ", ".join(f"`{c}`" for c in missing)
    if need <= max(initial, y_train.size // 2):
        return need, (
            f"D0 was extended from the first {initial} to the first {need} training "
            f"rows so that it holds every class (the first `{last}` is training row "
            f"{need})."
        )
    return initial, (
        f"D0 (the first {initial} training rows) holds no {names}: the first "
        f"`{last}` is training row {need} of {y_train.size}, and extending D0 that "
        "far would leave less than half of the training rows for the stream. The "
        "stream models predict the classes D0 holds until the stream gives "
        "another, and uncertainty-based methods such as US may never ask."
    )


def positive_class(table: Table, split: Split, wanted: str | None) -> Any:
    """The class F1, precision and recall are about (default: the training minority)."""
    try:
        return choose_positive(split.y[: split.n_train], wanted)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{exc} (in column {table.label!r})") from None
