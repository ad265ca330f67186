"""From what a user passes (arrays, DataFrames, dicts, raw rows) to the features the model sees.

The agents measure distances and the learner trains on the same feature vectors. Without
a preprocessor these are the user's numeric columns, which must be finite. With one
(any fitted scikit-learn transformer, or an unfitted one that learns from ``D0``), raw
rows — with missing values or text, if the transformer handles them — are transformed
first, and the agents measure distances in the transformer's output space.

Column names are recorded at ``fit`` (as scikit-learn's ``feature_names_in_``) and checked
on every call that brings names (a DataFrame, a Series, a dict): missing, extra or
reordered columns are refused rather than silently mismatched. Plain arrays are taken by
position.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cbeal.core.exceptions import InvalidInputError
from cbeal.core.validation import check_features, check_sample

__all__ = ["Inputs", "names_of"]

_FLOAT64 = np.dtype(np.float64)  # a native float vector's dtype is this very object

# Missing values without a preprocessor: say where an imputer has to go.
_IMPUTE = (
    " To impute them inside the model, give it a `preprocessor`, e.g. "
    "preprocessor=make_pipeline(SimpleImputer(), StandardScaler()); an imputer inside a "
    "Pipeline passed as the `estimator` comes too late, because the agents measure the "
    "features before the estimator sees them."
)


def _raw_features(X: Any, n_features: int | None, what: str) -> np.ndarray:
    """:func:`check_features` for a model without a preprocessor, pointing to one."""
    try:
        return check_features(X, n_features, what=what)
    except InvalidInputError as exc:
        if "NaN" not in str(exc):
            raise
        raise InvalidInputError(f"{exc}{_IMPUTE}") from None


def shape_of(X: Any) -> tuple[int, ...]:
    """The shape of a table without numpy's dispatch (which some array-likes refuse)."""
    shape = getattr(X, "shape", None)
    if shape is None:
        shape = np.asarray(X, dtype=object).shape
    return tuple(shape)


def names_of(X: Any) -> np.ndarray | None:
    """Column names of a DataFrame (or the index of a Series), when they are all strings."""
    if isinstance(X, dict):
        names = list(X)
    elif hasattr(X, "columns") and hasattr(X, "iloc"):
        names = list(X.columns)
    elif hasattr(X, "index") and hasattr(X, "iloc") and getattr(X, "ndim", 0) == 1:
        names = list(X.index)
    else:
        return None
    if not all(isinstance(n, str) for n in names):
        return None
    return np.asarray(names, dtype=object)


