"""The decision path of a stream model: observe samples, commit decisions (spec §1).

``query_one`` / ``query_many`` observe samples and commit decisions: the agents' windows
slide, the bandit draws its action and an acquisition spends a label of the budget at once,
before its label arrives (:mod:`cbeal.models.stream_labels` delivers it). ``flush`` closes
the current step.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cbeal.core import Budget, ChartStep, Context, Decision, InvalidInputError, TaskError
from cbeal.core.validation import check_sample
from cbeal.kernels import AFTER as KERNELS_AFTER
from cbeal.kernels import enable as enable_kernels
from cbeal.models.labelled_pool import _Pending
from cbeal.models.stream_state import StreamState

__all__ = ["Deciding"]


class Deciding(StreamState):
    """How a stream model decides (one part of :class:`~cbeal.models.stream.StreamLearner`)."""

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
                P = self._slot.learner_.predict_proba(Z)
            else:  # row by row: a regressor's batched spread can differ in the last bits
                dist = self._slot.learner_.predict_dist  # type: ignore[attr-defined]
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
        return check_sample(x, self._pool.n_features)

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
        learner = self._slot.learner_
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
            self._pool.ask(t, _Pending(z.copy(), prop, ctx.y_index, d))
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
