"""Platt-scaled SVM classifier, replacing ``SVC(probability=True)`` (deprecated in sklearn 1.9).

libsvm's own probability method on top of the public :class:`sklearn.svm.SVC` API: per class
pair, ``cv``-fold cross-validated decision values and Platt's sigmoid fitted by the Newton method
of Lin, Lin & Weng (2007), "A note on Platt's probabilistic outputs for support vector machines";
pairs combined by the second method of Wu, Lin & Weng (2004), "Probability estimates for
multi-class classification by pairwise coupling". Much faster on small pools than
``CalibratedClassifierCV(SVC(), ensemble=False)``.
"""

from __future__ import annotations

import copy
import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.svm import SVC
from sklearn.utils import Tags, check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from cbeal.core.exceptions import ParameterError

__all__ = ["PlattSVC"]

_MIN_PROB = 1e-7  # pairwise probabilities are clipped to [_MIN_PROB, 1 - _MIN_PROB], as libsvm


def _sigmoid(z: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(z))`` elementwise, without overflow."""
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, e, 1.0) / (1.0 + e)


def _platt_objective(dec: np.ndarray, target: np.ndarray, a: float, b: float) -> float:
    """Cross-entropy of the sigmoid ``(a, b)``, written so that no exp can overflow."""
    z = a * dec + b
    return float(np.sum(target * z - np.minimum(z, 0.0) + np.log1p(np.exp(-np.abs(z)))))


_FAST_FIT: Any = None  # libsvm's fit, once it has been checked to work; False: not usable


def _fast_binary_fit(
    k_train: np.ndarray, y01: np.ndarray, C: float, tol: float, weights: dict[int, float] | None
) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The fold SVMs without SVC's per-call input validation (≈ 90 % of a small fit's time).

    The inputs were validated once by :meth:`PlattSVC.fit`; this calls the libsvm binding
    that ``SVC.fit`` itself calls, with the arguments it would pass, and returns the duals
    with SVC's public sign convention. It is a private scikit-learn API: if it is missing or
    its signature changed, ``None`` tells the caller to use the public ``SVC`` instead (a
    test checks both paths agree exactly).
    """
    global _FAST_FIT
    if _FAST_FIT is False:
        return None
    if _FAST_FIT is None:
        try:
            from sklearn.svm import _libsvm

            _FAST_FIT = _libsvm.fit
        except ImportError:  # pragma: no cover - depends on the scikit-learn version
            _FAST_FIT = False
            return None
    class_weight = (
        np.empty(0) if weights is None else np.array([weights[0], weights[1]], dtype=np.float64)
    )
    try:
        support, _, _, dual, intercept, *_ = _FAST_FIT(
            np.ascontiguousarray(k_train), y01.astype(np.float64), svm_type=0,
            kernel="precomputed", C=C, tol=tol, class_weight=class_weight,
            sample_weight=np.empty(0), probability=0, random_seed=0,
        )  # fmt: skip
    except (TypeError, ValueError):  # pragma: no cover - a changed private signature
        _FAST_FIT = False
        return None
    # libsvm's binary duals and intercept have the opposite sign of SVC's public ones
    return support, -dual[0], -float(intercept[0])


