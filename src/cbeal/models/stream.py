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
"""

from __future__ import annotations

import math
import re
import threading
import uuid
import warnings
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from cbeal.core import (
    Budget,
    ChartStep,
    Context,
    Decision,
    DecisionError,
    InvalidInputError,
    ParameterError,
    Params,
    Policy,
    Proposal,
    TaskError,
    as_budget,
)
from cbeal.core.budget import LabelRate
from cbeal.core.validation import (
    check_features,
    check_labels,
    check_rewards,
    check_sample,
    check_seed,
    label_index,
)
from cbeal.kernels import AFTER as KERNELS_AFTER
from cbeal.kernels import enable as enable_kernels
from cbeal.learners.adapter import LearnerAdapter, check_estimator_has_proba
from cbeal.learners.conventions import NotFittedError, classifier_tags, column_or_1d
from cbeal.models.inputs import Inputs
from cbeal.models.regression import RegressionTask, regression_task
from cbeal.models.renewal import RenewedBudget

__all__ = ["StreamLearner"]

M = TypeVar("M", bound="StreamLearner")
_NOTHING = object()
_GUARD = threading.Lock()  # creates each model's own lock exactly once
_PREFIX = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,99}$")
_LIVE = frozenset({"refit_every", "reward", "penalty"})  # parameters read at every step


@dataclass(frozen=True)
class _Pending:
    """What a pending acquisition needs when its label arrives."""

    x: np.ndarray
    proposal: Proposal
    y_index: int
    decision: Decision


class StreamLearner(Params):
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

    @abstractmethod
    def _make_policy(self) -> Policy:
        """The unfitted policy that scores samples."""

    # ------------------------------------------------------------------ locking
    @property
    def _mutex(self) -> threading.RLock:
        lock = self.__dict__.get("_lock")
        if lock is None:
            with _GUARD:
                lock = self.__dict__.setdefault("_lock", threading.RLock())
        return lock

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_lock", None)  # a lock cannot be copied; each copy makes its own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.__dict__.get("t_", 0) >= KERNELS_AFTER:
            enable_kernels()

    # ------------------------------------------------------------------ set-up
    def fit(self: M, X0: Any, y0: Any) -> M:
        """Start a stream from the initial labelled set ``D0 = (X0, y0)``; returns self.

        Resets everything: the learner is trained on ``D0``, the agents' windows start with
        ``X0`` (most recent last), the budget is full and no decision is pending.
        """
        with self._mutex:
            self._check_params()
            task = regression_task(self)  # None for a classifier
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
            self.budget_: Budget = budget
            self.t_ = 0
            self.n_labels_ = 0
            self.policy_ = policy
            self.model_token_ = (
                uuid.uuid4().hex[:12] if self.id_prefix is None else str(self.id_prefix)
            )
            self.last_step_: ChartStep | None = None
            self._names = tuple(n for n, _ in policy.named_agents)
            self._kinds = tuple(a.kind for _, a in policy.named_agents)
            self._rng = rng
            self._learner = learner
            self._pool_X = list(X)
            self._pool_y = list(y_index)
            self._pending: dict[int, _Pending] = {}
            self._labelled: set[int] = set()
            self._cancelled: set[int] = set()
            self._step_open = False
            self._since_refit = 0
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

    def _rewards(self) -> tuple[float, float]:
        """``(ρ+, ρ−)``, checked (:func:`~cbeal.core.validation.check_rewards`)."""
        return check_rewards(self.reward, self.penalty)

    def _check_fitted(self) -> None:
        if "policy_" not in self.__dict__:
            raise NotFittedError(
                f"this {type(self).__name__} has no initial labelled set yet; call "
                "fit(X0, y0) before streaming."
            )

    # ------------------------------------------------------------------ deciding
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
            z = self.inputs_.row(x) if not transformed else self._features_one(x, True)
            p = None if proba is None else self._check_proba(proba)
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
            if not Z.shape[0]:
                P = Z
            elif self._task is None:
                P = self._learner.predict_proba(Z)
            else:  # row by row: a regressor's batched spread can differ in the last bits
                dist = self._learner.predict_dist  # type: ignore[attr-defined]
                P = np.vstack([dist(Z[i : i + 1]) for i in range(Z.shape[0])])
            # the policy may compute ahead what the decisions do not change (the window
            # agents' advice on all rows, in one compiled call)
            self.policy_.prepare(Z)
            try:
                return [self._decide(z, p) for z, p in zip(Z, P, strict=True)]
            finally:
                self.policy_.prepare(None)

    def _features_one(self, x: Any, transformed: bool) -> np.ndarray:
        if not transformed:
            return self.inputs_.row(x)
        return check_sample(x, self._pool_X[0].shape[0])

    def _check_proba(self, proba: Any) -> np.ndarray:
        if self._task is not None:
            raise TaskError(
                "proba gives a classifier's class probabilities; this model's learner is a "
                "regressor: call query_one(x) without it"
            )
        # always a copy: the decision marks its proba read-only, never the caller's array
        p = np.array(proba, dtype=np.float64)
        k = len(self._plain_classes)
        values = p.tolist() if p.shape == (k,) else [math.nan]
        # plain floats: cheaper than numpy reductions on a handful of values; NaN and inf fail
        if not (min(values) >= 0.0 and abs(sum(values) - 1.0) <= 1e-6):
            raise InvalidInputError(
                f"proba must be {k} finite class probabilities summing to 1, ordered as "
                f"classes_ {self.classes_.tolist()}; got {proba!r}"
            )
        return p

    def _decide(self, z: np.ndarray, proba: np.ndarray | None) -> Decision:
        if self.t_ == KERNELS_AFTER:  # a long stream: compile (same decisions, faster)
            enable_kernels()
        if self._step_open:
            self._close_step()
        learner = self._learner
        task = self._task
        if task is None:
            if proba is None:
                proba = learner.predict_proba(z[None, :])[0]
            ctx = Context(z, proba)
            y_pred = self._plain_classes[ctx.y_index]
        else:  # `proba` is the regressor's [ŷ, σ]
            if proba is None:
                proba = learner.predict_dist(z[None, :])[0]  # type: ignore[attr-defined]
            ctx = task.context(z, proba)
            y_pred = ctx.mean
        prop = self.policy_.propose(ctx)
        t = self.t_
        seen = t + 1
        budget = self.budget_
        # Budget.allows is left >= 1: one call of left serves both, unless a label is spent
        left = budget.left(seen) if type(budget).allows is Budget.allows else None
        if budget.allows(seen) if left is None else left >= 1:
            p, reason = prop.p_acquire, "drawn"
            acquire = bool(self._rng.random() < p)
            self.policy_.on_decision(prop, acquire)
            self._step_open = True
            if acquire:
                budget.spend(seen)
                left = None
        else:
            acquire, p, reason = False, 0.0, budget.reason
        self.t_ = seen
        d = Decision._of(  # every field, in order
            id=f"{self.model_token_}-{t}",
            t=t,
            acquire=acquire,
            p_acquire=float(p),
            advice=prop.advice,
            weights=prop.weights,
            agent_names=self._names,
            agent_kinds=self._kinds,
            y_pred=y_pred,
            proba=ctx.proba,
            classes=self._plain_classes,
            certainty=ctx.certainty,
            budget_left=budget.left(seen) if left is None else left,
            reason=reason,
            learner_version=learner.version,
            model_token=self.model_token_,
            score=prop.score,
            threshold=prop.threshold,
        )
        if acquire:
            # Own copy: a row of query_many's batch is a view that would keep the whole
            # batch alive in the labelled pool (≈ 20× the memory per label in a service).
            self._pending[t] = _Pending(z.copy(), prop, ctx.y_index, d)
        return d

    def flush(self) -> ChartStep | None:
        """Close the current step (run the EWMA chart now rather than at the next sample)."""
        with self._mutex:
            self._check_fitted()
            return self._close_step() if self._step_open else None

    def _close_step(self) -> ChartStep | None:
        self._step_open = False
        self.last_step_ = self.policy_.end_step()
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
            reward, penalty = self._rewards()
            t = self._resolve(decision)
            rec = self._pending[t]
            if x is not None and not np.array_equal(self.inputs_.row(x), rec.x):
                raise InvalidInputError(
                    f"x is not the sample of decision {rec.decision.id}; pass that sample, or "
                    "x=None to use the sample the model kept."
                )
            task = self._task
            if task is None:
                yi: Any = label_index(self.classes_, y)
                r = reward if yi != rec.y_index else penalty
            else:
                yi = task.target(y)
                r = task.reward(yi, rec.decision.y_pred, reward, penalty)
            every = self.refit_every
            due = every is not None and self._since_refit + 1 >= every
            new = None
            if due:  # train first: a learner that fails leaves everything as it was
                new = self._learner.fitted_on(
                    np.asarray([*self._pool_X, rec.x]), np.asarray([*self._pool_y, yi])
                )
            try:  # before the decision leaves the pending ones: a failure loses no label
                self.policy_.on_label(rec.proposal, r, penalty, rec.x, yi)
            except Exception as exc:
                note = getattr(exc, "add_note", None)  # Python ≥ 3.11
                if note is not None:
                    note(
                        f"decision {rec.decision.id} is still pending: deliver its label again "
                        "once the cause is fixed"
                    )
                raise
            del self._pending[t]
            self._labelled.add(t)
            self._pool_X.append(rec.x)
            self._pool_y.append(yi)
            self.n_labels_ += 1
            if new is not None:
                self._learner = new
                self._since_refit = 0
            else:
                self._since_refit += 1
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
            rec = self._pending.pop(t)
            self._cancelled.add(t)
            if refund:
                self.budget_.refund(t + 1)
            return rec.decision

    def reward_of(self, decision: Decision, y: Any) -> float:
        """The reward label `y` earns `decision`: ρ+ if the recorded prediction was wrong."""
        self._check_fitted()
        reward, penalty = self._rewards()
        task = self._task
        if task is not None:
            return task.reward(task.target(y), decision.y_pred, reward, penalty)
        yi = label_index(self.classes_, y)
        wrong = yi != label_index(self.classes_, decision.y_pred)
        return reward if wrong else penalty

    def _resolve(self, decision: Any) -> int:
        """The stream position of a pending decision given as object, dict or id."""
        if isinstance(decision, dict):
            decision = Decision.from_dict(decision)
        if isinstance(decision, Decision):
            token, t, did = decision.model_token, decision.t, decision.id
            if not decision.acquire:
                raise DecisionError(
                    f"decision {did} did not acquire its sample ({decision.reason}); only "
                    "samples the model asked for can be labelled and rewarded."
                )
        elif isinstance(decision, str):
            token, _, pos = decision.rpartition("-")
            did = decision
            if not pos.isdigit():
                raise DecisionError(
                    f"{decision!r} is not a decision id; ids look like "
                    f"'{getattr(self, 'model_token_', 'ab12cd34ef56')}-17'"
                )
            t = int(pos)
        else:
            raise DecisionError(
                "decision must be a Decision returned by query_one, its to_dict() or its id "
                f"string; got {type(decision).__name__}"
            )
        if token != self.model_token_:
            raise DecisionError(
                f"decision {did} was made by another model (or before this model was fitted "
                "again); deliver each label to the model that asked for it."
            )
        if t in self._pending:
            return t
        if t in self._labelled:
            raise DecisionError(f"decision {did} was already labelled.")
        if t in self._cancelled:
            raise DecisionError(f"decision {did} was cancelled; it can no longer be labelled.")
        if t >= self.t_:
            raise DecisionError(f"no decision {did}: this model has made {self.t_} decisions.")
        raise DecisionError(
            f"decision {did} did not acquire its sample; only samples the model asked for "
            "can be labelled and rewarded."
        )

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
            size = len(self._pool_y)
            n = size if upto is None else upto
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= size:
                raise ParameterError(f"upto must be a pool size in [1, {size}], got {upto!r}")
            X, y = np.asarray(self._pool_X[:n]), np.asarray(self._pool_y[:n])
            base = self._learner
        return base.fitted_on(X, y)

    def use_learner(self, learner: LearnerAdapter) -> None:
        """Serve a fit made by :meth:`train_learner` (refused if another swap came first)."""
        with self._mutex:
            self._check_fitted()
            current = self._learner.version
            if not isinstance(learner, LearnerAdapter) or learner.version != current + 1:
                raise ParameterError(
                    "this learner was not trained from the one the model serves now (another "
                    "refit came first); train a new one with train_learner()"
                )
            self._learner = learner
            self._since_refit = len(self._pool_y) - learner.n_trained

    def fit_transform(self, X: Any, y: Any) -> np.ndarray:
        """:meth:`fit` on ``D0 = (X, y)``, then the features of `X` (scikit-learn's API)."""
        return self.fit(X, y).transform(X)

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
            learner, inputs = self._learner, self.inputs_
        if transformed:
            Z = check_features(X, self._pool_X[0].shape[0])
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
            learner, inputs = self._learner, self.inputs_
            if self._task is None:
                raise TaskError(
                    "predict_spread needs a regressor as estimator; this model's learner is a "
                    "classifier: use predict_proba(X)"
                )
        if transformed:
            Z = check_features(X, self._pool_X[0].shape[0])
        else:
            Z = inputs.rows(X)
        dist = learner.predict_dist(Z)  # type: ignore[attr-defined]
        return dist[:, 0], dist[:, 1]

    @property
    def estimator_(self) -> Any:
        """The fitted scikit-learn estimator (None while the pool holds a single class)."""
        self._check_fitted()
        return self._learner.estimator_

    @property
    def labels_since_refit(self) -> int:
        """Labels in the pool that the current learner was not trained on."""
        self._check_fitted()
        return self._since_refit

    @property
    def learner_version(self) -> int:
        """Number of fits of the learner so far (1 after ``fit``); bumped by every refit."""
        self._check_fitted()
        return self._learner.version

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
        ``budget_fraction``, such as ENT and VU) are re-paced to `budget_fraction`, else
        to the share of a rate; with a count and no `budget_fraction` they keep their pace.
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
            fresh = renewed.budget_
            share = budget_fraction
            if share is None and isinstance(fresh, LabelRate):
                share = float(fresh.rate)
            if share is not None and not (
                isinstance(share, (int, float)) and not isinstance(share, bool) and 0 < share <= 1
            ):
                raise ParameterError(
                    f"budget_fraction must be the share of the coming samples the budget "
                    f"allows, in (0, 1], got {budget_fraction!r}"
                )
            self.budget = budget
            self.budget_ = renewed
            if share is not None:
                self._repace(float(share))
        return self

    def _repace(self, share: float) -> None:
        """Set `share` as the ``budget_fraction`` of every agent that has one: the running
        ones and the templates a later :meth:`fit` copies."""
        agents: list[Params] = [a for _, a in self.policy_.named_agents]
        stack = list(self.get_params(deep=False).values())
        while stack:
            value = stack.pop()
            if isinstance(value, (list, tuple)):
                stack.extend(value)
            elif isinstance(value, Params) and "budget_fraction" in value.get_params(deep=False):
                agents.append(value)
        for agent in agents:
            if "budget_fraction" in agent.get_params(deep=False):
                agent.set_params(budget_fraction=share)

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

    # ------------------------------------------------------------------ state
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
    def pending(self) -> tuple[Decision, ...]:
        """Acquisitions whose label has not arrived yet, oldest first."""
        with self._mutex:
            self._check_fitted()
            return tuple(self._pending[t].decision for t in sorted(self._pending))

    @property
    def labelled_pool(self) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)`` of every labelled sample: ``D0`` followed by the acquisitions."""
        with self._mutex:
            self._check_fitted()
            if self._task is not None:
                return np.asarray(self._pool_X), np.asarray(self._pool_y, dtype=np.float64)
            y = self.classes_[np.asarray(self._pool_y, dtype=np.intp)]
            return np.asarray(self._pool_X), y

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

    # ------------------------------------------------------------------ persistence
    def save(self, path: Any) -> Any:
        """Write the whole state to a model file (see :mod:`cbeal.modelfile`); returns its path.

        Safe to load: no code is stored, only numbers, text and scikit-learn objects in
        the skops format. The file is written under a temporary name and renamed, so a
        crash never leaves a half-written model (nor a temporary file).
        """
        from cbeal.modelfile import save_model

        with self._mutex:
            return save_model(self, path)

    @classmethod
    def load(cls: type[M], path: Any, *, trusted: Sequence[Any] = (), limits: Any = None) -> M:
        """Read a model written by :meth:`save`; it continues exactly where it stopped.

        `trusted` lists further classes the file may contain (your own agents or
        estimators); anything else that is not cbeal's, numpy's or scikit-learn's is
        refused with a :class:`~cbeal.ModelFileError`. `limits` bounds what the file may
        cost to load (a :class:`cbeal.modelfile.Limits`; None: the defaults, 1 GiB in
        total, compression ratios up to 300, nesting 100 deep, arrays up to 512 MiB):
        anything beyond is refused before it is inflated or allocated, with an error that
        names the limit to raise, e.g. ``limits=Limits(max_bytes=4 * 2**30)``. Every
        failure to load, whatever its cause, is a :class:`~cbeal.ModelFileError`.
        """
        from cbeal.modelfile import load_model

        model = load_model(path, cls, trusted=trusted, limits=limits)
        if model.__dict__.get("t_", 0) >= KERNELS_AFTER:
            enable_kernels()
        return model

    def to_bytes(self) -> bytes:
        """The model file's content as bytes (e.g. for a database); see :meth:`save`."""
        from cbeal.modelfile import dumps_model

        with self._mutex:
            return dumps_model(self)

    @classmethod
    def from_bytes(
        cls: type[M], data: bytes, *, trusted: Sequence[Any] = (), limits: Any = None
    ) -> M:
        """The model :meth:`to_bytes` wrote; see :meth:`load`."""
        from cbeal.modelfile import loads_model

        model = loads_model(data, cls, trusted=trusted, limits=limits)
        if model.__dict__.get("t_", 0) >= KERNELS_AFTER:
            enable_kernels()
        return model
