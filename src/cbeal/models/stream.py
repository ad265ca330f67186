"""The stream model: learner, labelled pool, budget and the label protocol (spec §1, §9).

:class:`StreamLearner` is the shared machinery; :class:`~cbeal.CbeAL` plugs in the agent
ensemble and :class:`~cbeal.SingleAgentLearner` a single agent.

* ``query_one`` / ``query_many`` observe samples and commit decisions (an acquisition
  spends a label at once); ``learn_one`` delivers a label — now or hours later, by the
  :class:`~cbeal.Decision`, its dict or its id; ``cancel`` ends a pending acquisition
  whose label will never come.
* **Atomic steps.** Every public step holds the model's lock from its first check to its
  last write, so threads may share a model: each step sees the whole of the steps before
  it and none of the ones after. A step that fails (bad input, a learner that cannot be
  fitted) changes nothing.

The class is the parameters, the set-up (``fit``), the learner's use and the budget in
force, over a base that holds the state, its lock and its copies
(:mod:`~cbeal.models.stream_state`), with the decision path
(:mod:`~cbeal.models.stream_decide`) and the label path
(:mod:`~cbeal.models.stream_labels`). The model owns the parts of its state as objects of
their own: the labelled pool with the pending acquisitions
(:mod:`~cbeal.models.labelled_pool`), the served learner (:mod:`~cbeal.models.learner_slot`)
and the budget (its renewal: :mod:`~cbeal.models.renewal`).
"""

from __future__ import annotations

import re
import uuid
import warnings
from abc import abstractmethod
from typing import Any, TypeVar

import numpy as np

from cbeal.core import InvalidInputError, ParameterError, Policy, ScoreFusion, TaskError, as_budget
from cbeal.core.validation import check_features, check_labels, check_seed, label_index
from cbeal.learners.adapter import LearnerAdapter, check_estimator_has_proba
from cbeal.learners.conventions import classifier_tags, column_or_1d
from cbeal.models.inputs import Inputs
from cbeal.models.labelled_pool import LabelledPool
from cbeal.models.labelled_pool import _Pending as _Pending  # its name in model files
from cbeal.models.learner_slot import LearnerSlot
from cbeal.models.regression import regression_task
from cbeal.models.renewal import RenewedBudget, repace
from cbeal.models.stream_decide import Deciding
from cbeal.models.stream_labels import Labelling
from cbeal.models.stream_state import StreamState

__all__ = ["StreamLearner"]

M = TypeVar("M", bound="StreamLearner")
_NOTHING = object()
_PREFIX = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,99}$")
_LIVE = frozenset({"refit_every", "reward", "penalty"})  # parameters read at every step


