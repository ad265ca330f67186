"""Input validation for the decision core: one place, numpy only, messages that say what to do."""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np

from cbeal.core.exceptions import InvalidInputError, ParameterError, UnknownLabelError

__all__ = [
    "MAX_REWARD",
    "check_features",
    "check_labels",
    "check_rewards",
    "check_sample",
    "check_seed",
    "label_index",
]

#: The largest size of the reward ρ+ and of the penalty ρ− (see :func:`check_rewards`).
MAX_REWARD = 100.0


def _as_float_array(X: Any, what: str) -> np.ndarray:
    if hasattr(X, "tocsr") or hasattr(X, "toarray"):  # scipy.sparse, without importing scipy
        raise InvalidInputError(
            f"{what} is a sparse matrix, and sparse input is not supported: the agents measure "
            "distances on dense rows. Pass X.toarray(), or give the model a preprocessor that "
            "turns sparse input into dense features."
        )
    arr = np.asarray(X)
    if arr.dtype.kind in "OUSV" or arr.dtype == bool:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"{what} must be numeric; got values of type {arr.dtype} that cannot be read "
                "as numbers. Encode categorical columns as numbers before streaming them."
            ) from None
    elif arr.dtype.kind == "c":
        raise InvalidInputError(
            f"Complex data not supported: {what} must hold real numbers, got {arr.dtype}."
        )
    elif arr.dtype.kind not in "fiu":
        raise InvalidInputError(f"{what} must be numeric, got dtype {arr.dtype}.")
    return np.asarray(arr, dtype=np.float64)


def _check_finite(arr: np.ndarray, what: str) -> None:
    if not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))
        where = tuple(int(i) for i in bad[0])
        raise InvalidInputError(
            f"{what} contains NaN or infinite values (first at index {where}). Impute or drop "
            "them before streaming (cbeal does not guess missing sensor values)."
        )


def check_features(X: Any, n_features: int | None = None, *, what: str = "X") -> np.ndarray:
    """A finite float64 2-D array of shape (n, p); `n_features` fixes p when given."""
    arr = _as_float_array(X, what)
    if arr.ndim == 1 and n_features is not None and arr.shape[0] == n_features:
        raise InvalidInputError(
            f"{what} must be 2-D (n_samples, n_features); got one sample of shape {arr.shape}. "
            "Reshape your data with X.reshape(1, -1) for a single sample."
        )
    if arr.ndim != 2:
        raise InvalidInputError(
            f"{what} must be 2-D (n_samples, n_features); got shape {arr.shape}."
        )
    if n_features is not None and arr.shape[1] != n_features:
        raise InvalidInputError(
            f"{what} has {arr.shape[1]} features, but cbeal is expecting {n_features} features "
            "as input (those of fit); pass the same feature columns, in the same order."
        )
    _check_finite(arr, what)
    return arr


def check_sample(x: Any, n_features: int) -> np.ndarray:
    """A single sample as a finite float64 vector of length `n_features` (a copy)."""
    arr = _as_float_array(x, "x")
    if arr.ndim == 2 and arr.shape[0] == 1:
        arr = arr[0]
    if arr.ndim != 1:
        raise InvalidInputError(
            f"x must be one sample, a vector of {n_features} features; got shape {arr.shape}. "
            "Stream samples one at a time (use simulate() for a whole array)."
        )
    if arr.shape[0] != n_features:
        raise InvalidInputError(
            f"x has {arr.shape[0]} features, but cbeal is expecting {n_features} features as "
            "input (those of fit); pass the same feature columns, in the same order."
        )
    _check_finite(arr, "x")
    return np.array(arr, dtype=np.float64, copy=True)


def check_labels(y: Any, n_samples: int | None = None) -> np.ndarray:
    """A 1-D label array (any hashable scalar type); length `n_samples` when given."""
    if y is None:
        raise InvalidInputError(
            "the model requires y to be passed, but the target y is None: give the label of "
            "every row of X0 (the initial labelled set)."
        )
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise InvalidInputError(f"y must be 1-D (n_samples,); got shape {arr.shape}.")
    if n_samples is not None and arr.shape[0] != n_samples:
        raise InvalidInputError(
            f"X and y have mismatched lengths: {n_samples} samples but {arr.shape[0]} labels."
        )
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise InvalidInputError("y contains NaN or infinite labels; drop unlabelled rows first.")
    if arr.dtype.kind == "O" and any(v is None for v in arr):
        raise InvalidInputError("y contains None labels; drop unlabelled rows first.")
    return arr


def label_index(classes: np.ndarray, y: Any) -> int:
    """Position of label `y` in `classes`, or a clear :class:`UnknownLabelError`."""
    if isinstance(y, (np.ndarray, np.generic)) and np.ndim(y) == 0:
        y = y.item()
    for i, c in enumerate(classes.tolist()):
        # "1" and 1 are different labels; 1 and 1.0 are the same
        if isinstance(c, str) == isinstance(y, str) and c == y:
            return i
    raise UnknownLabelError(
        f"label {y!r} is not one of the model's classes {classes.tolist()}. "
        "Declare every possible label up front with classes=[...] when you build the model."
    )


def check_seed(random_state: Any) -> np.random.Generator:
    """A numpy Generator from None, an int, a SeedSequence or a Generator (used as is)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer, np.random.SeedSequence)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, Sequence):
        return np.random.default_rng(list(random_state))
    raise InvalidInputError(
        f"random_state must be None, an int or a numpy Generator, got {type(random_state)}."
    )


def check_rewards(reward: Any, penalty: Any) -> tuple[float, float]:
    """``(ρ+, ρ−)`` as floats, checked: ``0 < ρ+ ≤ 100`` and ``−100 ≤ ρ− < 0``.

    Rewards enter Exp4.P unscaled (spec §2), as the exponent of the agents' weights, so
    their size sets how far one label moves the weights; beyond a hundred times the
    defaults a single label decides them, and near the float limits the arithmetic fails.

    >>> check_rewards(1, -0.5)
    (1.0, -0.5)
    >>> check_rewards(1e308, -1e308)
    Traceback (most recent call last):
    ...
    cbeal.core.exceptions.ParameterError: reward ρ+ must be a number in (0, 100], got 1e+308. ...
    """
    out = []
    for name, value, ok, bounds in (
        ("reward ρ+", reward, lambda v: 0.0 < v <= MAX_REWARD, "(0, 100]"),
        ("penalty ρ−", penalty, lambda v: -MAX_REWARD <= v < 0.0, "[-100, 0)"),
    ):
        number = isinstance(value, Real) and not isinstance(value, bool)
        if not (number and math.isfinite(float(value)) and ok(float(value))):
            raise ParameterError(
                f"{name} must be a number in {bounds}, got {value!r}. Rewards enter Exp4.P "
                "unscaled, so their size sets how far one label moves the agents' weights: "
                "keep them near the defaults (reward 1.0, penalty -0.5; the penalty must be "
                "negative for the RAL threshold update), and to make the weights move faster, "
                "raise the solver's step eta instead."
            )
        out.append(float(value))
    return out[0], out[1]
