"""Unsupervised preprocessing for real line data: median imputation, then standard scaling.

Real manufacturing data have missing sensor values and features on very different scales.
The distance-based agents and most learners need neither. The preprocessor is fitted on the
*inputs* of the training portion only — no labels, nothing from the test portion — so it
leaks nothing a plant would not know before its experts label anything.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["fit_preprocessor"]


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

    X = np.asarray(X_train, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"fit_preprocessor needs a non-empty 2-D array, got shape {X.shape}")
    pipe = make_pipeline(
        SimpleImputer(strategy="median", keep_empty_features=True), StandardScaler()
    )
    return pipe.fit(X)
