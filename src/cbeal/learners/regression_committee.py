"""Committee agents for regression streams: committee variance (QBC for regression) and
expected model change (EMCM, Cai, Zhang & Zhou 2013).

Both keep a small committee of bootstrap refits of a regressor on the labelled pool (so
they live in the learner layer, the only one that knows scikit-learn) and score a part by
how much the committee's predictions for it vary, relative to the tolerance band.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from sklearn.base import clone

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError
from cbeal.core.recent_rank import RecentRank
from cbeal.core.regression import regression_context
from cbeal.learners.adapter import pinned
from cbeal.learners.committee import check_committee_sizes

__all__ = ["CommitteeVarianceAgent", "ExpectedChangeAgent"]


class _RegressionCommittee(Agent):
    """Bootstrap refits of `estimator` on the labelled pool, refitted every `refit_every`
    labels; subclasses turn the members' predictions for a part into a score."""

    kind: ClassVar[str] = "exploitation"
    tasks: ClassVar[tuple[str, ...]] = ("regression",)

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"n_members": 3, "refit_every": 3}, {"n_members": 2, "scale": "rank"}]

    def __init__(
        self,
        *,
        estimator: Any = None,
        n_members: int = 4,
        refit_every: int = 1,
        scale: str = "tolerance",
    ) -> None:
        self.estimator = estimator
        self.n_members = n_members
        self.refit_every = refit_every
        self.scale = scale

    def _template(self) -> Any:
        if self.estimator is not None:
            if not hasattr(self.estimator, "fit") or not hasattr(self.estimator, "predict"):
                raise ParameterError(
                    f"estimator must be a scikit-learn regressor, got {self.estimator!r}"
                )
            return self.estimator
        from sklearn.linear_model import Ridge

        return Ridge(alpha=1.0)

    def _start(self, X0: np.ndarray) -> None:
        check_committee_sizes(self)
        self._template()
        if self.scale not in ("tolerance", "rank"):
            raise ParameterError(f"scale must be 'tolerance' or 'rank', got {self.scale!r}")
        self.ranks_ = RecentRank(200)
        self.pool_X_: list[np.ndarray] = []
        self.pool_y_: list[float] = []
        self.members_: list[Any] = []
        self.since_refit_ = 0
        rows = np.hstack([X0, np.ones((X0.shape[0], 1))])
        self.scale_ = float(np.sqrt(np.mean(np.sum(rows**2, axis=1)))) if X0.size else 1.0

    def label_one(self, x: np.ndarray, y_index: Any) -> None:
        self.pool_X_.append(np.asarray(x, dtype=np.float64))
        self.pool_y_.append(float(y_index))
        self.since_refit_ += 1

    def _refit(self) -> None:
        X, y = np.asarray(self.pool_X_), np.asarray(self.pool_y_)
        template, members = self._template(), []
        for _ in range(int(self.n_members)):
            rows = self._rng.integers(0, y.shape[0], y.shape[0])
            est = clone(template)
            if "random_state" in est.get_params():
                est.set_params(random_state=int(self._rng.integers(2**31 - 1)))
            with pinned():  # one BLAS/OpenMP thread, as for the stream model's refits
                members.append(est.fit(X[rows], y[rows]))
        self.members_ = members
        self.since_refit_ = 0

    def _predictions(self, ctx: Context) -> np.ndarray | None:
        stale = not self.members_ or self.since_refit_ >= int(self.refit_every)
        if len(self.pool_y_) >= 2 and stale:
            self._refit()
        if not self.members_:
            return None  # too few labels for a committee
        x = np.asarray(ctx.x, dtype=np.float64)[None, :]
        return np.array([float(np.ravel(m.predict(x))[0]) for m in self.members_])

    def _scaled(self, value: float, scale: float) -> float:
        """`value` on [0, 1]: ``value / (value + scale)``, or its rank among recent values."""
        if getattr(self, "scale", "tolerance") == "rank":  # a model file of before: none
            return self.ranks_.rank(value)
        return value / (value + scale)