class StreamLearner(Deciding, Labelling, StreamState):
    """Shared machinery of the stream-based active learners (see :class:`~cbeal.CbeAL`)."""

    @abstractmethod
    def _make_policy(self) -> Policy:
        """The unfitted policy that scores samples."""

    # ------------------------------------------------------------------ set-up
    def fit(self: M, X0: Any, y0: Any) -> M:
        """Start a stream from the initial labelled set ``D0 = (X0, y0)``; returns self.

        Resets everything: the learner is trained on ``D0``, the agents' windows start with
        ``X0`` (most recent last), the budget is full and no decision is pending.
        """
        with self._mutex:
            self._check_params()
            task = regression_task(self, _numbers(y0))  # None for a classifier
            if task is None:
                check_estimator_has_proba(self.estimator)
            inputs, X = Inputs.fit(X0, self.preprocessor)
            y = check_labels(column_or_1d(y0), X.shape[0])
            if X.shape[0] == 0:
                raise InvalidInputError(
                    "D0 is empty; give at least one labelled sample (ideally one per class) so "
                    "the learner can make a first prediction."
                )
            budget = as_budget(self.budget)
            rng = check_seed(self.random_state)
            if task is None:
                classes = self._classes(y)
                y_index = np.array([label_index(classes, v) for v in y], dtype=np.intp)
                seed = int(rng.integers(2**31 - 1))
                learner = LearnerAdapter(self.estimator, classes, seed)
            else:  # a regressor: the labels are measured values
                y_index = task.targets(y)
                learner = task.learner(self.estimator, int(rng.integers(2**31 - 1)))
            learner.fit(X, y_index, warn=True)
            policy = self._make_policy().start(X, rng, y_index)

            self._task = task
            if task is None:
                self.classes_ = classes
                self._plain_classes = tuple(classes.tolist())
            else:
                self.__dict__.pop("classes_", None)
                self._plain_classes = task.classes
            self.inputs_ = inputs
            self.n_features_in_ = inputs.n_features
            if inputs.names is not None:
                self.feature_names_in_ = inputs.names
            else:
                self.__dict__.pop("feature_names_in_", None)
            self.budget_ = budget
            self.t_ = 0
            self.n_labels_ = 0
            self.policy_ = policy
            self.model_token_ = (
                uuid.uuid4().hex[:12] if self.id_prefix is None else str(self.id_prefix)
            )
            self.last_step_ = None
            self._names = tuple(n for n, _ in policy.named_agents)
            self._kinds = tuple(a.kind for _, a in policy.named_agents)
            self._rng = rng
            self._pool = LabelledPool().start(X, y_index)
            self._slot = LearnerSlot().start(learner)
            self._step_open = False
        return self

    def _classes(self, y: np.ndarray) -> np.ndarray:
        if self.classes is None:
            return np.unique(y)
        classes = np.asarray(self.classes)
        if classes.ndim != 1 or np.unique(classes).size != classes.size or classes.size < 2:
            raise ParameterError(
                f"classes must list at least two distinct labels, got {self.classes!r}"
            )
        return np.unique(classes)

    def _check_params(self) -> None:
        every = self.refit_every
        if every is not None and (
            isinstance(every, bool) or not isinstance(every, int) or every < 1
        ):
            raise ParameterError(
                f"refit_every must be a whole number of labels ≥ 1 (1: after every label) or "
                f"None (only when refit() is called), got {every!r}"
            )
        self._rewards()
        prefix = self.id_prefix
        if prefix is not None and not (isinstance(prefix, str) and _PREFIX.match(prefix)):
            raise ParameterError(
                f"id_prefix must be 1-100 letters, digits, '.', '_' or '-', got {prefix!r}"
            )

    def fit_transform(self, X: Any, y: Any) -> np.ndarray:
        """:meth:`fit` on ``D0 = (X, y)``, then the features of `X` (scikit-learn's API)."""
        return self.fit(X, y).transform(X)

    def set_params(self: M, **params: Any) -> M:
        """Set parameters, nested ones as ``name__param``; unknown names raise an error.

        On a fitted model nothing is silently ignored: a new ``budget`` applies from the
        next sample on (:meth:`renew_budget`); ``refit_every``, ``reward`` and ``penalty``
        are read at every step and apply at once; every other parameter is fixed when
        :meth:`fit` starts a stream, and a warning says that it waits for the next fit.
        """
        with self._mutex:
            if "policy_" not in self.__dict__:
                return super().set_params(**params)
            rest = dict(params)
            budget = rest.pop("budget", _NOTHING)
            if budget is not _NOTHING:
                as_budget(budget)  # a bad budget changes nothing
            super().set_params(**rest)
            if budget is not _NOTHING:
                self.renew_budget(budget)
            later = sorted({key.partition("__")[0] for key in rest} - _LIVE)
            if later:
                verb = "takes" if len(later) == 1 else "take"
                warnings.warn(
                    f"{', '.join(later)} of this fitted {type(self).__name__} only {verb} "
                    "effect when fit(X0, y0) starts a new stream; until then it keeps deciding "
                    "as fitted (a new budget applies at once: renew_budget)",
                    UserWarning,
                    stacklevel=2,
                )
        return self

    # ------------------------------------------------------------------ learner
    def refit(self: M, *, upto: int | None = None) -> M:
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

    # ------------------------------------------------------------------ budget
    def renew_budget(self: M, budget: Any, *, budget_fraction: float | None = None) -> M:
        """Give the running model a new budget, counted from the next sample; returns self.

        A count (``50``) allows that many more labels; a share (``"10%"``, ``0.1``) paces
        them from the next sample on: ``t`` samples later at most ``floor(0.1 · t)``. Labels
        spent before, pending ones included, stay charged to the budget that ends (their
        labels can still be delivered; cancelling one refunds nothing), so the new budget
        is never exceeded. Everything else continues: the learner, the labelled pool, the
        agents and the bandit's weights.

        Agents that pace themselves to a share of the stream (those with a
        ``budget_fraction``, such as ENT and VU) and score fusion's pacer are re-paced to
        `budget_fraction`, else to the share of a rate (or of a count with a ``pace``);
        with a count and no share they keep their pace. Fusion's pacer starts owing nothing
        against the new budget, so it keeps choosing by the scores.
        `budget` also becomes the ``budget`` parameter, with which a later :meth:`fit`
        starts a new stream. ``set_params(budget=...)`` on a fitted model calls this.

        >>> from sklearn.linear_model import LogisticRegression
        >>> from cbeal import CbeAL, make_stream, simulate
        >>> s = make_stream(n=300, random_state=0)
        >>> model = CbeAL.from_preset(estimator=LogisticRegression(), budget=0.1,
        ...                           random_state=0).fit(s.X0, s.y0)
        >>> _ = simulate(model, s.X_stream[:150], s.y_stream[:150])
        >>> str(model.renew_budget(20).budget_), model.budget_left
        ('20 labels from sample 151 on', 20)
        """
        with self._mutex:
            self._check_fitted()
            renewed = RenewedBudget(budget=budget, after=self.t_).start()  # checks `budget`
            share = renewed.pace(budget_fraction)
            self.budget = budget
            self.budget_ = renewed
            if share is not None:
                repace(
                    [a for _, a in self.policy_.named_agents], self.get_params(deep=False), share
                )
            # a pacer over the whole ensemble starts owing nothing against the new budget
            # (else it keeps the old budget's account, and the cap alone picks the samples)
            policy = self.policy_
            if isinstance(policy, ScoreFusion):
                policy.repace(share if share is not None else policy.budget_fraction_now)
        return self

    @property
    def budget_used_(self) -> int:
        """Labels spent from the budget in force (since :meth:`renew_budget`, if called):
        acquisitions, pending ones included, minus refunded cancellations."""
        self._check_fitted()
        return self.budget_.spent_

    @property
    def budget_left(self) -> int:
        """Labels that can be asked for now."""
        with self._mutex:
            self._check_fitted()
            return self.budget_.left(self.t_)

    @property
    def labelled_pool(self) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)`` of every labelled sample: ``D0`` followed by the acquisitions."""
        with self._mutex:
            self._check_fitted()
            X, y = np.asarray(self._pool.X_), self._pool.y_
            if self._task is not None:
                return X, np.asarray(y, dtype=np.float64)
            return X, self.classes_[np.asarray(y, dtype=np.intp)]

    @property
    def agent_names(self) -> tuple[str, ...]:
        self._check_fitted()
        return self._names

    # ------------------------------------------------------------------ scikit-learn
    def __sklearn_is_fitted__(self) -> bool:
        return "policy_" in self.__dict__

    def __sklearn_tags__(self) -> Any:
        return classifier_tags(
            preprocessor=self.preprocessor, non_deterministic=self.random_state is None
        )


def _numbers(y0: Any) -> Any:
    """`y0` as floats when it holds numbers (to suggest a tolerance on their scale), else None."""
    try:
        return np.asarray(y0, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        return None
