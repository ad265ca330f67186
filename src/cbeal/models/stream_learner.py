"""The learner of a stream model: retrain it, swap a fit in, predict and transform.

The learner is retrained on the labelled pool after labels (``refit_every``) or when asked
(:meth:`~cbeal.models.stream.StreamLearner.refit`); :meth:`train_learner` and
:meth:`use_learner` split a retrain in two, so that the fit may run in another thread
while the model keeps deciding.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from cbeal.core import ParameterError, TaskError
from cbeal.core.validation import check_features
from cbeal.learners.adapter import LearnerAdapter
from cbeal.models.stream_state import StreamState

__all__ = ["LearnerUse"]

L = TypeVar("L", bound="LearnerUse")


class LearnerUse(StreamState):
    """How a stream model trains and uses its learner (one part of
    :class:`~cbeal.models.stream.StreamLearner`)."""

    def refit(self: L, *, upto: int | None = None) -> L:
        """Retrain the learner now on the labelled pool (its first `upto` samples, if given).

        With ``refit_every=None`` this is the only way the learner changes; see
        :meth:`train_learner` to train in the background while the model keeps deciding.
        """
        self.use_learner(self.train_learner(upto=upto))
        return self

    def train_learner(self, *, upto: int | None = None) -> LearnerAdapter:
        """A new fit of the learner on the first `upto` labelled samples (default: all).

        Nothing changes until :meth:`use_learner` swaps it in, so the fit may run in another
        thread while this model keeps deciding and learning. The same pool prefix always
        gives the same fit (the learner's seed is fixed), which makes a swap replayable.
        """
        with self._mutex:
            self._check_fitted()
            size = len(self._pool)
            n = size if upto is None else upto
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= size:
                raise ParameterError(f"upto must be a pool size in [1, {size}], got {upto!r}")
            X, y = self._pool.arrays(n)
            base = self._slot.learner_
        return base.fitted_on(X, y)

    def use_learner(self, learner: LearnerAdapter) -> None:
        """Serve a fit made by :meth:`train_learner` (refused if another swap came first)."""
        with self._mutex:
            self._check_fitted()
            self._slot.serve(learner, pool_size=len(self._pool))

    def transform(self, X: Any) -> np.ndarray:
        """The features the agents and the learner see for the rows of `X`."""
        self._check_fitted()
        return self.inputs_.rows(X)

    def predict_proba(self, X: Any, *, transformed: bool = False) -> np.ndarray:
        """Class probabilities of the current learner, columns ordered as ``classes_``.

        `transformed=True`: the rows are already features (the output of :meth:`transform`).
        """
        with self._mutex:
            self._check_fitted()
            learner, inputs = self._slot.learner_, self.inputs_
        if transformed:
            Z = check_features(X, self._pool.n_features)
        else:
            Z = inputs.rows(X)
        return learner.predict_proba(Z)

    def predict(self, X: Any, *, transformed: bool = False) -> np.ndarray:
        """Labels predicted by the current learner (a regressor's: its predicted values)."""
        if self.__dict__.get("_task") is not None:
            return self.predict_spread(X, transformed=transformed)[0]
        proba = self.predict_proba(X, transformed=transformed)
        return np.asarray(self.classes_[np.argmax(proba, axis=1)])

    def predict_spread(self, X: Any, *, transformed: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """A regressor's predicted values and their predictive standard deviations.

        ``ŷ ± 2σ`` is about a 95 % interval; ``P(|y − ŷ| ≤ tolerance)`` is what the agents
        call the model's certainty.
        """
        with self._mutex:
            self._check_fitted()
            learner, inputs = self._slot.learner_, self.inputs_
            if self._task is None:
                raise TaskError(
                    "predict_spread needs a regressor as estimator; this model's learner is a "
                    "classifier: use predict_proba(X)"
                )
        if transformed:
            Z = check_features(X, self._pool.n_features)
        else:
            Z = inputs.rows(X)
        dist = learner.predict_dist(Z)  # type: ignore[attr-defined]
        return dist[:, 0], dist[:, 1]

    @property
    def estimator_(self) -> Any:
        """The fitted scikit-learn estimator (None while the pool holds a single class)."""
        self._check_fitted()
        return self._slot.learner_.estimator_

    @property
    def labels_since_refit(self) -> int:
        """Labels in the pool that the current learner was not trained on."""
        self._check_fitted()
        return self._slot.since_refit_

    @property
    def learner_version(self) -> int:
        """Number of fits of the learner so far (1 after ``fit``); bumped by every refit."""
        self._check_fitted()
        return self._slot.learner_.version
