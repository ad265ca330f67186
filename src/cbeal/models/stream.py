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

The class is the parameters, the set-up (``fit``, checked and built by
:mod:`~cbeal.models.stream_start`), the learner's use and the budget in force; it owns the
parts of its state as objects of their own, each handed what it needs: the labelled pool
(:mod:`~cbeal.models.labelled_pool`), the served learner
(:mod:`~cbeal.models.learner_slot`), the decision path with its stamp
(:mod:`~cbeal.models.decision_path`, :mod:`~cbeal.models.stamp`) and the label path
(:mod:`~cbeal.models.label_path`); the budget renews by :mod:`~cbeal.models.renewal`. Its
base holds the lock and the copies (:mod:`~cbeal.models.stream_state`).
"""

from __future__ import annotations

import uuid
import warnings
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from cbeal.core import (
    Budget,
    ChartStep,
    Decision,
    InvalidInputError,
    ParameterError,
    Policy,
    TaskError,
    as_budget,
)
from cbeal.core.validation import (
    check_features,
    check_labels,
    check_rewards,
    check_sample,
    check_seed,
)
from cbeal.kernels import AFTER as KERNELS_AFTER
from cbeal.kernels import enable as enable_kernels
from cbeal.learners.adapter import LearnerAdapter, check_estimator_has_proba
from cbeal.learners.conventions import NotFittedError, classifier_tags, column_or_1d
from cbeal.models.decision_path import DecisionPath
from cbeal.models.inputs import Inputs
from cbeal.models.label_path import LabelPath
from cbeal.models.labelled_pool import LabelledPool
from cbeal.models.labelled_pool import _Pending as _Pending  # its name in model files
from cbeal.models.learner_slot import LearnerSlot
from cbeal.models.regression import RegressionTask, regression_task
from cbeal.models.renewal import RenewedBudget, repace_policy
from cbeal.models.stamp import DecisionStamp
from cbeal.models.stream_start import check_params, first_learner, numbers, waiting_params
from cbeal.models.stream_state import StreamState

__all__ = ["StreamLearner"]

M = TypeVar("M", bound="StreamLearner")
_NOTHING = object()
_NO_CLASSES = np.empty(0)  # a regressor's: its labels are measured values


class StreamLearner(StreamState):
    """Shared machinery of the stream-based active learners (see :class:`~cbeal.CbeAL`)."""

    estimator: Any
    budget: Any
    reward: float
    penalty: float
    classes: Sequence[Any] | None
    refit_every: int | None
    preprocessor: Any
    id_prefix: str | None
    random_state: Any
    tolerance: Any = None  # a regressor's band (models/regression.py)
    regression_reward: str = "band"
    _task: RegressionTask | None = None  # set by fit: None for a classifier

    # learned state, set by fit
    classes_: np.ndarray
    inputs_: Inputs
    n_features_in_: int
    budget_: Budget
    t_: int
    n_labels_: int
    policy_: Policy
    last_step_: ChartStep | None
    _pool: LabelledPool  # D0, the delivered labels and the pending acquisitions
    _slot: LearnerSlot  # the served learner and the labels it was not trained on
    _path: DecisionPath  # the draws, the open step and the decisions' stamp

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
            check_params(
                refit_every=self.refit_every,
                reward=self.reward,
                penalty=self.penalty,
                id_prefix=self.id_prefix,
            )
            task = regression_task(self, numbers(y0))  # None for a classifier
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
            classes, y_index, learner = first_learner(self.estimator, task, y, self.classes, rng)
            learner.fit(X, y_index, warn=True)
            policy = self._make_policy().start(X, rng, y_index)

            self._task = task
            if classes is not None:
                self.classes_ = classes
                plain_classes = tuple(classes.tolist())
            else:
                self.__dict__.pop("classes_", None)
                plain_classes = task.classes  # type: ignore[union-attr]
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
            self.last_step_ = None
            stamp = DecisionStamp().start(
                names=tuple(n for n, _ in policy.named_agents),
                kinds=tuple(a.kind for _, a in policy.named_agents),
                classes=plain_classes,
                token=uuid.uuid4().hex[:12] if self.id_prefix is None else str(self.id_prefix),
            )
            self._path = DecisionPath().start(stamp, rng)
            self._pool = LabelledPool().start(X, y_index)
            self._slot = LearnerSlot().start(learner)
        return self

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
            later = waiting_params(rest, type(self).__name__)
            if later:
                warnings.warn(later, UserWarning, stacklevel=2)
        return self

    # ------------------------------------------------------------------ decisions
    def query_one(self, x: Any, *, proba: Any = None, transformed: bool = False) -> Decision:
        """Observe sample `x` and decide whether to ask for its label.

        The agents' windows slide and the bandit draws its action: the decision is
        committed (in a stream each sample is seen once). An acquisition spends one label
        of the budget at once, before its label arrives.

        `proba` gives the learner's class probabilities for `x` if you already have them
        (e.g. from one batched ``predict_proba``); `transformed=True` says that `x` is
        already in the model's feature space (the output of :meth:`transform`).
        """
        with self._mutex:
            if "policy_" not in self.__dict__:
                self._check_fitted()
            z = check_sample(x, self._pool.n_features) if transformed else self.inputs_.row(x)
            p = None if proba is None else self._path.check_proba(proba, self._task)
            return self._decide(z, p)

    def query_many(self, X: Any) -> list[Decision]:
        """Decide on a batch of samples, in order, with one ``predict_proba`` call.

        The decisions are those of ``query_one`` called row by row (no label can arrive in
        between, so the learner is the same for every row). A regressor predicts row by
        row, so that the decisions are exactly the same.
        """
        with self._mutex:
            self._check_fitted()
            Z = self.inputs_.rows(X)
            P = self._path.probas(Z, self._slot.learner_, self._task)
            # the policy may compute ahead what the decisions do not change (the window
            # agents' advice on all rows, in one compiled call)
            self.policy_.prepare(Z)
            try:
                return [self._decide(z, p) for z, p in zip(Z, P, strict=True)]
            finally:
                self.policy_.prepare(None)

    def _decide(self, z: np.ndarray, proba: np.ndarray | None) -> Decision:
        if self.t_ == KERNELS_AFTER:  # a long stream: compile (same decisions, faster)
            enable_kernels()
        path = self._path
        if path.step_open_:
            self.last_step_ = path.close_step(self.policy_)
        d = path.decide(
            z,
            proba,
            t=self.t_,
            learner=self._slot.learner_,
            task=self._task,
            policy=self.policy_,
            budget=self.budget_,
            pool=self._pool,
        )
        self.t_ = d.t + 1
        return d

    def flush(self) -> ChartStep | None:
        """Close the current step (run the EWMA chart now rather than at the next sample)."""
        with self._mutex:
            self._check_fitted()
            if not self._path.step_open_:
                return None
            self.last_step_ = self._path.close_step(self.policy_)
            return self.last_step_

    # ------------------------------------------------------------------ labels
    def learn_one(self: M, x: Any, y: Any, *, decision: Any) -> M:
        """Deliver label `y` of the acquisition `decision` asked for; returns self.

        `decision` is the :class:`~cbeal.Decision`, its :meth:`~cbeal.Decision.to_dict`
        or its id. `x` may be None: the model kept the sample; if given, it must be that
        sample. The reward is computed from the prediction recorded in the decision, the
        reward-learning agents and the bandit update, the sample joins the labelled pool
        and the learner is retrained (``refit_every``). If retraining fails, the error is raised
        and nothing changed: the decision is still pending and the call can be retried. If
        an agent fails to learn from the label, the decision stays pending too.
        """
        with self._mutex:
            self._check_fitted()
            rewards = check_rewards(self.reward, self.penalty)
            t = self._resolve(decision)
            z = None if x is None else self.inputs_.row(x)
            self._labels().learn(t, z, y, rewards=rewards, refit_every=self.refit_every)
            self.n_labels_ += 1
        return self

    def cancel(self, decision: Any, *, refund: bool = True) -> Decision:
        """End a pending acquisition whose label will never come; returns its decision.

        The bandit and the agents treat it like a skipped sample: it earns no reward
        (Exp4.P's reward estimate for an arm without feedback is 0; its exploration term
        was applied when the decision was drawn, as for every decision) and it never
        joins the labelled pool. With `refund` the label goes back to the budget, since
        it was never bought; pass ``refund=False`` when the expert's time was spent
        anyway (e.g. "cannot tell").
        """
        with self._mutex:
            self._check_fitted()
            t = self._resolve(decision)
            rec = self._pool.cancel(t)
            if refund:
                self.budget_.refund(t + 1)
            return rec.decision

    def reward_of(self, decision: Decision, y: Any) -> float:
        """The reward label `y` earns `decision`: ρ+ if the recorded prediction was wrong."""
        self._check_fitted()
        return self._labels().reward_of(decision, y, check_rewards(self.reward, self.penalty))

    def _labels(self) -> LabelPath:
        """The label path, handed the parts a label changes."""
        classes = self.__dict__.get("classes_", _NO_CLASSES)
        return LabelPath(self._pool, self._slot, self.policy_, self._task, classes)

    def _resolve(self, decision: Any) -> int:
        """The stream position of a pending decision given as object, dict or id."""
        return self._pool.resolve(decision, token=self._path.stamp_.token_, seen=self.t_)

    @property
    def pending(self) -> tuple[Decision, ...]:
        """Acquisitions whose label has not arrived yet, oldest first."""
        with self._mutex:
            self._check_fitted()
            return self._pool.waiting()

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
        return learner.predict_proba(self._features(X, inputs, transformed))

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
        dist = learner.predict_dist(self._features(X, inputs, transformed))  # type: ignore[attr-defined]
        return dist[:, 0], dist[:, 1]

    def _features(self, X: Any, inputs: Inputs, transformed: bool) -> np.ndarray:
        return check_features(X, self._pool.n_features) if transformed else inputs.rows(X)

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
            repace_policy(self.policy_, self.get_params(deep=False), share)
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
        return self._path.stamp_.names_

    @property
    def model_token_(self) -> str:
        """The token that starts this stream's decision ids (``id_prefix``, or drawn)."""
        self._check_fitted()
        return self._path.stamp_.token_

    # ------------------------------------------------------------------ scikit-learn
    def _check_fitted(self) -> None:
        if "policy_" not in self.__dict__:
            raise NotFittedError(
                f"this {type(self).__name__} has no initial labelled set yet; call "
                "fit(X0, y0) before streaming."
            )

    def __sklearn_is_fitted__(self) -> bool:
        return "policy_" in self.__dict__

    def __sklearn_tags__(self) -> Any:
        return classifier_tags(
            preprocessor=self.preprocessor, non_deterministic=self.random_state is None
        )
