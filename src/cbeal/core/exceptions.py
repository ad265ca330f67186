"""Typed errors and warnings of cbeal.

Every error a user can trigger with bad input is one of these, and its message says
what to do. All input errors subclass :class:`ValueError`, so code that already catches
``ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = [
    "BudgetError",
    "CbealError",
    "DecisionError",
    "InvalidInputError",
    "NotFittedError",
    "SingleClassWarning",
    "UnknownLabelError",
]


class CbealError(Exception):
    """Base class of every error raised by cbeal."""


class InvalidInputError(CbealError, ValueError):
    """Features or labels of the wrong shape, type or value (NaN, inf, strings, lengths)."""


class UnknownLabelError(CbealError, ValueError):
    """A label that is not one of the model's classes."""


class BudgetError(CbealError, ValueError):
    """An invalid label budget (not a positive whole number)."""


class DecisionError(CbealError, ValueError):
    """A decision that cannot be labelled: not an acquisition, already labelled, or foreign."""


class NotFittedError(CbealError, RuntimeError):
    """The model was used before ``fit`` gave it an initial labelled set."""


class SingleClassWarning(UserWarning):
    """The labelled pool holds one class only; the learner predicts that class with certainty 1."""
