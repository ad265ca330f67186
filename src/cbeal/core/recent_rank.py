"""Scores on one scale: a value's rank among the recent values of the same quantity.

Members of score fusion measure different things (a committee's spread in the target's
unit, a distance in the inputs' space, a surprise ratio); a weighted mean of them is only
fair when each lies on the same scale. :class:`RecentRank` puts a raw value on the scale
of its own recent history: the share of the last `window` values below it (ties count
half), so a member's score is uniform on [0, 1] whatever its unit and whatever the
tolerance, and the mean of several members weighs each alike.
"""

from __future__ import annotations

import numpy as np

from cbeal.core.exceptions import ParameterError

__all__ = ["RecentRank", "check_window"]


def check_window(window: object, name: str = "window") -> int:
    """`window` as a whole number ≥ 2, or a :class:`~cbeal.core.ParameterError`."""
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 2:
        raise ParameterError(f"{name} must be a whole number ≥ 2, got {window!r}")
    return int(window)


class RecentRank:
    """The rank of each new value among the last `window` values (then it joins them).

    Examples
    --------
    >>> from cbeal.core.recent_rank import RecentRank
    >>> r = RecentRank(4)
    >>> [r.rank(v) for v in (5.0, 1.0, 3.0, 9.0, 3.0)]   # first: no history, the middle
    [0.5, 0.0, 0.5, 1.0, 0.375]
    """

    __slots__ = ("next", "size", "values")

    def __init__(self, window: int) -> None:
        self.values = np.zeros(check_window(window))
        self.size = 0
        self.next = 0

    def rank(self, value: float) -> float:
        """The share of the recent values below `value` (ties half; 0.5 with no history)."""
        past = self.values[: self.size]
        if self.size:
            below = np.count_nonzero(past < value) + 0.5 * np.count_nonzero(past == value)
            share = float(below) / self.size
        else:
            share = 0.5
        self.values[self.next] = value
        self.next = (self.next + 1) % self.values.shape[0]
        self.size = min(self.size + 1, self.values.shape[0])
        return share
