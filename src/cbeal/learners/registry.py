"""Base learners by name, for the command line and experiment configs."""

from __future__ import annotations

from typing import Any

from cbeal.core.exceptions import ParameterError

__all__ = ["LEARNERS", "make_learner"]

LEARNERS = ("svm", "svm-libsvm", "logreg", "logreg-l1", "random-forest", "gradient-boosting")


def make_learner(name: str, *, random_state: Any = None) -> Any:
    """A fresh scikit-learn classifier with ``predict_proba`` by short name.

    ``svm`` is :class:`~cbeal.learners.PlattSVC` (Platt-scaled RBF SVM, the paper's base
    learner); ``svm-libsvm`` is ``SVC(probability=True)`` (deprecated in scikit-learn 1.9);
    ``logreg-l1`` is the L1-penalised logistic regression of the case study.

    >>> make_learner("logreg-l1")
    LogisticRegression(l1_ratio=1.0, solver='liblinear')
    """
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import SVC

    key = name.lower()
    if key == "svm":
        from cbeal.learners.platt_svm import PlattSVC

        return PlattSVC(random_state=random_state)
    if key == "svm-libsvm":
        return SVC(probability=True, random_state=random_state)
    if key == "logreg":
        return LogisticRegression(max_iter=1000)
    if key == "logreg-l1":
        return LogisticRegression(l1_ratio=1.0, solver="liblinear")
    if key == "random-forest":
        return RandomForestClassifier(n_estimators=100, random_state=random_state)
    if key == "gradient-boosting":
        return HistGradientBoostingClassifier(random_state=random_state)
    raise ParameterError(f"unknown learner {name!r}; choose one of {', '.join(LEARNERS)}")
