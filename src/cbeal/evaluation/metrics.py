"""Test-set scores (numpy only): accuracy alone hides missed failures.

With 3 % failures a model that never flags one is 97 % accurate. Balanced accuracy (the
mean recall over the classes) and the positive class's F1, precision and recall show it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.core.exceptions import InvalidInputError

__all__ = ["METRIC_LABELS", "accuracy", "choose_positive", "scores"]

METRIC_LABELS = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced accuracy",
    "f1": "F1",
    "precision": "precision",
    "recall": "recall",
    "macro_f1": "macro-F1",
    "rmse": "RMSE",  # measured values (cbeal.core.regression.regression_scores)
    "mae": "MAE",
    "in_band": "within tolerance",
}


def choose_positive(y_train: np.ndarray, wanted: str | None) -> Any:
    """The positive class: `wanted` (matched as text) or the training minority class.

    Ties go to the last class in sorted order (1 rather than 0). With more than two classes
    and nothing wanted, there is no positive class (None).

    >>> choose_positive(np.array(["ok", "ok", "fail"]), None)
    'fail'
    >>> choose_positive(np.array([0, 1, 1, 0]), None), choose_positive(np.array([0, 1]), "0")
    (1, 0)
    """
    classes, counts = np.unique(y_train, return_counts=True)
    if wanted is not None:
        hits = [c for c in classes.tolist() if str(c) == str(wanted)]
        if not hits:
            raise InvalidInputError(
                f"the positive class {wanted!r} (`positive`) is not one of the training "
                f"classes {[str(c) for c in classes.tolist()]}"
            )
        return hits[0]
    if classes.size != 2:
        return None
    return classes.tolist()[int(np.flatnonzero(counts == counts.min())[-1])]


def accuracy(y_true: Any, y_pred: Any) -> float:
    """Share of correct predictions.

    >>> accuracy([0, 1, 1], [0, 1, 0])
    0.666...
    """
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def _prf(y_true: np.ndarray, y_pred: np.ndarray, cls: Any) -> tuple[float, float, float]:
    """Precision, recall and F1 of class `cls` (0 where undefined, as scikit-learn's default)."""
    tp = float(np.sum((y_pred == cls) & (y_true == cls)))
    n_pred, n_true = float(np.sum(y_pred == cls)), float(np.sum(y_true == cls))
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_true if n_true else 0.0
    f1 = 2 * tp / (n_pred + n_true) if n_pred + n_true else 0.0
    return precision, recall, f1


def scores(y_true: Any, y_pred: Any, *, positive: Any = None) -> dict[str, float]:
    """Accuracy, balanced accuracy, and F1/precision/recall of `positive` or macro-F1.

    Balanced accuracy averages the recall over the classes present in `y_true`; macro-F1
    averages F1 over the classes in `y_true` or `y_pred` (both as scikit-learn).

    >>> s = scores(np.array(["ok"] * 9 + ["fail"]), np.array(["ok"] * 10), positive="fail")
    >>> s["accuracy"], s["balanced_accuracy"], s["recall"]
    (0.9, 0.5, 0.0)
    >>> scores(np.array([0, 1, 2]), np.array([0, 1, 1]))["macro_f1"]
    0.555...
    """
    t, p = np.asarray(y_true), np.asarray(y_pred)
    if t.size == 0:
        return {}
    out = {
        "accuracy": float(np.mean(t == p)),
        "balanced_accuracy": float(np.mean([_prf(t, p, c)[1] for c in np.unique(t)])),
    }
    if positive is not None:
        precision, recall, f1 = _prf(t, p, positive)
        out.update(f1=f1, precision=precision, recall=recall)
    labels = np.unique(np.concatenate([t, p]))
    if positive is None or labels.size > 2:
        out["macro_f1"] = float(np.mean([_prf(t, p, c)[2] for c in labels]))
    return out
