"""The decision path of a stream model: observe a sample, commit its decision (spec §1).

For each sample the policy proposes (the agents' windows slide), the bandit's draw decides
and an acquisition spends a label of the budget at once, before its label arrives; the
acquisition then waits in the labelled pool. :class:`DecisionPath` owns what only this path
uses (the draws' random generator, whether a step is open, the decisions' stamp) and is
handed the rest: the learner, the policy, the budget and the pool.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cbeal.core import Budget, ChartStep, Context, Decision, InvalidInputError, Policy, TaskError
from cbeal.learners.adapter import LearnerAdapter
from cbeal.models.labelled_pool import LabelledPool, _Pending
from cbeal.models.regression import RegressionTask
from cbeal.models.stamp import DecisionStamp

__all__ = ["DecisionPath"]


class DecisionPath:
    """The decisions of a fitted stream: the draws, the open step and the stamp.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.models.decision_path import DecisionPath
    >>> from cbeal.models.stamp import DecisionStamp
    >>> stamp = DecisionStamp().start(names=("RS",), kinds=("random",), classes=(0, 1),
    ...                               token="m")
    >>> path = DecisionPath().start(stamp, np.random.default_rng(0))
    >>> path.step_open_
    False
    >>> path.check_proba([0.25, 0.75], task=None).tolist()
    [0.25, 0.75]
    """

    stamp_: DecisionStamp
    rng_: np.random.Generator  # the policy's own: one stream of draws, as fitted
    step_open_: bool  # a decision was drawn since the policy's step was last closed

    def start(self, stamp: DecisionStamp, rng: np.random.Generator) -> DecisionPath:
        """Decide a new stream's samples with these draws and this stamp."""
        self.stamp_ = stamp
        self.rng_ = rng
        self.step_open_ = False
        return self

    def close_step(self, policy: Policy) -> ChartStep | None:
        """Close the policy's open step (the EWMA chart runs); the chart's step."""
        self.step_open_ = False
        return policy.end_step()

    def probas(self, Z: np.ndarray, learner: LearnerAdapter, task: RegressionTask | None) -> Any:
        """The learner's class probabilities (a regressor's ``[ŷ, σ]``) for each row of `Z`."""
        if not Z.shape[0]:
            return Z
        if task is None:
            return learner.predict_proba(Z)
        # row by row: a regressor's batched spread can differ in the last bits
        dist = learner.predict_dist  # type: ignore[attr-defined]
        return np.vstack([dist(Z[i : i + 1]) for i in range(Z.shape[0])])

    def check_proba(self, proba: Any, task: RegressionTask | None) -> np.ndarray:
        """`proba` as a checked copy: the class probabilities a caller gave for a sample."""
        if task is not None:
            raise TaskError(
                "proba gives a classifier's class probabilities; this model's learner is a "
                "regressor: call query_one(x) without it"
            )
        # always a copy: the decision marks its proba read-only, never the caller's array
        p = np.array(proba, dtype=np.float64)
        k = len(self.stamp_.classes_)
        values = p.tolist() if p.shape == (k,) else [math.nan]
        # plain floats: cheaper than numpy reductions on a handful of values; NaN and inf fail
        if not (min(values) >= 0.0 and abs(sum(values) - 1.0) <= 1e-6):
            raise InvalidInputError(
                f"proba must be {k} finite class probabilities summing to 1, ordered as "
                f"classes_ {list(self.stamp_.classes_)}; got {proba!r}"
            )
        return p

    def decide(
        self,
        z: np.ndarray,
        proba: np.ndarray | None,
        *,
        t: int,
        learner: LearnerAdapter,
        task: RegressionTask | None,
        policy: Policy,
        budget: Budget,
        pool: LabelledPool,
    ) -> Decision:
        """The committed decision on sample `t` (features `z`); an acquisition spends a
        label of `budget` and waits in `pool` for its label. The step must be closed."""
        stamp = self.stamp_
        if task is None:
            if proba is None:
                proba = learner.predict_proba(z[None, :])[0]
            ctx = Context(z, proba)
            y_pred = stamp.classes_[ctx.y_index]
        else:  # `proba` is the regressor's [ŷ, σ]
            if proba is None:
                proba = learner.predict_dist(z[None, :])[0]  # type: ignore[attr-defined]
            ctx = task.context(z, proba)
            y_pred = ctx.mean
        prop = policy.propose(ctx)
        seen = t + 1
        # Budget.allows is left >= 1: one call of left serves both, unless a label is spent
        left = budget.left(seen) if type(budget).allows is Budget.allows else None
        if budget.allows(seen) if left is None else left >= 1:
            p, reason = prop.p_acquire, "drawn"
            acquire = bool(self.rng_.random() < p)
            policy.on_decision(prop, acquire)
            self.step_open_ = True
            if acquire:
                budget.spend(seen)
                left = None
        else:
            acquire, p, reason = False, 0.0, budget.reason
        d = stamp.stamp(
            t=t,
            acquire=acquire,
            p=p,
            prop=prop,
            ctx=ctx,
            y_pred=y_pred,
            left=budget.left(seen) if left is None else left,
            reason=reason,
            version=learner.version,
        )
        if acquire:
            # Own copy: a row of query_many's batch is a view that would keep the whole
            # batch alive in the labelled pool (≈ 20× the memory per label in a service).
            pool.ask(t, _Pending(z.copy(), prop, ctx.y_index, d))
        return d

    @classmethod
    def of_fields(cls, fields: dict[str, Any]) -> DecisionPath:
        """The path of a model stored before the path was its own object (its ``_rng``
        and ``_step_open``, and its stamp's fields, popped from `fields`)."""
        path = cls().start(DecisionStamp.of_fields(fields), fields.pop("_rng"))
        path.step_open_ = fields.pop("_step_open")
        return path
