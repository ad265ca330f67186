"""Unsupervised preprocessing for real line data: median imputation, then standard scaling.

Real manufacturing data have missing sensor values and features on very different scales.
The distance-based agents and most learners need neither. The preprocessor is fitted on the
*inputs* of the training portion only — no labels, nothing from the test portion — so it
leaks nothing a plant would not know before its experts label anything.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.core.exceptions import ParameterError

__all__ = ["fit_preprocessor", "fitted_transform", "impute_scale_arrays"]


def fit_preprocessor(X_train: Any) -> Any:
    """A fitted scikit-learn pipeline: per-feature median imputation, then standard scaling.

    Features that are entirely missing in ``X_train`` are kept and become 0; constant
    features become 0 too (scikit-learn leaves their scale at 1). The result transforms any
    array with the same columns to finite float64.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, np.nan, 5.0], [3.0, np.nan, 5.0], [np.nan, np.nan, 5.0]])
    >>> pre = fit_preprocessor(X)
    >>> pre.transform(X).round(3)  # the NaN became the median 2.0
    array([[-1.225,  0.   ,  0.   ],
           [ 1.225,  0.   ,  0.   ],
           [ 0.   ,  0.   ,  0.   ]])
    """
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    shape = np.shape(X_train)
    if len(shape) != 2 or shape[0] == 0:
        raise ParameterError(f"fit_preprocessor needs a non-empty 2-D table, got shape {shape}")
    pipe = make_pipeline(
        SimpleImputer(strategy="median", keep_empty_features=True), StandardScaler()
    )
    return pipe.fit(X_train)  # a DataFrame keeps its column names for later checks


def fitted_transform(preprocessor: Any, X0: Any) -> Any:
    """`preprocessor` itself if it is already fitted, else a clone fitted on `X0`.

    A fitted transformer is used as it is (e.g. a scaler fitted on unlabelled history,
    which a plant has plenty of); an unfitted one learns from the inputs of ``D0`` only.
    """
    from sklearn.base import clone
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    if not hasattr(preprocessor, "transform"):
        raise ParameterError(
            f"preprocessor must be a scikit-learn transformer with a transform method, got "
            f"{type(preprocessor).__name__}; e.g. make_pipeline(SimpleImputer(), "
            "StandardScaler())"
        )
    try:
        check_is_fitted(preprocessor)
        return preprocessor
    except (NotFittedError, TypeError):
        return clone(preprocessor).fit(X0)


def impute_scale_arrays(transformer: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(fill, mean, scale)`` when `transformer` is a fitted imputer + standard scaler.

    Such a pipeline (:func:`fit_preprocessor`'s) then transforms one row in microseconds
    with ``(where(isnan(x), fill, x) - mean) / scale`` — the same arithmetic scikit-learn
    does, without its per-call input validation, which costs milliseconds per sample.
    None for any other transformer (it is then called as it is).
    """
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    if not isinstance(transformer, Pipeline) or len(transformer.steps) != 2:
        return None
    imputer, scaler = (step for _, step in transformer.steps)
    if not (type(imputer) is SimpleImputer and type(scaler) is StandardScaler):
        return None
    if imputer.add_indicator or not scaler.with_mean or not scaler.with_std:
        return None
    if not (imputer.keep_empty_features or not np.isnan(imputer.statistics_).any()):
        return None  # columns it would drop: let scikit-learn do it
    fill = np.asarray(imputer.statistics_, dtype=np.float64)
    if imputer.keep_empty_features:
        fill = np.where(np.isnan(fill), 0.0, fill)
    return fill, np.asarray(scaler.mean_, np.float64), np.asarray(scaler.scale_, np.float64)
