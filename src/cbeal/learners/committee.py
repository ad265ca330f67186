"""QBC-Agent: committee disagreement of bootstrap refits of the learner, for score fusion.

The committee refits scikit-learn estimators, so it lives in the learner layer (the only
one that knows scikit-learn); it is an :class:`~cbeal.core.Agent` like any other.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError
from cbeal.learners.adapter import LearnerAdapter, check_estimator_has_proba

__all__ = ["CommitteeAgent", "check_committee_sizes", "disagreement"]


def disagreement(P: np.ndarray) -> float:
    """Jensen-Shannon divergence of the members' class probabilities (rows of `P`),
    divided by its largest possible value ``log min(M, K)``: 0 when all agree, 1 when each
    is certain of a different class.

    >>> import numpy as np
    >>> disagreement(np.array([[0.5, 0.5], [0.5, 0.5]])), disagreement(np.eye(2))
    (0.0, 1.0)
    """
    m, k = P.shape
    bound = math.log(min(m, k))
    if bound <= 0.0:
        return 0.0

    def entropy(p: np.ndarray) -> np.ndarray:
        return -np.sum(np.where(p > 0.0, p * np.log(np.where(p > 0.0, p, 1.0)), 0.0), axis=-1)

    js = float(entropy(P.mean(axis=0)) - entropy(P).mean())
    return min(1.0, max(0.0, js / bound))


def check_committee_sizes(agent: Any) -> None:
    """A committee agent's `n_members` (≥ 2) and `refit_every` (≥ 1), or a ParameterError."""
    for name, low in (("n_members", 2), ("refit_every", 1)):
        value = getattr(agent, name)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ParameterError(f"{name} must be a whole number ≥ {low}, got {value!r}")


class CommitteeAgent(Agent):
    """Ask where a committee of bootstrap refits of the learner disagrees.

    Each of `n_members` copies of `estimator` is refitted on its own bootstrap resample of
    the labelled pool (``D0`` and every label since) after every `refit_every` labels; the
    score is their normalised Jensen-Shannon :func:`disagreement`. Disagreement measures
    what the learner does not know yet from its few labels (the variance of its fit),
    not how close a sample lies to its boundary: a sample the members all place near the
    boundary scores 0. The resamples are drawn from the stream model's generator.

    Parameters
    ----------
    estimator
        A scikit-learn classifier with ``predict_proba``; None = logistic regression.
        Give the stream model's learner so that the committee perturbs it.
    n_members
        Committee size (≥ 2).
    refit_every
        Refit the committee after this many new labels.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context
    >>> from cbeal.learners.committee import CommitteeAgent
    >>> rng = np.random.default_rng(0)
    >>> X0 = rng.normal(size=(30, 2))
    >>> y0 = (X0[:, 0] + 0.3 * rng.normal(size=30) > 0).astype(int)
    >>> agent = CommitteeAgent(n_members=4).fit(X0, np.random.default_rng(1), y0)
    >>> p = np.array([0.5, 0.5])
    >>> far = agent.advise_one(Context(np.array([6.0, 0.0]), p))    # all agree: class 1
    >>> edge = agent.advise_one(Context(np.array([0.0, 6.0]), p))   # the boundary's far end
    >>> bool(far < 0.01), bool(edge > far)
    (True, True)
    """

    kind: ClassVar[str] = "exploitation"

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"n_members": 2, "refit_every": 3}]

    def __init__(self, *, estimator: Any = None, n_members: int = 3, refit_every: int = 1) -> None:
        self.estimator = estimator
        self.n_members = n_members
        self.refit_every = refit_every

    def _template(self) -> Any:
        if self.estimator is not None:
            check_estimator_has_proba(self.estimator)
            return self.estimator
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=1000)

    def _start(self, X0: np.ndarray) -> None:
        check_committee_sizes(self)
        self._template()  # a bad estimator fails at fit, not at the first sample
        self.pool_X_: list[np.ndarray] = []
        self.pool_y_: list[int] = []
        self.members_: list[LearnerAdapter] = []
        self.n_classes_ = 0
        self.since_refit_ = 0

    def label_one(self, x: np.ndarray, y_index: int) -> None:
        self.pool_X_.append(np.asarray(x, dtype=np.float64))
        self.pool_y_.append(int(y_index))
        self.since_refit_ += 1

    def _refit(self, k: int) -> None:
        X, y = np.asarray(self.pool_X_), np.asarray(self.pool_y_)
        template = self._template()
        classes = np.arange(k)
        members = []
        for _ in range(int(self.n_members)):
            rows = self._rng.integers(0, y.shape[0], y.shape[0])
            seed = int(self._rng.integers(2**31 - 1))
            members.append(
                LearnerAdapter(template, classes, seed).fit(X[rows], y[rows], warn=False)
            )
        self.members_ = members
        self.n_classes_ = k
        self.since_refit_ = 0

    def advise_one(self, ctx: Context) -> float:
        k = ctx.proba.shape[0]
        stale = not self.members_ or self.since_refit_ >= int(self.refit_every)
        if self.pool_y_ and (stale or k != self.n_classes_):
            self._refit(k)
        if not self.members_:
            return 0.0  # nothing labelled yet: no committee
        x = np.asarray(ctx.x, dtype=np.float64)[None, :]
        P = np.vstack([m.predict_proba(x) for m in self.members_])
        return disagreement(P)
