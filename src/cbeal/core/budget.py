"""Label budgets: how many labels a stream model may spend, and when (numpy-free).

As in scikit-activeml, the strategy scores and a separate budget manager decides: the
agents and the bandit say how much a sample is worth asking for, the budget says whether a
label may be spent now. A refused sample is skipped without a draw, exactly as after the
paper's ``while budget_used < B``.

* :class:`LabelCount` is the paper's budget ``B``: a total, spent as early as the agents want.
* :class:`LabelRate` paces spending over a stream of unknown length, as a token bucket: after
  ``t`` samples at most ``floor(rate · t + burst)`` labels have been spent (``burst`` labels
  ahead of the even schedule at most), optionally at most ``max_in_window`` in any ``window``
  consecutive samples (an expert's capacity per shift) and at most ``total``.

Every budget knows the share of the stream it allows (:meth:`Budget.share`): the rate of a
rate, a count over the stream's length, or — on a stream of unknown length — the count's
`pace` (default :data:`DEFAULT_PACE`). Models that pace their spending take it from there.

Either is never exceeded: a label counts when the decision to acquire it is made, pending
labels included. :meth:`Budget.refund` gives a label back when a pending acquisition is
cancelled (its label was never bought).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections import deque
from typing import Any

from cbeal.core.exceptions import BudgetError
from cbeal.core.params import Params

__all__ = [
    "DEFAULT_PACE",
    "RATE_BURST",
    "Budget",
    "LabelCount",
    "LabelRate",
    "as_budget",
    "paced_share",
]

_EPS = 1e-9  # rate · t is a float: 0.29 · 100 = 28.999999999999996 must allow 29 labels

#: The share of the parts a count is paced at on a stream of unknown length, unless a
#: pace is given (``LabelCount(total=100, pace=0.02)``; a model's ``budget_fraction``).
DEFAULT_PACE = 0.05

#: Labels a share such as ``"10%"`` may run ahead of the even schedule (its token bucket's
#: depth, :class:`LabelRate`'s ``burst``): the 90th percentile, rounded up, of how far ahead
#: the recommended preset ran under a count budget on the development part (studies/BENCHMARK.md,
#: round 5: 4.6 labels).
RATE_BURST = 5.0


class Budget(Params, ABC):
    """A budget manager; ``t`` is the number of stream samples seen, the current one included."""

    def start(self) -> Budget:
        """Reset: nothing spent."""
        self._check()
        self.spent_ = 0
        return self

    def _check(self) -> None:
        """Validate the parameters (raise :class:`~cbeal.BudgetError`)."""

    @abstractmethod
    def left(self, t: int) -> int:
        """Labels that may be spent at sample `t` (0: none now)."""

    def allows(self, t: int) -> bool:
        """Whether one more label may be spent at sample `t`."""
        return self.left(t) >= 1

    def spend(self, t: int) -> None:
        """Spend one label on sample `t` (call only when :meth:`allows` said yes)."""
        self.spent_ += 1

    def refund(self, t: int) -> None:
        """Give back the label spent on sample `t` (a cancelled acquisition)."""
        if self.spent_ < 1:
            raise BudgetError("nothing was spent, so nothing can be refunded")
        self.spent_ -= 1

    @property
    @abstractmethod
    def reason(self) -> str:
        """Why a sample was skipped when :meth:`allows` says no, for a :class:`Decision`."""

    def share(self, n_stream: int | None = None) -> float:
        """The share of the samples this budget allows, for a stream of `n_stream` samples
        (None: of unknown length). The one rule every model paces by."""
        return DEFAULT_PACE

    def labels_over(self, n_stream: int) -> int:
        """The most labels this budget lets a stream of `n_stream` samples spend (the
        share↔count rule for a stream of known length)."""
        return n_stream

    def horizon(self, share: float) -> float | None:
        """The sample by which this budget is spent when paced at `share` (the count↔share
        rule read the other way); None when open-ended."""
        return None


class LabelCount(Budget):
    """At most `total` labels over the whole stream (the paper's budget ``B``).

    Parameters
    ----------
    total
        The number of labels.
    pace
        The share of the parts to spend them at while they last, for models that pace
        their spending; None: ``total / n`` on a stream of known length ``n``, else
        :data:`DEFAULT_PACE`.

    Examples
    --------
    >>> from cbeal.core import LabelCount
    >>> b = LabelCount(total=2).start()
    >>> b.allows(1), b.spend(1), b.spend(2), b.allows(3)
    (True, None, None, False)
    >>> b.refund(2); b.left(3)
    1
    >>> b.share(1000), b.share(), LabelCount(total=2, pace=0.01).share()
    (0.002, 0.05, 0.01)
    >>> b.horizon(0.05), b.labels_over(1)       # spent by sample 40 at 5 % of the parts
    (40.0, 1)
    """

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"total": 12}, {"total": 12, "pace": 0.02}]

    def __init__(self, *, total: int = 100, pace: float | None = None) -> None:
        self.total = total
        self.pace = pace

    def _check(self) -> None:
        _check_count(self.total, "total")
        if self.pace is not None:
            _check_share(self.pace, "pace")

    def share(self, n_stream: int | None = None) -> float:
        if self.pace is not None:
            return float(self.pace)
        if n_stream is None or n_stream < 1:
            return DEFAULT_PACE
        return min(1.0, int(self.total) / n_stream)

    def labels_over(self, n_stream: int) -> int:
        return min(int(self.total), n_stream)

    def horizon(self, share: float) -> float | None:
        return float(self.total) / float(share)

    def left(self, t: int) -> int:
        return int(self.total) - self.spent_

    @property
    def reason(self) -> str:
        return "budget exhausted"

    def __str__(self) -> str:
        text = f"{self.total} labels"
        return text if self.pace is None else f"{text}, paced at {100 * float(self.pace):g}%"


class LabelRate(Budget):
    """At most ``floor(rate · t + burst)`` labels after ``t`` samples: a share of the parts,
    paced as a token bucket.

    The allowance grows by `rate` per sample and unused allowance carries over, so a quiet
    spell lets the agents ask more later; `burst` lets them run that many labels ahead of
    the even schedule when good samples come early; `window` and `max_in_window` bound
    bursts in time (e.g. at most 20 labels in any 1,000 samples), and `total` caps the
    whole stream.

    Parameters
    ----------
    rate
        Share of the samples that may be labelled, in (0, 1); e.g. 0.02 for 2 % of parts.
    burst
        Labels that may be spent ahead of ``rate · t`` (the bucket's depth, ``≥ 0``); 0 is
        the strict cap ``floor(rate · t)``. A share read from text or a number
        (:func:`as_budget`) gets :data:`RATE_BURST`.
    total
        Optional cap on all labels.
    window, max_in_window
        Optional: at most `max_in_window` labels among any `window` consecutive samples.

    Examples
    --------
    >>> from cbeal.core import LabelRate
    >>> b = LabelRate(rate=0.1).start()
    >>> [b.allows(t) for t in (1, 9, 10)]       # the first label after 10 samples
    [False, False, True]
    >>> b.spend(10); b.allows(19), b.allows(20)
    (False, True)

    A bucket two labels deep lets the first two labels come at once:

    >>> b = LabelRate(rate=0.1, burst=2).start()
    >>> b.left(1), b.left(10)
    (2, 3)
    >>> b.horizon(0.1), LabelRate(rate=0.05, total=10).horizon(0.05), b.labels_over(100)
    (None, 200.0, 12)
    """

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"rate": 0.05, "window": 100, "max_in_window": 3}, {"rate": 0.05, "burst": 2}]

    def __init__(
        self,
        *,
        rate: float = 0.1,
        burst: float = 0.0,
        total: int | None = None,
        window: int | None = None,
        max_in_window: int | None = None,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.total = total
        self.window = window
        self.max_in_window = max_in_window

    def _check(self) -> None:
        rate = self.rate
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate < 1:
            raise BudgetError(
                f"rate must be a share of the samples in (0, 1), got {rate!r}; e.g. 0.02 "
                "for 2 % of the parts"
            )
        burst = self.burst
        if isinstance(burst, bool) or not isinstance(burst, (int, float)) or not burst >= 0:
            raise BudgetError(f"burst must be a number of labels ≥ 0, got {burst!r}")
        if self.total is not None:
            _check_count(self.total, "total")
        if (self.window is None) != (self.max_in_window is None):
            raise BudgetError("give window and max_in_window together, or neither")
        if self.window is not None:
            _check_count(self.window, "window")
            _check_count(self.max_in_window, "max_in_window")

    def start(self) -> LabelRate:
        super().start()
        self.recent_: deque[int] = deque()  # sample numbers of the labels in the window
        return self

    def left(self, t: int) -> int:
        n = math.floor(float(self.rate) * t + float(self.burst) + _EPS) - self.spent_
        if self.total is not None:
            n = min(n, int(self.total) - self.spent_)
        if self.window is not None:
            recent = self.recent_
            while recent and recent[0] <= t - int(self.window):
                recent.popleft()
            n = min(n, int(self.max_in_window) - len(recent))  # type: ignore[arg-type]
        return max(n, 0)

    def spend(self, t: int) -> None:
        super().spend(t)
        if self.window is not None:
            self.recent_.append(t)

    def refund(self, t: int) -> None:
        super().refund(t)
        if t in self.recent_:
            self.recent_.remove(t)

    @property
    def reason(self) -> str:
        return "label rate reached"

    def share(self, n_stream: int | None = None) -> float:
        return float(self.rate)

    def labels_over(self, n_stream: int) -> int:
        n = math.floor(float(self.rate) * n_stream + float(self.burst) + _EPS)
        return min(n, int(self.total)) if self.total is not None else n

    def horizon(self, share: float) -> float | None:
        return None if self.total is None else float(self.total) / float(self.rate)

    def __str__(self) -> str:
        text = f"{100 * float(self.rate):g}% of samples"
        if float(self.burst) > 0:
            text += f" (up to {float(self.burst):g} labels ahead)"
        if self.window is not None:
            text += f", at most {self.max_in_window} in any {self.window}"
        if self.total is not None:
            text += f", at most {self.total} in all"
        return text


def _check_share(value: Any, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise BudgetError(
            f"{name} must be a share of the parts in (0, 1], got {value!r}; e.g. 0.05 for 5 %"
        )


def _check_count(value: Any, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BudgetError(f"{name} must be a whole number ≥ 1, got {value!r}")


def paced_share(budget: Any, pace: float | None = None, n_stream: int | None = None) -> float:
    """The share of the stream a model paces `budget` at: `pace` when given (a model's
    ``budget_fraction``), else the budget's own :meth:`Budget.share` over `n_stream`
    samples. The one place a model's pace is derived.

    >>> paced_share(0.02), paced_share(50, n_stream=1000), paced_share(50), paced_share(50, 0.1)
    (0.02, 0.05, 0.05, 0.1)
    """
    if pace is not None:
        return pace
    return as_budget(budget).share(n_stream)


def as_budget(value: Any) -> Budget:
    """A fresh budget from a count, a rate, a percentage string or a :class:`Budget`.

    A whole number ``≥ 1`` is a :class:`LabelCount`; a number in (0, 1) or a string such as
    ``"2%"`` is a :class:`LabelRate`; a :class:`Budget` is cloned.

    >>> as_budget(148), as_budget(0.02), as_budget("2%"), as_budget(20.0)
    (LabelCount(total=148), LabelRate(rate=0.02, burst=5.0), LabelRate(rate=0.02, burst=5.0),
     LabelCount(total=20))
    """
    if isinstance(value, Budget):
        return value.clone().start()
    if isinstance(value, str):
        text = value.strip()
        try:
            number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise BudgetError(
                f"cannot read the budget {value!r}; write a number of labels such as 50, or "
                "a share such as 0.02 or '2%'"
            ) from None
        if text.endswith("%") and not 0 < number < 1:
            raise BudgetError(
                f"a budget in percent must be more than 0 % and less than 100 %, got {value!r}; "
                "e.g. '10%'"
            )
        return as_budget(number)
    if not isinstance(value, bool) and hasattr(value, "__index__"):
        value = int(value)  # numpy integers
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BudgetError(
            f"budget must be a number of labels (e.g. 148), a share of the samples (e.g. "
            f"0.02) or a Budget object, got {value!r}"
        )
    value = float(value) if not isinstance(value, int) else value
    if isinstance(value, float) and 0 < value < 1:
        return LabelRate(rate=value, burst=RATE_BURST).start()
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and value >= 1:
        return LabelCount(total=value).start()
    raise BudgetError(
        f"budget must be at least 1 label or a share in (0, 1), got {value!r}; a model with "
        "no budget can never ask for a label"
    )