class Inputs:
    """The fitted input step of a stream model: column names, count and preprocessor."""

    def __init__(self, names: np.ndarray | None, n_features: int, transform: Any) -> None:
        self.names = names
        self.n_features = n_features
        self.transform = transform  # a fitted transformer, or None
        self.fast: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if transform is not None:
            from cbeal.learners.preprocess import impute_scale_arrays

            self.fast = impute_scale_arrays(transform)

    @classmethod
    def fit(cls, X0: Any, preprocessor: Any) -> tuple[Inputs, np.ndarray]:
        """Learn the input step from ``X0``; returns it and the features of ``X0``."""
        names = names_of(X0)
        if preprocessor is None:
            Z = _raw_features(X0, None, "X0")
            return cls(names, Z.shape[1], None), Z
        from cbeal.learners.preprocess import fitted_transform

        shape = shape_of(X0)
        if len(shape) != 2 or shape[0] == 0:
            raise InvalidInputError(f"X0 must be a non-empty 2-D table, got shape {shape}.")
        transform = fitted_transform(preprocessor, X0)
        inputs = cls(names, int(shape[1]), transform)
        return inputs, inputs._apply(X0, "X0")

    # ------------------------------------------------------------------ calls
    def rows(self, X: Any, what: str = "X") -> np.ndarray:
        """Features of a 2-D batch (array, DataFrame or list of dicts)."""
        if isinstance(X, (list, tuple)) and X and all(isinstance(r, dict) for r in X):
            X = self._table([self._dict_row(r) for r in X])
        else:
            self._check_names(names_of(X), what)
        if self.transform is None:
            return _raw_features(X, self.n_features, what)
        if len(shape_of(X)) != 2:
            raise InvalidInputError(
                f"{what} must be 2-D (n_samples, n_features); got shape {shape_of(X)}. "
                "Reshape your data with X.reshape(1, -1) for a single sample."
            )
        return self._apply(X, what)

    def row(self, x: Any) -> np.ndarray:
        """Features of one sample (vector, one-row table, Series or dict)."""
        if (
            type(x) is np.ndarray
            and self.transform is None
            and x.dtype is _FLOAT64
            and x.shape == (self.n_features,)
        ):  # the hot path: a finite float vector needs no more checks; its sum is finite only
            z = x.copy()  # if it is (or overflows, then the full check below decides)
            if math.isfinite(sum(z.tolist()) if z.shape[0] <= 64 else z @ z):
                return z
        if isinstance(x, dict):
            x = self._table([self._dict_row(x)])
        else:
            self._check_names(names_of(x), "x")
        if self.transform is None:
            return check_sample(x, self.n_features)
        arr_shape = shape_of(x)
        if len(arr_shape) == 1:
            x = (
                self._table([list(np.asarray(x, dtype=object))])
                if self.names is not None
                else np.asarray(x)[None, :]
            )
        elif len(arr_shape) != 2 or arr_shape[0] != 1:
            raise InvalidInputError(
                f"x must be one sample, a vector of {self.n_features} features; got shape "
                f"{arr_shape}. Stream samples one at a time (use query_many for a batch)."
            )
        return self._apply(x, "x")[0]

    # ------------------------------------------------------------------ helpers
    def _check_names(self, given: np.ndarray | None, what: str) -> None:
        if given is None or self.names is None:
            return
        if given.shape == self.names.shape and bool(np.all(given == self.names)):
            return
        want, got = list(self.names), list(given)
        missing = [n for n in want if n not in got]
        extra = [n for n in got if n not in want]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing {missing}")
            if extra:
                parts.append(f"not seen at fit {extra}")
            detail = "; ".join(parts)
        else:
            detail = f"the same columns in another order; expected {want}"
        raise InvalidInputError(
            f"the columns of {what} do not match those the model was fitted with: {detail}. "
            "Pass exactly the fitted columns (model.feature_names_in_), in that order."
        )

    def _dict_row(self, x: dict[str, Any]) -> list[Any]:
        if self.names is None:
            raise InvalidInputError(
                "a sample given as a dict needs column names, but the model was fitted on an "
                "array without them; fit it on a DataFrame, or pass the values as a list in "
                "the fitted column order."
            )
        if set(x) != set(self.names):  # a dict's order carries no meaning
            self._check_names(np.asarray(list(x), dtype=object), "x")
        return [x[n] for n in self.names]

    def _table(self, rows: list[list[Any]]) -> Any:
        """Rows as the kind of table the preprocessor was fitted on (a DataFrame if named)."""
        if self.transform is not None and self.names is not None:
            import pandas as pd

            return pd.DataFrame(rows, columns=list(self.names))
        return np.asarray(rows, dtype=object)

    def _apply(self, X: Any, what: str) -> np.ndarray:
        if self.fast is not None:
            raw = np.asarray(X)
            if raw.dtype.kind in "fiub" and raw.ndim == 2 and raw.shape[1] == self.n_features:
                fill, mean, scale = self.fast
                raw = raw.astype(np.float64)
                Z = (np.where(np.isnan(raw), fill, raw) - mean) / scale
                return check_features(Z, what=f"{what} after the preprocessor")
        try:
            Z = self.transform.transform(X)
        except Exception as exc:  # the user's transformer: say which input it refused
            raise InvalidInputError(
                f"the preprocessor could not transform {what}: {type(exc).__name__}: {exc}"
            ) from exc
        if hasattr(Z, "toarray"):
            Z = Z.toarray()
        return check_features(np.asarray(Z), what=f"{what} after the preprocessor")
