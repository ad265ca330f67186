"""Regressors for the stream models: a fit of the learner with its predictive spread.

A regression stream needs, for every part, a prediction ``ŷ`` and how far off it may be
(the standard deviation ``σ`` of its predictive distribution). Estimators whose
``predict`` takes ``return_std`` give it themselves (``BayesianRidge``, ``ARDRegression``,
``GaussianProcessRegressor``); :class:`BootstrapRegressor` gives any other scikit-learn
regressor one, from a small committee of bootstrap refits.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone, is_classifier, is_regressor
from sklearn.utils.validation import check_is_fitted, check_random_state

from cbeal.core.exceptions import InvalidInputError, ParameterError, TaskError
from cbeal.learners.adapter import LearnerAdapter, pinned

__all__ = [
    "BootstrapRegressor",
    "QuantilePairRegressor",
    "RegressionAdapter",
    "has_spread",
    "is_regression",
]


def is_regression(estimator: Any) -> bool:
    """Whether `estimator` is a regressor (scikit-learn's tag, or a ``predict`` without
    ``predict_proba`` on something that is not a classifier)."""
    if estimator is None or not hasattr(estimator, "fit"):
        return False
    if _tagged(is_regressor, estimator):
        return True
    return (
        hasattr(estimator, "predict")
        and not hasattr(estimator, "predict_proba")
        and not _tagged(is_classifier, estimator)
    )


def _tagged(check: Any, estimator: Any) -> bool:
    """scikit-learn's tag check, False for a learner without tags (not a BaseEstimator,
    e.g. a river model behind cbeal's adapter): scikit-learn ≥ 1.6 raises for those."""
    try:
        return bool(check(estimator))
    except AttributeError:
        return False


def has_spread(estimator: Any) -> bool:
    """Whether ``estimator.predict`` takes ``return_std`` (a predictive spread of its own)."""
    target = estimator
    steps = getattr(estimator, "steps", None)
    if steps:  # a Pipeline passes return_std on to its last step
        target = steps[-1][1]
    try:
        return "return_std" in inspect.signature(target.predict).parameters
    except (TypeError, ValueError):
        return False


def _check_regressor(estimator: Any) -> None:
    if not is_regression(estimator):
        raise ParameterError(f"estimator must be a scikit-learn regressor here, got {estimator!r}")
    if not has_spread(estimator):
        raise TaskError(
            f"{type(estimator).__name__} gives no predictive spread, which the agents and the "
            "tolerance band need: use BayesianRidge or GaussianProcessRegressor, or wrap it "
            f"as cbeal.learners.BootstrapRegressor(estimator={type(estimator).__name__}(...))"
        )


class BootstrapRegressor(RegressorMixin, BaseEstimator):
    """Any scikit-learn regressor with a predictive spread from bootstrap refits.

    `n_members` clones of `estimator` are fitted on bootstrap resamples of the data; the
    prediction is their mean. ``predict(X, return_std=True)`` also gives the spread: the
    members' standard deviation (what the model does not know yet) combined with the
    out-of-bag mean squared error of the committee (the noise it cannot learn), so that
    the spread is on the scale of the error a part's prediction has.

    Parameters
    ----------
    estimator
        The regressor to resample; None = ``Ridge()``.
    n_members
        Committee size (≥ 2).
    random_state
        Seed of the resamples and of the members' own ``random_state``.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.learners import BootstrapRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(40, 1)); y = 2 * X[:, 0] + 0.1 * rng.normal(size=40)
    >>> model = BootstrapRegressor(n_members=5, random_state=0).fit(X, y)
    >>> mean, std = model.predict(np.array([[0.0], [5.0]]), return_std=True)
    >>> bool(std[1] > std[0])       # far from the data the members disagree
    True
    """

    def __init__(
        self, estimator: Any = None, *, n_members: int = 5, random_state: Any = None
    ) -> None:
        self.estimator = estimator
        self.n_members = n_members
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> BootstrapRegressor:
        """Fit the committee on bootstrap resamples of ``(X, y)``; returns self."""
        n_members = self.n_members
        if isinstance(n_members, bool) or not isinstance(n_members, (int, np.integer)):
            raise ParameterError(f"n_members must be a whole number ≥ 2, got {n_members!r}")
        if n_members < 2:
            raise ParameterError(f"n_members must be a whole number ≥ 2, got {n_members!r}")
        if self.estimator is None:
            from sklearn.linear_model import Ridge

            template: Any = Ridge()
        else:
            template = self.estimator
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
        rng = check_random_state(self.random_state)
        n = y.shape[0]
        members, oob_sum, oob_n = [], np.zeros(n), np.zeros(n)
        for _ in range(int(n_members)):
            rows = rng.randint(0, n, n)
            est = clone(template)
            if "random_state" in est.get_params():
                est.set_params(random_state=int(rng.randint(2**31 - 1)))
            est.fit(X[rows], y[rows])
            members.append(est)
            out = np.ones(n, dtype=bool)
            out[rows] = False
            if out.any():
                oob_sum[out] += est.predict(X[out])
                oob_n[out] += 1
        seen = oob_n > 0
        self.estimators_ = members
        self.oob_mse_ = (
            float(np.mean((oob_sum[seen] / oob_n[seen] - y[seen]) ** 2)) if seen.any() else 0.0
        )
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X: Any, return_std: bool = False) -> Any:
        """The committee's mean; with `return_std`, also the predictive spread."""
        check_is_fitted(self, "estimators_")
        X = np.asarray(X, dtype=np.float64)
        P = np.vstack([est.predict(X) for est in self.estimators_])
        mean = P.mean(axis=0)
        if not return_std:
            return mean
        return mean, np.sqrt(P.var(axis=0, ddof=1) + self.oob_mse_)


