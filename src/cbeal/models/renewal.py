"""A budget that starts part-way through a stream: what :meth:`StreamLearner.renew_budget`
gives a model that continues (for example the model a ``cbeal run`` saved)."""

from __future__ import annotations

from typing import Any

from cbeal.core import Budget, BudgetError, ParameterError, Params, Policy, ScoreFusion, as_budget
from cbeal.core.budget import LabelCount, paced_share

__all__ = ["RenewedBudget", "repace"]


class RenewedBudget(Budget):
    """`budget`, counted from the stream sample after sample `after`.

    A count gives that many labels from then on; a rate paces them from then on: ``t``
    samples after the renewal, at most ``floor(rate · t)`` labels. Labels spent before the
    renewal do not count against it, and cancelling a decision made before it gives
    nothing back (its label was spent from the budget that ended); so the new budget is
    never exceeded.

    Parameters
    ----------
    budget
        A count, a share or a :class:`~cbeal.core.Budget` (read by
        :func:`~cbeal.core.as_budget`).
    after
        The number of stream samples seen when the budget was renewed.

    Examples
    --------
    >>> from cbeal.core import LabelRate
    >>> b = RenewedBudget(budget=LabelRate(rate=0.1), after=500).start()
    >>> b.allows(500), b.allows(509), b.allows(510)
    (False, False, True)
    >>> b.spend(510); b.spent_, b.left(520)
    (1, 1)
    >>> b.refund(400); b.spent_    # a decision from before the renewal: nothing to give back
    1
    """

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"budget": 20, "after": 100}]

    def __init__(self, *, budget: Any = "10%", after: int = 0) -> None:
        self.budget = budget
        self.after = after

    def _check(self) -> None:
        after = self.after
        if isinstance(after, bool) or not isinstance(after, int) or after < 0:
            raise BudgetError(f"after must be a number of samples ≥ 0, got {after!r}")
        if isinstance(self.budget, RenewedBudget):
            raise BudgetError(
                "renew a budget with a count, a share or a Budget, not another renewal"
            )

    def start(self) -> RenewedBudget:
        super().start()
        self.budget_ = as_budget(self.budget)
        return self

    def left(self, t: int) -> int:
        return self.budget_.left(max(t - int(self.after), 0))

    def spend(self, t: int) -> None:
        self.budget_.spend(t - int(self.after))
        super().spend(t)

    def refund(self, t: int) -> None:
        if t <= int(self.after):
            return  # spent from the budget before the renewal, which has ended
        self.budget_.refund(t - int(self.after))
        super().refund(t)

    @property
    def reason(self) -> str:
        return self.budget_.reason

    def share(self, n_stream: int | None = None) -> float:
        return self.budget_.share(n_stream)

    def pace(self, budget_fraction: float | None = None) -> float | None:
        """The share the agents that pace themselves are re-paced to: `budget_fraction`,
        else the new budget's share; None for a count without a pace of its own (the
        agents keep theirs).

        >>> count, share = RenewedBudget(budget=50), RenewedBudget(budget="5%")
        >>> count.start().pace(), share.start().pace(), count.pace(0.1)
        (None, 0.05, 0.1)
        """
        fresh = self.budget_
        keeps = budget_fraction is None and isinstance(fresh, LabelCount) and fresh.pace is None
        share = None if keeps else paced_share(fresh, budget_fraction)
        if share is not None and not (
            isinstance(share, (int, float)) and not isinstance(share, bool) and 0 < share <= 1
        ):
            raise ParameterError(
                f"budget_fraction must be the share of the coming samples the budget "
                f"allows, in (0, 1], got {budget_fraction!r}"
            )
        return None if share is None else float(share)

    def __str__(self) -> str:
        return f"{self.budget_} from sample {int(self.after) + 1} on"


def repace(agents: list[Params], params: dict[str, Any], share: float) -> None:
    """Set `share` as the ``budget_fraction`` of every agent that has one: the running
    `agents` and the templates among a model's `params` that a later ``fit`` copies."""
    found = list(agents)
    stack = list(params.values())
    while stack:
        value = stack.pop()
        if isinstance(value, (list, tuple)):
            stack.extend(value)
        elif isinstance(value, Params) and "budget_fraction" in value.get_params(deep=False):
            found.append(value)
    for agent in found:
        if "budget_fraction" in agent.get_params(deep=False):
            agent.set_params(budget_fraction=share)


def repace_policy(policy: Policy, params: dict[str, Any], share: float | None) -> None:
    """Re-pace a running `policy` to a renewed budget's `share` (None: a count without a
    pace, which the agents keep); `params`: the model's, whose agents a later fit copies."""
    if share is not None:
        repace([a for _, a in policy.named_agents], params, share)
    # a pacer over the whole ensemble starts owing nothing against the new budget
    # (else it keeps the old budget's account, and the cap alone picks the samples)
    if isinstance(policy, ScoreFusion):
        policy.repace(share if share is not None else policy.budget_fraction_now)
