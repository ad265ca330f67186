"""One meaning for a budget, at every front door.

A share — ``"10%"``, ``0.1`` or ``"0.1"`` — is a **paced rate**, a token bucket: after
``t`` parts at most ``floor(0.1 · t + k)`` labels have been spent, ``k`` =
:data:`~cbeal.core.RATE_BURST` labels ahead of the even pace at most, so the labels spread
over the whole stream (over a file of known length, ``cbeal run`` also caps the total at
10 % of its rows). A
whole number — ``50`` or ``"50"`` — is a **count**: at most 50 labels, spent whenever the
agents ask (the paper's budget ``B``). Both are read by :func:`cbeal.core.as_budget`, the
only budget parser; this module adds the words and the arithmetic a front door needs.
"""

from __future__ import annotations

from typing import Any

from cbeal.core.budget import Budget, LabelCount, LabelRate, as_budget, paced_share

__all__ = ["DEFAULT_BUDGET", "budget", "budget_share", "describe_budget", "labels_allowed"]

#: The budget wherever none is given: `cbeal run`, a stream of `cbeal serve`, the stream
#: `cbeal replay --create` makes (about one part in ten, a few labels ahead at most).
DEFAULT_BUDGET = "10%"


def budget(value: Any) -> Budget:
    """A fresh budget from a count, a share, a percentage text or a :class:`Budget`.

    >>> budget("2%"), budget("50")
    (LabelRate(rate=0.02, burst=5.0), LabelCount(total=50))
    """
    return as_budget(value)


def labels_allowed(value: Any, n_stream: int) -> int:
    """The most labels `value` lets a stream of `n_stream` parts spend.

    >>> labels_allowed("10%", 485), labels_allowed(50, 485), labels_allowed(900, 485)
    (53, 50, 485)
    >>> from cbeal.core import LabelRate
    >>> labels_allowed(LabelRate(rate=0.1, burst=5, total=48), 485)
    48
    """
    return budget(value).labels_over(n_stream)


def budget_share(value: Any, n_stream: int | None = None) -> float:
    """The share of the stream the budget is paced at (:meth:`~cbeal.core.Budget.share`):
    the rate, or a count over `n_stream` (on a stream of unknown length the count's pace,
    by default :data:`~cbeal.core.DEFAULT_PACE`).

    >>> budget_share("5%"), budget_share(50, 1000), budget_share(50)
    (0.05, 0.05, 0.05)
    """
    return paced_share(value, None, n_stream)


def describe_budget(value: Any, n_stream: int | None = None) -> str:
    """The budget in words, with its meaning (paced or spent at will).

    >>> describe_budget("10%", 485).split("; ")
    ['10% of the parts, paced (at most 10 labels per 100 parts, up to 5 ahead of that pace',
     '53 over these 485 parts)']
    >>> describe_budget(50)
    '50 labels, spent whenever the agents ask'
    """
    b = budget(value)
    if isinstance(b, LabelRate):
        text = f"{100 * float(b.rate):g}% of the parts, paced (at most {100 * float(b.rate):g} "
        text += "labels per 100 parts"
        if float(b.burst) > 0:
            text += f", up to {float(b.burst):g} ahead of that pace"
        if b.window is not None:
            text += f", at most {b.max_in_window} in any {b.window}"
        if n_stream is not None:
            text += f"; {labels_allowed(b, n_stream)} over these {n_stream} parts"
        elif b.total is not None:
            text += f"; at most {b.total} in all"
        return text + ")"
    if isinstance(b, LabelCount):
        if b.pace is None:
            return f"{b.total} labels, spent whenever the agents ask"
        return (
            f"{b.total} labels, spent whenever the agents ask (paced at "
            f"{100 * float(b.pace):g}% of the parts while they last)"
        )
    return str(b)
