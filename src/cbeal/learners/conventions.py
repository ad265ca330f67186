"""scikit-learn's estimator conventions for the stream models: tags and the fitted check.

The stream models live outside the scikit-learn layer; they get what scikit-learn's own
tools look for (``sklearn.base.is_classifier``, ``check_is_fitted``, ``except
sklearn.exceptions.NotFittedError``) from here.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.exceptions import DataConversionWarning
from sklearn.exceptions import NotFittedError as _SklearnNotFittedError
from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags, TransformerTags, get_tags

from cbeal.core.exceptions import NotFittedError as _CbealNotFittedError

__all__ = ["NotFittedError", "classifier_tags", "column_or_1d"]


class NotFittedError(_CbealNotFittedError, _SklearnNotFittedError):
    """Raised by a stream model used before ``fit``: both cbeal's and scikit-learn's error."""


def classifier_tags(*, preprocessor: Any, non_deterministic: bool) -> Tags:
    """Tags of a probabilistic classifier that reads 2-D inputs (and dicts, one at a time).

    With a `preprocessor`, raw inputs may hold NaN and text, and sparse input when the
    preprocessor takes it. ``transform`` (the features the agents see) makes the stream
    models transformers too, in scikit-learn's eyes.
    """
    given = preprocessor is not None
    try:
        sparse = given and bool(get_tags(preprocessor).input_tags.sparse)
    except AttributeError:  # a duck-typed transformer without scikit-learn's tags
        sparse = False
    return Tags(
        estimator_type="classifier",
        target_tags=TargetTags(required=True),
        classifier_tags=ClassifierTags(multi_class=True),
        transformer_tags=TransformerTags(preserves_dtype=["float64"]),
        non_deterministic=non_deterministic,
        input_tags=InputTags(allow_nan=given, string=given, categorical=given, sparse=sparse),
    )


def column_or_1d(y: Any) -> Any:
    """`y` itself, or a column vector flattened with scikit-learn's DataConversionWarning."""
    shape = getattr(y, "shape", None)
    if shape is not None and len(shape) == 2 and shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it was flattened. "
            "Pass y as a 1-D array of labels, e.g. y.ravel().",
            DataConversionWarning,
            stacklevel=3,
        )
        return np.asarray(y)[:, 0]
    return y
