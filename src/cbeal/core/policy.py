"""The policy interface: how a stream model turns a context into an acquisition probability."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.ewma import ChartStep
from cbeal.core.params import Params

__all__ = ["Policy", "Proposal"]


@dataclass(frozen=True, init=False)
class Proposal:
    """A policy's answer for one sample: acquisition probability and its explanation.

    Score fusion also gives the fused `score` and the pacer's `threshold` (None when no
    label is due); the voting policy leaves both None.

    >>> Proposal(0.5, np.zeros(2), np.full(2, 0.5)).threshold is None
    True
    """

    p_acquire: float
    advice: np.ndarray
    weights: np.ndarray
    score: float | None = None
    threshold: float | None = None

    def __init__(
        self,
        p_acquire: float,
        advice: np.ndarray,
        weights: np.ndarray,
        score: float | None = None,
        threshold: float | None = None,
    ) -> None:
        # the fields at once: a third of the generated frozen __init__'s time, every sample
        self.__dict__.update(
            p_acquire=p_acquire, advice=advice, weights=weights, score=score, threshold=threshold
        )


class Policy(Params, ABC):
    """Scores samples; the stream model draws, spends the budget and delivers labels.

    Protocol per stream sample: :meth:`propose` (observes the sample), then
    :meth:`on_decision` if the model drew an action (not when the budget is spent), later
    :meth:`on_label` when a label of an acquisition arrives, and :meth:`end_step` once the
    sample's step is complete.
    """

    @abstractmethod
    def start(
        self,
        X0: np.ndarray,
        rng: np.random.Generator | None = None,
        y0: np.ndarray | None = None,
    ) -> Policy:
        """Reset for a new stream whose initial labelled set is `X0` (class indices `y0`).

        `rng` is the model's generator, for policies that draw random numbers of their own.
        """

    @property
    @abstractmethod
    def named_agents(self) -> list[tuple[str, Agent]]:
        """The (name, agent) pairs whose advice is reported, in order."""

    @abstractmethod
    def propose(self, ctx: Context) -> Proposal:
        """Observe the sample of `ctx` and return the acquisition probability."""

    def prepare(self, X: np.ndarray | None) -> None:
        """The next ``len(X)`` proposals are for the rows of `X`, in order (a batch of
        ``query_many``); a policy may compute ahead what does not depend on the decisions.
        None ends the batch (also when it failed part way). Default: nothing."""

    def on_decision(self, proposal: Proposal, acquired: bool) -> None:
        """A decision was drawn from `proposal`; `acquired` tells which arm."""

    def on_label(
        self, proposal: Proposal, reward: float, penalty: float, x: np.ndarray, y_index: int
    ) -> None:
        """The label (class index `y_index`) of acquisition `x` arrived with `reward`."""

    def end_step(self) -> ChartStep | None:
        """Close the step; a bandit policy returns its chart step."""
        return None
