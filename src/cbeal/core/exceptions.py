"""Typed errors and warnings of cbeal.

Every error a user can trigger with bad input is one of these, and its message says
what to do, in terms of the Python API (parameters, columns, methods); the command line
translates parameter names into its flags. All input errors subclass :class:`ValueError`,
so code that already catches ``ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = [
    "BudgetError",
    "CbealError",
    "DecisionError",
    "InvalidInputError",
    "ModelFileError",
    "NotFittedError",
    "ParameterError",
    "SingleClassWarning",
    "TaskError",
    "UnknownLabelError",
]


class CbealError(Exception):
    """Base class of every error raised by cbeal."""


class InvalidInputError(CbealError, ValueError):
    """Features or labels of the wrong shape, type or value (NaN, inf, strings, lengths)."""


class ParameterError(CbealError, ValueError, TypeError):
    """A constructor parameter with a wrong value or type (checked when it is first used).

    It is both a :class:`ValueError` and a :class:`TypeError`, like the errors
    scikit-learn raises for invalid parameters, so either ``except`` clause catches it.
    """


class TaskError(ParameterError):
    """An option of one kind of learner used with the other: a classifier-only agent or
    parameter with a regressor (or a regression one with a classifier)."""


class UnknownLabelError(CbealError, ValueError):
    """A label that is not one of the model's classes."""


class BudgetError(ParameterError):
    """An invalid label budget (neither a positive count nor a rate in (0, 1))."""


class DecisionError(CbealError, ValueError):
    """A decision that cannot be labelled: not an acquisition, already labelled, or foreign."""


class ModelFileError(CbealError, ValueError):
    """A model file that cannot be loaded: foreign, corrupt, truncated, unsafe or too new."""


class NotFittedError(CbealError, RuntimeError, ValueError, AttributeError):
    """The model was used before ``fit`` gave it an initial labelled set.

    Like scikit-learn's ``NotFittedError`` it is a ``ValueError`` and an
    ``AttributeError``; the stream models raise a subclass that is also scikit-learn's.
    """


class SingleClassWarning(UserWarning):
    """The labelled pool holds one class only; the learner predicts that class with certainty 1."""
