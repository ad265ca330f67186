"""A method of a comparison: a named way to build a stream model (or a reference learner)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cbeal.catalog import AGENTS
from cbeal.models import StreamLearner

__all__ = ["Builder", "Method", "paper_agents"]

#: ``build(estimator, budget, n_stream, seed)`` → an unfitted stream model
Builder = Callable[[Any, int, int, int], StreamLearner]


@dataclass(frozen=True)
class Method:
    """A row of the paper's tables.

    ``build(estimator, budget, n_stream, seed)`` returns an unfitted stream model; ``None``
    marks the references "Initial" and "All Training Data". ``full`` adds the "(Full)"
    variant: unused budget spent at random after the stream. ``family`` groups rows:
    ``explore`` / ``exploit`` (single agents), ``cbeal``, ``benchmark``, ``extra``,
    ``crosscheck`` (scikit-activeml's implementations), ``reference``.
    """

    name: str
    family: str
    build: Builder | None
    full: bool = False


def paper_agents(kind: str) -> tuple[str, ...]:
    """The paper's agents of `kind` (``"exploration"`` or ``"exploitation"``), table order.

    >>> paper_agents("exploration")
    ('LD1', 'LD2', 'LD3', 'SPF1')
    """
    return tuple(n for n, e in AGENTS.items() if e.family == "paper" and e.kind == kind)
