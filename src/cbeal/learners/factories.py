"""Fresh scikit-learn learners, one factory per learner: classifiers with
``predict_proba``, and regressors with a predictive spread (``predict(X, return_std=True)``).

Their short names (``svm``, ``logreg``, …) are resolved by :mod:`cbeal.catalog`; this
module only builds the estimators, so that scikit-learn stays in the learner layer.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "bayesian_ridge",
    "gaussian_process",
    "gradient_boosting",
    "logistic_regression",
    "logistic_regression_l1",
    "platt_svm",
    "random_forest",
    "rbf_bayesian_ridge",
    "svc_libsvm",
]


def platt_svm(random_state: Any = None) -> Any:
    """:class:`~cbeal.learners.PlattSVC`, the paper's Platt-scaled RBF SVM."""
    from cbeal.learners.platt_svm import PlattSVC

    return PlattSVC(random_state=random_state)


def svc_libsvm(random_state: Any = None) -> Any:
    """``SVC(probability=True)`` (deprecated in scikit-learn 1.9)."""
    from sklearn.svm import SVC

    return SVC(probability=True, random_state=random_state)


def logistic_regression(random_state: Any = None) -> Any:
    """Plain L2 logistic regression."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=1000)


def logistic_regression_l1(random_state: Any = None) -> Any:
    """The case study's L1-penalised logistic regression (two classes).

    >>> logistic_regression_l1()
    LogisticRegression(l1_ratio=1.0, solver='liblinear')
    """
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(l1_ratio=1.0, solver="liblinear")


def random_forest(random_state: Any = None) -> Any:
    """A random forest of 100 trees."""
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=100, random_state=random_state)


def gradient_boosting(random_state: Any = None) -> Any:
    """Histogram gradient boosting."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(random_state=random_state)


def bayesian_ridge(random_state: Any = None) -> Any:
    """Bayesian ridge regression: a linear model with its predictive spread.

    >>> bayesian_ridge()
    BayesianRidge()
    """
    from sklearn.linear_model import BayesianRidge

    return BayesianRidge()


def rbf_bayesian_ridge(random_state: Any = None) -> Any:
    """Bayesian ridge on 60 Nyström RBF features: a smooth non-linear model with a spread
    (the benchmark's non-linear learner, studies/REGRESSION.md)."""
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import BayesianRidge
    from sklearn.pipeline import make_pipeline

    seed = 0 if random_state is None else random_state
    return make_pipeline(Nystroem(n_components=60, random_state=seed), BayesianRidge())


def gaussian_process(random_state: Any = None) -> Any:
    """A Gaussian process (scaled RBF kernel plus noise, normalized target)."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    kernel = ConstantKernel() * RBF() + WhiteKernel()
    return GaussianProcessRegressor(kernel=kernel, normalize_y=True, random_state=random_state)
