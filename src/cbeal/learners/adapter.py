"""Wraps any scikit-learn classifier with ``predict_proba`` for the stream models.

This is the only layer that knows scikit-learn. It clones the user's estimator, seeds it,
refits it on the labelled pool, maps its probability columns onto the model's classes and
provides the single-class fallback of spec §1.

Every fit runs with the BLAS and OpenMP thread pools pinned to one thread (threadpoolctl):
a refit on a small pool gains nothing from threads, and on a machine whose cores are busy
(a line PC, a CI runner, the service's own requests) two threads per library oversubscribe
them, which made the logistic-regression benchmark 12× slower. ``CBEAL_FIT_THREADS`` asks
otherwise: a number of threads, or ``all`` for the libraries' own default.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.utils.extmath import softmax
from threadpoolctl import ThreadpoolController

from cbeal.core.exceptions import InvalidInputError, ParameterError, SingleClassWarning

__all__ = [
    "FIT_THREADS_ENV",
    "LearnerAdapter",
    "check_estimator_has_proba",
    "fit_threads",
    "pinned",
]

#: The environment variable that sets how many BLAS/OpenMP threads a fit may use.
FIT_THREADS_ENV = "CBEAL_FIT_THREADS"


def fit_threads() -> int | None:
    """BLAS/OpenMP threads a fit may use: 1 unless ``CBEAL_FIT_THREADS`` says otherwise
    (a whole number ≥ 1, or ``all``: None, the libraries' own default).

    >>> fit_threads()
    1
    """
    text = os.environ.get(FIT_THREADS_ENV, "").strip().lower()
    if not text:
        return 1
    if text == "all":
        return None
    if not text.isdigit() or int(text) < 1:
        raise ParameterError(
            f"the environment variable {FIT_THREADS_ENV} must be a number of threads ≥ 1 or "
            f"'all' (the libraries' default), got {text!r}"
        )
    return int(text)


class _Pinning:
    """Thread limits around fits, for any number of threads fitting at once.

    Scanning the loaded libraries costs about 2 ms, so the controller is kept until a new
    module was imported (which may have loaded another BLAS or OpenMP). A BLAS library's
    limit is process-wide: the first of overlapping fits sets it and the last restores it,
    from whichever thread (threadpoolctl ≥ 3.8 lets only one thread set OpenBLAS's limit;
    it is told to let this one). OpenMP's is per thread: every fitting thread sets and
    restores its own.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.controller: ThreadpoolController | None = None
        self.n_modules = -1
        self.fitting = 0
        self.blas: Any = None
        self.local = threading.local()

    def _controller(self) -> ThreadpoolController:
        if self.controller is None or len(sys.modules) != self.n_modules:
            self.controller = ThreadpoolController()
            self.n_modules = len(sys.modules)
        return self.controller

    @contextmanager
    def limited(self) -> Iterator[None]:
        threads = fit_threads()
        if threads is None or getattr(self.local, "on", False):
            yield
            return
        with self.lock:
            controller = self._controller()
            if self.fitting == 0:
                blas = controller.select(user_api="blas")
                _release(blas)
                self.blas = blas.limit(limits=threads)
                self.blas.__enter__()
            self.fitting += 1
        openmp = controller.select(user_api="openmp").limit(limits=threads)
        openmp.__enter__()
        self.local.on = True
        try:
            yield
        finally:
            self.local.on = False
            openmp.__exit__(None, None, None)
            with self.lock:
                self.fitting -= 1
                if self.fitting == 0:
                    _release(controller.select(user_api="blas"))
                    self.blas.__exit__(None, None, None)
                    self.blas = None


def _release(blas: ThreadpoolController) -> None:
    """Let the calling thread set the limits of `blas` (see threadpoolctl 3.8's
    ``clear_controlling_thread``; earlier versions let any thread)."""
    for lib in blas.lib_controllers:
        release = getattr(type(lib), "clear_controlling_thread", None)
        if release is not None:
            release(force=True)


_PINNING = _Pinning()


def pinned() -> Any:
    """The thread limits of a fit (a context manager), for every learner layer that fits:
    classifiers here, regressors and committees elsewhere. Nested uses are free."""
    return _PINNING.limited()


def check_estimator_has_proba(estimator: Any) -> None:
    """Raise a clear error unless `estimator` is a classifier with ``predict_proba``."""
    if estimator is None or not hasattr(estimator, "fit"):
        raise ParameterError(
            f"estimator must be a scikit-learn style classifier, got {estimator!r}; e.g. "
            "cbeal.learners.PlattSVC() or LogisticRegression()"
        )
    if not hasattr(estimator, "predict_proba"):
        raise ParameterError(
            f"{type(estimator).__name__} has no predict_proba; cbeal needs class probabilities. "
            "For an SVM use cbeal.learners.PlattSVC (Platt-scaled), or wrap the estimator in "
            "sklearn.calibration.CalibratedClassifierCV."
        )


class LearnerAdapter:
    """One fit of the base learner ``f_t`` of a stream model.

    Parameters
    ----------
    estimator
        Unfitted template; cloned on every fit so the user's object is never modified.
    classes
        The model's classes, in the order of every probability vector cbeal reports.
    seed
        Used for the estimator's ``random_state`` when that parameter exists and is None,
        so that the same model seed gives the same decisions.

    :meth:`fit` trains this adapter; :meth:`fitted_on` returns a *new* adapter trained on
    another pool (version + 1) and leaves this one serving, so that a failed refit changes
    nothing.
    """

    def __init__(self, estimator: Any, classes: np.ndarray, seed: int) -> None:
        check_estimator_has_proba(estimator)
        self.template = clone(estimator)
        params = self.template.get_params()
        if "random_state" in params and params["random_state"] is None:
            self.template.set_params(random_state=seed)
        self.classes = classes
        self.estimator_: Any = None
        self.single_class_: int | None = None
        self.columns_ = np.arange(classes.shape[0])
        self.linear_ = False  # True: predict_proba of a logistic regression without validation
        self.version = 0  # 1 after the first fit; callers key prediction caches on it
        self.n_trained = 0  # size of the pool this fit was trained on

    def fit(self, X: np.ndarray, y_index: np.ndarray, *, warn: bool = True) -> LearnerAdapter:
        """Train on the labelled pool (`y_index` are positions in ``classes``)."""
        present = np.unique(y_index)
        self.version += 1
        self.n_trained = int(y_index.shape[0])
        if present.size < 2:
            self.estimator_ = None
            self.single_class_ = int(present[0])
            if warn:
                only = self.classes.tolist()[self.single_class_]
                warnings.warn(
                    f"the labelled pool holds only class {only!r}; "
                    "until a second class is labelled the learner predicts it with certainty "
                    "1.0 (spec §1). Exploration agents still acquire; consider a larger D0.",
                    SingleClassWarning,
                    stacklevel=4,
                )
            return self
        est = clone(self.template)
        with _PINNING.limited():
            est.fit(X, self.classes[y_index])
        cols = []
        for c in est.classes_:
            hits = np.flatnonzero(self.classes == c)
            if hits.size != 1:
                raise InvalidInputError(
                    f"the estimator learned class {c!r}, which the model does not know"
                )
            cols.append(int(hits[0]))
        self.columns_ = np.asarray(cols)
        self.estimator_ = est
        self.single_class_ = None
        self.linear_ = _linear_path_matches(est, X)
        return self

    def fitted_on(self, X: np.ndarray, y_index: np.ndarray) -> LearnerAdapter:
        """A new adapter, trained on (`X`, `y_index`), one version newer; self is unchanged."""
        new = object.__new__(LearnerAdapter)
        new.template, new.classes = self.template, self.classes
        new.estimator_, new.single_class_, new.columns_ = None, None, self.columns_
        new.linear_ = False
        new.version, new.n_trained = self.version, 0
        return new.fit(X, y_index, warn=False)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities ordered as ``classes`` (0 for classes the pool lacks)."""
        out = np.zeros((X.shape[0], self.classes.shape[0]))
        if self.estimator_ is None:
            out[:, self.single_class_] = 1.0
            return out
        if getattr(self, "linear_", False) and isinstance(X, np.ndarray) and X.dtype == np.float64:
            proba = _linear_proba(self.estimator_, X)
        else:
            proba = np.asarray(self.estimator_.predict_proba(X), dtype=np.float64)
        out[:, self.columns_] = proba
        return out

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Class labels (the most probable of ``classes``)."""
        return np.asarray(self.classes[np.argmax(self.predict_proba(X), axis=1)])


def _linear_proba(est: Any, X: np.ndarray) -> np.ndarray:
    """``LogisticRegression.predict_proba`` without its input validation.

    Deciding on one sample is the hot path of a stream (and of the service): scikit-learn's
    checks of a one-row array cost about twice the arithmetic. Same operations, same order.
    """
    scores = X @ est.coef_.T + est.intercept_
    if est.coef_.shape[0] == 1:
        p = expit(scores[:, 0])
        return np.stack([1 - p, p], axis=1)
    return np.asarray(softmax(scores, copy=False))


def _linear_path_matches(est: Any, X: Any) -> bool:
    """Whether :func:`_linear_proba` may serve `est`: a plain logistic regression whose own
    ``predict_proba`` it reproduces bit for bit on (up to 64 rows of) its training data —
    checked on every fit, so a scikit-learn release that computes differently turns it off."""
    if type(est) is not LogisticRegression or not isinstance(X, np.ndarray):
        return False
    if X.dtype != np.float64 or X.ndim != 2:
        return False
    rows = X[:64]
    return bool(np.array_equal(_linear_proba(est, rows), est.predict_proba(rows)))