class QuantilePairRegressor(RegressorMixin, BaseEstimator):
    """A quantile regressor fitted at a low and a high quantile, with a predictive spread.

    Three clones of `estimator` are fitted: at the quantiles ``q``, ``0.5`` and ``1 − q``
    (``q = 0.1587`` by default, one normal standard deviation below the median). The
    prediction is the median; its spread is half the distance between the outer two,
    divided by the normal quantile of ``1 − q`` (so it is ``σ`` for normal errors), and
    it may differ from part to part (heteroscedastic) even for a linear model.

    Parameters
    ----------
    estimator
        A quantile regressor whose quantile is the parameter ``quantile`` (scikit-learn's
        ``QuantileRegressor``, ``HistGradientBoostingRegressor(loss="quantile")``) or
        ``alpha`` with ``loss="quantile"`` (``GradientBoostingRegressor``); None =
        ``QuantileRegressor(alpha=0.0)`` (linear, no penalty).
    q
        The lower quantile, in (0, 0.5).

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.learners import QuantilePairRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 1, size=(200, 1))
    >>> y = X[:, 0] + X[:, 0] * rng.normal(size=200)    # noise grows with x
    >>> mean, std = QuantilePairRegressor().fit(X, y).predict([[0.1], [0.9]], return_std=True)
    >>> bool(std[1] > 3 * std[0])
    True
    """

    def __init__(self, estimator: Any = None, *, q: float = 0.1587) -> None:
        self.estimator = estimator
        self.q = q

    def _at(self, template: Any, quantile: float) -> Any:
        est = clone(template)
        params = est.get_params()
        if "quantile" in params:
            return est.set_params(quantile=quantile)
        if params.get("loss") == "quantile" and "alpha" in params:
            return est.set_params(alpha=quantile)
        raise ParameterError(
            f"{type(template).__name__} has no quantile to set; use QuantileRegressor, "
            "HistGradientBoostingRegressor(loss='quantile') or "
            "GradientBoostingRegressor(loss='quantile')"
        )

    def fit(self, X: Any, y: Any) -> QuantilePairRegressor:
        """Fit the low, median and high quantile models; returns self."""
        q = self.q
        if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0.0 < q < 0.5:
            raise ParameterError(f"q must be a quantile in (0, 0.5), got {q!r}")
        if self.estimator is None:
            from sklearn.linear_model import QuantileRegressor

            template: Any = QuantileRegressor(alpha=0.0)
        else:
            template = self.estimator
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
        self.estimators_ = [self._at(template, p).fit(X, y) for p in (q, 0.5, 1.0 - q)]
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X: Any, return_std: bool = False) -> Any:
        """The median prediction; with `return_std`, also the spread."""
        from scipy.stats import norm

        check_is_fitted(self, "estimators_")
        X = np.asarray(X, dtype=np.float64)
        low, mid, high = (np.asarray(e.predict(X), dtype=np.float64) for e in self.estimators_)
        if not return_std:
            return mid
        z = float(norm.ppf(1.0 - float(self.q)))
        return mid, np.abs(high - low) / (2.0 * z)


class RegressionAdapter(LearnerAdapter):
    """One fit of a stream model's regressor, with its predictive spread.

    The regression counterpart of :class:`~cbeal.learners.LearnerAdapter` (same fit
    protocol: :meth:`fitted_on` gives a new adapter one version newer and leaves this one
    serving). :meth:`predict_dist` gives ``[ŷ, σ]`` per row.
    """

    def __init__(self, estimator: Any, seed: int) -> None:
        _check_regressor(estimator)
        self.template = clone(estimator)
        params = self.template.get_params()
        if "random_state" in params and params["random_state"] is None:
            self.template.set_params(random_state=seed)
        self.classes = np.empty(0)
        self.estimator_: Any = None
        self.single_class_ = None
        self.columns_ = np.empty(0, dtype=np.intp)
        self.linear_ = False
        self.version = 0
        self.n_trained = 0

    def fit(self, X: np.ndarray, y: np.ndarray, *, warn: bool = True) -> RegressionAdapter:
        """Train on the labelled pool (`y` the measured values)."""
        est = clone(self.template)
        with pinned():  # one BLAS/OpenMP thread, as for a classifier's refit
            est.fit(X, np.asarray(y, dtype=np.float64))
        self.version += 1
        self.n_trained = int(np.asarray(y).shape[0])
        self.estimator_ = est
        return self

    def fitted_on(self, X: np.ndarray, y: np.ndarray) -> RegressionAdapter:
        """A new adapter trained on (`X`, `y`), one version newer; self is unchanged."""
        new = object.__new__(RegressionAdapter)
        new.__dict__.update(self.__dict__)
        new.estimator_, new.n_trained = None, 0
        return new.fit(X, y, warn=False)

    def predict_dist(self, X: np.ndarray) -> np.ndarray:
        """``[ŷ, σ]`` per row: the prediction and its predictive standard deviation."""
        mean, std = self.estimator_.predict(X, return_std=True)
        out = np.column_stack(
            [np.asarray(mean, dtype=np.float64).ravel(), np.asarray(std, dtype=np.float64).ravel()]
        )
        if not np.isfinite(out).all():
            raise InvalidInputError(
                f"{type(self.estimator_).__name__} predicted a non-finite value or spread; "
                "check the inputs' scale (give the model a preprocessor that scales them)"
            )
        return out

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The predicted values."""
        return self.predict_dist(X)[:, 0]

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """A regressor has no class probabilities (raises :class:`~cbeal.core.TaskError`)."""
        raise TaskError(
            "this model's learner is a regressor: it predicts values, not class probabilities; "
            "use predict(X) or predict_spread(X)"
        )
