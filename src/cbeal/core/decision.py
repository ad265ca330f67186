"""The answer of ``query_one``: whether to ask for a label, and why."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Decision"]


@dataclass(frozen=True, eq=False)
class Decision:
    """One acquisition decision, with the explanation of how it was reached.

    Attributes
    ----------
    id
        Position of the sample in the model's stream (0 for the first ``query_one``).
    acquire
        Whether to ask the expert for the label.
    p_acquire
        Probability with which the acquire arm was drawn (after ``p_min`` and ε; 0 when
        the budget was spent).
    advice
        Each agent's acquisition probability, in the order of ``agent_names``.
    weights
        Standardized agent weights used for this decision (sum 1).
    agent_names, agent_kinds
        Names and kinds (``"exploration"``/``"exploitation"``) of the agents.
    y_pred, proba, certainty
        The current learner's prediction, class probabilities (ordered as the model's
        ``classes_``) and their maximum, recorded *before* any retraining on this sample;
        the reward of the label is computed from ``y_pred``.
    budget_left
        Labels still available after this decision.
    reason
        ``"drawn"`` or ``"budget exhausted"``.
    """

    id: int
    acquire: bool
    p_acquire: float
    advice: np.ndarray
    weights: np.ndarray
    agent_names: tuple[str, ...]
    agent_kinds: tuple[str, ...]
    y_pred: Any
    proba: np.ndarray
    certainty: float
    budget_left: int
    reason: str = "drawn"
    model_token: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        for arr in (self.advice, self.weights, self.proba):
            arr.setflags(write=False)

    @property
    def wanted(self) -> tuple[str, ...]:
        """Names of the agents that voted to acquire (advice ≥ 0.5)."""
        return tuple(n for n, p in zip(self.agent_names, self.advice, strict=True) if p >= 0.5)

    @property
    def exploration_share(self) -> float:
        """Weight share of exploration agents among the agents voting to acquire (NaN if none)."""
        votes = self.advice >= 0.5
        total = float(self.weights[votes].sum())
        if total <= 0.0:
            return math.nan
        explore = np.array([k == "exploration" for k in self.agent_kinds]) & votes
        return float(self.weights[explore].sum()) / total

    @property
    def led_by(self) -> str | None:
        """Which kind of agents led an acquisition, by weight share among those voting for it.

        ``"exploration"`` or ``"exploitation"``; ``"epsilon"`` when no agent voted (the
        ε-greedy or ``p_min`` share of the draw); ``None`` when the sample was skipped.
        """
        if not self.acquire:
            return None
        share = self.exploration_share
        if math.isnan(share):
            return "epsilon"
        return "exploration" if share >= 0.5 else "exploitation"

    def explain(self) -> str:
        """One line a person can read, e.g. for a labelling queue."""
        if not self.acquire:
            head = f"#{self.id}: skip ({self.reason}, P(acquire)={self.p_acquire:.3f})"
        else:
            head = f"#{self.id}: ACQUIRE, {self.led_by}-led (P(acquire)={self.p_acquire:.3f})"
        votes = ", ".join(
            f"{n}={p:.2f}@w{w:.3f}"
            for n, p, w in zip(self.agent_names, self.advice, self.weights, strict=True)
        )
        return f"{head}; prediction {self.y_pred!r} at certainty {self.certainty:.3f}; {votes}"