def _fit_sigmoid(dec: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    """Fit ``P(positive | f) = 1 / (1 + exp(A f + B))`` to decision values `dec`.

    Platt's targets with the prior correction, minimised by Newton's method on (A, B) with a
    backtracking (Armijo) line search and a tiny ridge on the Hessian (Lin, Lin & Weng 2007).
    """
    n_pos = int(np.count_nonzero(positive))
    n_neg = positive.size - n_pos
    target = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    a, b = 0.0, math.log((n_neg + 1.0) / (n_pos + 1.0))
    obj = _platt_objective(dec, target, a, b)
    for _ in range(100):
        z = a * dec + b
        e = np.exp(-np.abs(z))
        resid = target - np.where(z >= 0, e, 1.0) / (1.0 + e)  # d obj / d z
        curv = e / (1.0 + e) ** 2  # d2 obj / d z2 = p (1 - p)
        g_a, g_b = float(dec @ resid), float(resid.sum())
        if abs(g_a) < 1e-5 and abs(g_b) < 1e-5:
            break
        h_aa = float((dec * dec) @ curv) + 1e-12
        h_ab = float(dec @ curv)
        h_bb = float(curv.sum()) + 1e-12
        det = h_aa * h_bb - h_ab * h_ab
        step_a = -(h_bb * g_a - h_ab * g_b) / det
        step_b = -(h_aa * g_b - h_ab * g_a) / det
        slope = g_a * step_a + g_b * step_b
        size = 1.0
        while size >= 1e-10:
            new_a, new_b = a + size * step_a, b + size * step_b
            new_obj = _platt_objective(dec, target, new_a, new_b)
            if new_obj < obj + 1e-4 * size * slope:
                a, b, obj = new_a, new_b, new_obj
                break
            size /= 2.0
        else:  # no sufficient decrease even for a tiny step: stop where we are
            break
    return a, b


def _pairs(n_classes: int) -> list[tuple[int, int]]:
    """Class pairs ``(i, j)``, ``i < j``, in libsvm's (and SVC's one-vs-one) order."""
    return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]


def _couple(r: np.ndarray, n_classes: int) -> np.ndarray:
    """Wu-Lin-Weng coupling; ``r[:, q]`` is P(i | i or j) for the q-th pair ``i < j``.

    Solves, row by row, the KKT system of ``min p^T Q p`` s.t. ``sum(p) = 1``. Only elementwise
    operations and a batched solve are used, so a row's result does not depend on the batch.
    """
    n = r.shape[0]
    rr = np.empty((n, n_classes, n_classes))  # rr[:, i, j] = P(i | i or j)
    for q, (i, j) in enumerate(_pairs(n_classes)):
        rr[:, i, j], rr[:, j, i] = r[:, q], 1.0 - r[:, q]
    kkt = np.zeros((n, n_classes + 1, n_classes + 1))
    for t in range(n_classes):
        for j in range(n_classes):
            if j != t:
                kkt[:, t, t] += rr[:, j, t] * rr[:, j, t]
                kkt[:, t, j] = -rr[:, j, t] * rr[:, t, j]
    kkt[:, :n_classes, n_classes] = 1.0
    kkt[:, n_classes, :n_classes] = 1.0
    rhs = np.zeros((n, n_classes + 1, 1))
    rhs[:, n_classes, 0] = 1.0
    p = np.maximum(np.linalg.solve(kkt, rhs)[:, :n_classes, 0], 0.0)
    total = p[:, 0].copy()
    for t in range(1, n_classes):
        total += p[:, t]
    return p / total[:, None]


