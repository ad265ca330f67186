"""A stream model from a catalog name: the one builder every front door uses."""

from __future__ import annotations

from typing import Any

from cbeal.catalog import AgentEntry, strategy_entry
from cbeal.core import paced_share
from cbeal.models.cbeal import CbeAL
from cbeal.models.single import SingleAgentLearner
from cbeal.models.stream import StreamLearner

__all__ = ["stream_model"]


def stream_model(
    name: str | None = None,
    *,
    budget: Any,
    n_stream: int | None = None,
    budget_fraction: float | None = None,
    **params: Any,
) -> StreamLearner:
    """A fresh, unfitted stream model for `name`: a preset (None: the recommended one) is
    a :class:`~cbeal.CbeAL`, an agent a :class:`~cbeal.SingleAgentLearner` (ε = 0 unless
    given).

    Agents that pace themselves are built for `budget_fraction`, else the rate of
    `budget`, else a count `budget` over `n_stream` samples. Further `params` go to the
    model (estimator, classes, random_state, …).

    >>> from sklearn.linear_model import LogisticRegression
    >>> stream_model("ENT", budget=0.05, estimator=LogisticRegression()).agent
    EntropyAgent(budget_fraction=0.05)
    >>> stream_model(budget=30, n_stream=600, estimator=LogisticRegression()).agents[2][1]
    EntropyAgent(budget_fraction=0.05)
    """
    share = paced_share(budget, budget_fraction, n_stream)
    entry = strategy_entry(name) if name is not None else None
    if isinstance(entry, AgentEntry):
        params.setdefault("epsilon", 0.0)
        return SingleAgentLearner(
            agent=entry.build(share), name=entry.name, budget=budget, **params
        )
    return CbeAL.from_preset(
        None if entry is None else entry.name, budget_fraction=share, budget=budget, **params
    )