class CommitteeVarianceAgent(_RegressionCommittee):
    """QBC for regression: ask where bootstrap refits of the regressor disagree.

    The score is ``s / (s + tol)`` with ``s`` the members' standard deviation for the part
    and ``tol`` the tolerance: 0.5 when the committee's spread equals the tolerance, near
    1 when it is much wider. It measures what the model does not know yet (the variance
    of its fit), not the noise of the measurement.

    Parameters
    ----------
    estimator
        A scikit-learn regressor; None = ``Ridge()``. Give the stream model's learner.
    n_members
        Committee size (≥ 2).
    refit_every
        Refit the committee after this many new labels.
    scale
        ``"tolerance"`` (``s / (s + tol)``) or ``"rank"`` (the rank of ``s`` among the
        last 200 parts').

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core.regression import RegressionContext
    >>> from cbeal.learners.regression_committee import CommitteeVarianceAgent
    >>> rng = np.random.default_rng(0)
    >>> X0 = rng.uniform(-1, 1, size=(30, 1)); y0 = 3 * X0[:, 0] + 0.2 * rng.normal(size=30)
    >>> agent = CommitteeVarianceAgent().fit(X0, np.random.default_rng(1), y0)
    >>> near = agent.advise_one(RegressionContext(np.array([0.0]), 0.0, 0.2, 0.1))
    >>> far = agent.advise_one(RegressionContext(np.array([8.0]), 24.0, 0.2, 0.1))
    >>> bool(far > near)
    True
    """

    def __init__(
        self,
        *,
        estimator: Any = None,
        n_members: int = 4,
        refit_every: int = 1,
        scale: str = "tolerance",
    ) -> None:
        super().__init__(
            estimator=estimator, n_members=n_members, refit_every=refit_every, scale=scale
        )

    def advise_one(self, ctx: Context) -> float:
        tol = regression_context(ctx, self).tolerance
        preds = self._predictions(ctx)
        if preds is None:
            return 0.0
        return self._scaled(float(np.std(preds, ddof=1)), tol)


class ExpectedChangeAgent(_RegressionCommittee):
    """EMCM (Cai, Zhang & Zhou 2013): ask for the part whose label would change the model most.

    For a linear model trained by gradient steps, the change a label ``y`` makes is the
    gradient ``(ŷ − y) · x``; EMCM estimates the unknown ``y`` by bootstrap members
    ``f_k`` and scores ``mean_k |ŷ − f_k(x)| · ‖(x, 1)‖``. Here ``ŷ`` is the stream
    model's prediction (``RegressionContext.mean``) and the score is squashed to [0, 1) as
    ``c / (c + tol · r)``, ``r`` the root mean square norm of ``D0``'s rows. Cheap enough
    for streams: the committee is refitted only after labels, and a part costs one
    prediction per member.

    Parameters
    ----------
    estimator, n_members, refit_every, scale
        As :class:`CommitteeVarianceAgent`.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core.regression import RegressionContext
    >>> from cbeal.learners.regression_committee import ExpectedChangeAgent
    >>> rng = np.random.default_rng(0)
    >>> X0 = rng.uniform(-1, 1, size=(30, 1)); y0 = 3 * X0[:, 0] + 0.2 * rng.normal(size=30)
    >>> agent = ExpectedChangeAgent().fit(X0, np.random.default_rng(1), y0)
    >>> x = np.array([0.5])                   # the committee predicts about 1.5 here
    >>> agrees = agent.advise_one(RegressionContext(x, 1.5, 0.2, 0.1))
    >>> off = agent.advise_one(RegressionContext(x, 4.0, 0.2, 0.1))   # the model says 4.0
    >>> bool(off > 0.9 > 0.5 > agrees)
    True
    """

    def __init__(
        self,
        *,
        estimator: Any = None,
        n_members: int = 4,
        refit_every: int = 1,
        scale: str = "tolerance",
    ) -> None:
        super().__init__(
            estimator=estimator, n_members=n_members, refit_every=refit_every, scale=scale
        )

    def advise_one(self, ctx: Context) -> float:
        rctx = regression_context(ctx, self)
        preds = self._predictions(ctx)
        if preds is None:
            return 0.0
        norm = math.sqrt(float(np.dot(rctx.x, rctx.x)) + 1.0)
        change = float(np.mean(np.abs(rctx.mean - preds))) * norm
        return self._scaled(change, rctx.tolerance * self.scale_)
