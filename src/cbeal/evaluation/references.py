"""The reference learners every comparison reports: "Initial" (trained on ``D0`` only) and
"All Training Data" (trained on every training label, as if the expert labelled all)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.learners.adapter import LearnerAdapter

__all__ = ["REFERENCES", "fit_reference"]

REFERENCES = ("Initial", "All Training Data")


def fit_reference(
    estimator: Any, classes: np.ndarray, seed: int, X: np.ndarray, y: np.ndarray
) -> LearnerAdapter:
    """The learner fitted once on labels `y` (values of `classes`), seeded as the stream
    models are; a single-class `y` predicts its class (spec §1).

    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> ref = fit_reference(LogisticRegression(), np.array([0, 1]), 0,
    ...                     np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1]))
    >>> ref.predict(np.array([[0.2], [2.8]])).tolist()
    [0, 1]
    """
    adapter = LearnerAdapter(estimator, classes, seed)
    return adapter.fit(X, np.searchsorted(classes, y), warn=False)
