"""scikit-learn's estimator conventions for the stream models: tags and the fitted check.

The stream models live outside the scikit-learn layer; they get what scikit-learn's own
tools look for (``sklearn.base.is_classifier``, ``check_is_fitted``, ``except
sklearn.exceptions.NotFittedError``) from here.
"""

from __future__ import annotations

from sklearn.exceptions import NotFittedError as _SklearnNotFittedError
from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

from cbeal.core.exceptions import NotFittedError as _CbealNotFittedError

__all__ = ["NotFittedError", "classifier_tags"]


class NotFittedError(_CbealNotFittedError, _SklearnNotFittedError):
    """Raised by a stream model used before ``fit``: both cbeal's and scikit-learn's error."""


def classifier_tags(*, allow_nan: bool, string: bool, non_deterministic: bool) -> Tags:
    """Tags of a probabilistic classifier that reads 2-D inputs (and dicts, one at a time)."""
    return Tags(
        estimator_type="classifier",
        target_tags=TargetTags(required=True),
        classifier_tags=ClassifierTags(multi_class=True),
        non_deterministic=non_deterministic,
        input_tags=InputTags(allow_nan=allow_nan, string=string, categorical=string),
    )
