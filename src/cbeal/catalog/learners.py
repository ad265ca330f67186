"""Every learner a user can name, built by :mod:`cbeal.learners.factories`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cbeal.catalog._names import key, lookup
from cbeal.core.exceptions import ParameterError

__all__ = [
    "LEARNERS",
    "REGRESSORS",
    "LearnerEntry",
    "learner",
    "learner_entry",
    "regressor_entry",
]


@dataclass(frozen=True)
class LearnerEntry:
    """One learner: ``factory`` names a function of :mod:`cbeal.learners.factories`;
    ``max_classes`` is set for learners limited to two classes. Classifiers are listed in
    :data:`LEARNERS`, regressors (with a predictive spread) in :data:`REGRESSORS`."""

    name: str
    label: str
    description: str
    factory: str
    max_classes: int | None = None

    def build(self, random_state: Any = None) -> Any:
        """A fresh, unfitted scikit-learn estimator."""
        from cbeal.learners import factories

        return getattr(factories, self.factory)(random_state)

    def check_classes(self, n_classes: int) -> None:
        """Refuse a task with more classes than the learner handles."""
        if self.max_classes is not None and n_classes > self.max_classes:
            raise ParameterError(
                f"the learner {self.name!r} handles {self.max_classes} classes only, but the "
                f"labels hold {n_classes}; choose another learner: "
                + ", ".join(e.name for e in LEARNERS.values() if e.max_classes is None)
            )


_ENTRIES = [
    LearnerEntry(
        "logreg", "logistic regression", "L2-penalised logistic regression", "logistic_regression"
    ),
    LearnerEntry(
        "logreg-l1",
        "sparse logistic regression",
        "L1-penalised logistic regression (the paper's case study; two classes)",
        "logistic_regression_l1",
        max_classes=2,
    ),
    LearnerEntry(
        "svm",
        "support vector machine",
        "RBF SVM with Platt-scaled probabilities (the paper's learner)",
        "platt_svm",
    ),
    LearnerEntry(
        "svm-libsvm",
        "support vector machine (libsvm)",
        "SVC(probability=True), deprecated in scikit-learn 1.9",
        "svc_libsvm",
    ),
    LearnerEntry("random-forest", "random forest", "100 trees", "random_forest"),
    LearnerEntry(
        "gradient-boosting",
        "gradient boosting",
        "histogram gradient-boosted trees",
        "gradient_boosting",
    ),
]

#: Every learner by its short name.
LEARNERS: dict[str, LearnerEntry] = {e.name: e for e in _ENTRIES}

_REGRESSOR_ENTRIES = [
    LearnerEntry(
        "bayesian-ridge",
        "Bayesian ridge regression",
        "a linear model with its predictive spread (the default for a measured target)",
        "bayesian_ridge",
    ),
    LearnerEntry(
        "rbf-bayesian-ridge",
        "kernel Bayesian ridge regression",
        "Bayesian ridge on 60 RBF features: smooth and non-linear, with a spread",
        "rbf_bayesian_ridge",
    ),
    LearnerEntry(
        "gaussian-process",
        "Gaussian process",
        "RBF kernel plus noise, fitted by maximum likelihood (slow beyond a few thousand labels)",
        "gaussian_process",
    ),
]

#: Every regressor (a learner for a measured target, with a spread) by its short name.
REGRESSORS: dict[str, LearnerEntry] = {e.name: e for e in _REGRESSOR_ENTRIES}


def learner_entry(name: str) -> LearnerEntry:
    """The catalog entry of learner `name`.

    >>> learner_entry("SVM").label
    'support vector machine'
    """
    return lookup(LEARNERS, name, "learner")


def regressor_entry(name: str) -> LearnerEntry:
    """The catalog entry of regressor `name`.

    >>> regressor_entry("Bayesian-Ridge").factory
    'bayesian_ridge'
    """
    return lookup(REGRESSORS, name, "regressor")


def learner(name: str, *, random_state: Any = None) -> Any:
    """A fresh scikit-learn estimator by short name.

    >>> learner("logreg-l1")
    LogisticRegression(l1_ratio=1.0, solver='liblinear')
    >>> learner("bayesian-ridge")
    BayesianRidge()
    """
    if isinstance(name, str) and key(name) in {key(n) for n in REGRESSORS}:
        return regressor_entry(name).build(random_state)
    return learner_entry(name).build(random_state)
