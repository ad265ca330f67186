"""The budget of a running stream model: how much is spent and left, and its renewal.

:meth:`~BudgetRenewal.renew_budget` gives a model that continues (for example the model a
``cbeal run`` saved) a new budget, counted from the next sample (a
:class:`~cbeal.models.renewal.RenewedBudget`), and re-paces the agents that pace
themselves to a share of the stream.
"""

from __future__ import annotations

from typing import Any, TypeVar

from cbeal.core import ParameterError, Params, ScoreFusion
from cbeal.core.budget import LabelCount, paced_share
from cbeal.models.renewal import RenewedBudget
from cbeal.models.stream_state import StreamState

__all__ = ["BudgetRenewal"]

B = TypeVar("B", bound="BudgetRenewal")


class BudgetRenewal(StreamState):
    """A stream model's budget in force and its renewal (one part of
    :class:`~cbeal.models.stream.StreamLearner`)."""

    def renew_budget(self: B, budget: Any, *, budget_fraction: float | None = None) -> B:
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
            fresh = renewed.budget_
            # a count without a pace of its own leaves the agents' pace as it is
            keeps = budget_fraction is None and isinstance(fresh, LabelCount) and fresh.pace is None
            share = None if keeps else paced_share(fresh, budget_fraction)
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
            # a pacer over the whole ensemble starts owing nothing against the new budget
            # (else it keeps the old budget's account, and the cap alone picks the samples)
            policy = self.policy_
            if isinstance(policy, ScoreFusion):
                policy.repace(float(share) if share is not None else policy.budget_fraction_now)
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
