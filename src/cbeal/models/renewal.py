"""A budget that starts part-way through a stream: what :meth:`StreamLearner.renew_budget`
gives a model that continues (for example the model a ``cbeal run`` saved)."""

from __future__ import annotations

from typing import Any

from cbeal.core import Budget, BudgetError, as_budget

__all__ = ["RenewedBudget"]


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

    def __str__(self) -> str:
        return f"{self.budget_} from sample {int(self.after) + 1} on"
