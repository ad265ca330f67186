"""One decision shape everywhere: :meth:`cbeal.Decision.to_dict`.

A model's decisions are stored and replied exactly as ``Decision.to_dict()`` gives them. The
service also decides without a model — during a cold start, and for the initial labelled
set — and writes those decisions in the same shape, with the fields a model would fill
left empty (``None`` or empty lists).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from cbeal.core import Decision

__all__ = ["DECISION_FIELDS", "cold_decision", "initial_decision"]

#: the keys of every decision dict the service stores or replies
DECISION_FIELDS = tuple(f.name for f in fields(Decision))
_LISTS = ("advice", "weights", "agent_names", "agent_kinds", "proba", "classes")


def _without_model(**known: Any) -> dict[str, Any]:
    out: dict[str, Any] = {name: ([] if name in _LISTS else None) for name in DECISION_FIELDS}
    out.update(learner_version=0, model_token="", budget_left=None)
    out.update(known)
    return out


def initial_decision() -> dict[str, Any]:
    """The decision recorded for a sample of the initial labelled set D0.

    >>> d = initial_decision()
    >>> set(d) == set(DECISION_FIELDS), d["acquire"], d["reason"]
    (True, False, 'initial labelled set')
    """
    return _without_model(acquire=False, p_acquire=0.0, reason="initial labelled set")


def cold_decision(decision_id: str, ask: bool) -> dict[str, Any]:
    """A cold stream's decision: it asks for its first labels, then waits for them."""
    return _without_model(
        id=decision_id if ask else None,
        acquire=ask,
        p_acquire=1.0 if ask else 0.0,
        reason="cold start: the first labels"
        if ask
        else "cold start: waiting for the first labels",
    )