class PlattSVC(ClassifierMixin, BaseEstimator):
    """SVM classifier with Platt-scaled probabilities, computed the way libsvm does.

    Replaces the deprecated ``SVC(probability=True)``, fast on small training sets: per class
    pair, Platt's sigmoid on ``cv``-fold cross-validated decision values; pairwise coupling for
    more than two classes; then the final :class:`~sklearn.svm.SVC` fitted on all data.
    Unlike ``SVC``, :meth:`predict` is the argmax of :meth:`predict_proba`, so the two are
    always consistent; :meth:`decision_function` is the SVC's. Pairwise probabilities are
    clipped to ``[1e-7, 1 - 1e-7]`` as in libsvm.

    Parameters
    ----------
    C, kernel, gamma, degree, coef0, class_weight, tol
        As in :class:`sklearn.svm.SVC`; ``gamma="scale"``/``"auto"`` is resolved once on the
        full training set and also used by the cross-validation models.
    cv
        Number of folds (>= 2). Folds are consecutive blocks of a random permutation of the
        pair's samples (not stratified, like libsvm). With fewer samples than ``cv``, one fold
        per sample; if one class of the pair has a single sample, in-sample decision values of
        the pair's SVM are used instead. A fold whose training part holds one class gets the
        constant decision value +1 or -1 (libsvm's convention).
    random_state
        Seeds the fold permutations (one drawn per pair, in pair order). An int gives
        identical probabilities on every fit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted class labels; the columns of :meth:`predict_proba`.
    svc_ : SVC
        The final SVM, fitted on all data.
    probA_, probB_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        Sigmoid parameters per class pair ``(i, j)``, ``i < j``, in libsvm's convention:
        ``P(i | i or j) = 1 / (1 + exp(probA_ * f + probB_))`` with ``f`` the one-vs-one
        decision value (positive for class ``i``), as ``SVC.probA_`` / ``SVC.probB_``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from cbeal.learners.platt_svm import PlattSVC
    >>> X, y = make_classification(n_samples=60, n_features=5, random_state=0)
    >>> clf = PlattSVC(random_state=0).fit(X, y)
    >>> clf.predict_proba(X[:3]).round(2)
    array([[0.17, 0.83],
           [0.14, 0.86],
           [0.9 , 0.1 ]])
    >>> clf.predict(X[:3])
    array([1, 1, 0])
    """

    classes_: np.ndarray
    svc_: Any
    probA_: np.ndarray
    probB_: np.ndarray
    _ovo_svc: Any

    def __init__(
        self,
        *,
        C: float = 1.0,
        kernel: Any = "rbf",
        gamma: Any = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        class_weight: Any = None,
        tol: float = 1e-3,
        cv: int = 5,
        random_state: Any = None,
    ) -> None:
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.class_weight = class_weight
        self.tol = tol
        self.cv = cv
        self.random_state = random_state

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike) -> PlattSVC:
        """Fit the pairwise sigmoids by cross-validation, then the final SVC on all data."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        classes, y_idx = np.unique(y, return_inverse=True)
        if classes.size < 2:
            msg = "PlattSVC needs samples of at least two classes; got only one class"
            raise ParameterError(f"{msg} {classes.tolist()!r}")
        if not isinstance(self.cv, numbers.Integral) or isinstance(self.cv, bool) or self.cv < 2:
            raise ParameterError(f"cv must be an int >= 2, got {self.cv!r}")
        gamma = self.gamma
        if isinstance(gamma, str) and gamma in ("scale", "auto"):
            if gamma == "auto":
                gamma = 1.0 / X.shape[1]
            else:
                var = X.multiply(X).mean() - X.mean() ** 2 if sparse.issparse(X) else X.var()
                gamma = 1.0 / (X.shape[1] * var) if var != 0 else 1.0
        # the final SVC first: it validates the targets, C, kernel, gamma, degree, class_weight
        # and tol (and rejects an unknown kernel name before _gram sees it)
        self.svc_ = SVC(
            C=self.C, kernel=self.kernel, gamma=gamma, degree=self.degree, coef0=self.coef0,
            class_weight=self.class_weight, tol=self.tol,
        ).fit(X, y)  # fmt: skip
        self.classes_ = self.svc_.classes_
        gram = self._gram(X, gamma)
        weights = self.svc_.class_weight_ if self.class_weight is not None else None
        rng = check_random_state(self.random_state)
        sigmoids = []
        # inputs are validated above: skip the inner SVCs' re-validation (public config option)
        with config_context(assume_finite=True, skip_parameter_validation=True):
            for i, j in _pairs(classes.size):
                idx = np.flatnonzero((y_idx == i) | (y_idx == j))
                is_i = (y_idx[idx] == i).astype(np.int64)
                pair_weights = None if weights is None else {1: weights[i], 0: weights[j]}
                dec = self._cv_decisions(gram[np.ix_(idx, idx)], is_i, pair_weights, rng)
                sigmoids.append(_fit_sigmoid(dec, is_i == 1))
        self.probA_, self.probB_ = np.array(sigmoids).T.copy()
        if classes.size > 2:  # same fitted SVC, viewed with one-vs-one decision values
            self._ovo_svc = copy.copy(self.svc_).set_params(decision_function_shape="ovo")
        return self

    def _gram(self, X: Any, gamma: float) -> np.ndarray:
        """Kernel matrix of the training set, for the cross-validation SVMs."""
        kernel = self.kernel
        if kernel == "precomputed":
            return np.asarray(X.toarray() if sparse.issparse(X) else X)
        if callable(kernel):
            return np.asarray(kernel(X, X), dtype=np.float64)
        if sparse.issparse(X):
            return np.asarray(pairwise_kernels(
                X, metric=kernel, filter_params=True, gamma=gamma, degree=self.degree,
                coef0=self.coef0,
            ))  # fmt: skip
        # dense fast path (pairwise_kernels' input checks cost ~10x the computation here)
        dot = X @ X.T
        if kernel == "linear":
            return dot
        if kernel == "poly":
            return np.asarray((gamma * dot + self.coef0) ** self.degree)
        if kernel == "sigmoid":
            return np.tanh(gamma * dot + self.coef0)
        sq_norms = np.einsum("ij,ij->i", X, X)
        dist = np.maximum(sq_norms[:, None] + sq_norms[None, :] - 2.0 * dot, 0.0)
        np.fill_diagonal(dist, 0.0)
        return np.exp(-gamma * dist)

    def _cv_decisions(
        self, gram: np.ndarray, is_i: np.ndarray, weights: dict[int, float] | None, rng: Any
    ) -> np.ndarray:
        """Cross-validated decision values (positive for ``is_i == 1``) of a binary problem."""
        n, n_i = is_i.size, int(is_i.sum())
        if min(n_i, n - n_i) < 2:  # a one-sample class: in-sample decision values
            return self._binary_decisions(gram, is_i, weights, np.arange(n), np.arange(n))
        n_folds = max(2, min(int(self.cv), n))
        perm = rng.permutation(n)
        bounds = np.arange(n_folds + 1) * n // n_folds
        dec = np.empty(n)
        for f in range(n_folds):
            test = perm[bounds[f] : bounds[f + 1]]
            train = np.concatenate((perm[: bounds[f]], perm[bounds[f + 1] :]))
            n_i_train = int(is_i[train].sum())
            if n_i_train == train.size:
                dec[test] = 1.0
            elif n_i_train == 0:
                dec[test] = -1.0
            else:
                dec[test] = self._binary_decisions(gram, is_i, weights, train, test)
        return dec

    def _binary_decisions(
        self, gram: np.ndarray, is_i: np.ndarray, weights: Any, train: Any, test: Any
    ) -> np.ndarray:
        """Fit a precomputed-kernel SVM on `train`; decision values on `test` from its duals."""
        k_train = gram[np.ix_(train, train)]
        fitted = _fast_binary_fit(k_train, is_i[train], float(self.C), float(self.tol), weights)
        if fitted is None:  # the public path: same libsvm solve behind SVC's input checks
            svc = SVC(C=self.C, kernel="precomputed", tol=self.tol, class_weight=weights)
            svc.fit(k_train, is_i[train])
            fitted = (svc.support_, svc.dual_coef_[0], float(svc.intercept_[0]))
        support, coef, intercept = fitted
        return gram[np.ix_(test, train[support])] @ coef + intercept

    def _validate_for_predict(self, X: ArrayLike) -> Any:
        check_is_fitted(self)
        return validate_data(self, X, reset=False, accept_sparse="csr", dtype=np.float64)

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """The final SVC's ``decision_function`` (positive for ``classes_[1]`` if binary)."""
        X = self._validate_for_predict(X)
        return np.asarray(self.svc_.decision_function(X))

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``; rows sum to 1."""
        X = self._validate_for_predict(X)
        if self.classes_.size == 2:  # binary decision values are positive for classes_[1]
            f = -np.asarray(self.svc_.decision_function(X), dtype=np.float64)
            p0 = np.clip(_sigmoid(self.probA_[0] * f + self.probB_[0]), _MIN_PROB, 1 - _MIN_PROB)
            return np.column_stack((p0, 1.0 - p0))
        f = np.asarray(self._ovo_svc.decision_function(X), dtype=np.float64)
        r = np.clip(_sigmoid(f * self.probA_ + self.probB_), _MIN_PROB, 1 - _MIN_PROB)
        return _couple(r, self.classes_.size)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The most probable class (argmax of :meth:`predict_proba`, first class on ties)."""
        proba = self.predict_proba(X)
        return np.asarray(self.classes_[np.argmax(proba, axis=1)])
