"""The agent interface: an agent turns the context of one sample into an acquisition probability."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from cbeal.core.params import Params
from cbeal.core.validation import check_features

__all__ = ["Agent", "Context"]


class Context:
    """What an agent sees of sample ``x_t``: the sample and the current learner's prediction.

    ``proba`` are the class probabilities of the learner *before* it is retrained on
    ``x_t``; ``certainty`` is their maximum and ``y_index`` the position of the predicted
    class in the model's ``classes_``.
    """

    __slots__ = ("certainty", "proba", "x", "y_index")

    def __init__(self, x: np.ndarray, proba: np.ndarray) -> None:
        self.x = x
        self.proba = proba
        if proba.shape[0] <= 8:  # a few classes: argmax's answer from plain floats, sooner
            values = proba.tolist()
            total = sum(values)
            if total == total:  # no NaN (argmax stops at the first NaN; max would not)
                top = max(values)  # the first of equal maxima, as argmax
                self.y_index = values.index(top)
                self.certainty = top
                return
        self.y_index = int(proba.argmax())
        self.certainty = float(proba[self.y_index])

    def __repr__(self) -> str:
        return f"Context(y_index={self.y_index}, certainty={self.certainty:.4f})"


class Agent(Params, ABC):
    """An active-learning agent (an *expert* of the bandit).

    Subclasses set ``kind`` to ``"exploration"`` or ``"exploitation"`` and implement
    :meth:`advise_one`. The stream protocol is:

    1. :meth:`fit` with the inputs of the initial labelled set ``D0`` (resets all state);
    2. :meth:`advise_one` once per stream sample, in stream order: it returns the
       probability ``p`` of acquiring the sample and *observes* it (windows slide);
    3. :meth:`reward_one` when the label of an acquired sample arrives, with the advice
       this agent gave for it.
    """

    kind: ClassVar[str] = "exploration"  # or "exploitation", or "hybrid" for baselines
    #: the streams it works on: a classifier's, a regressor's (``"regression"``) or both
    tasks: ClassVar[tuple[str, ...]] = ("classification",)

    def fit(self, X0: Any, rng: np.random.Generator | None = None, y0: Any = None) -> Agent:
        """Reset the agent and initialise it with the inputs of ``D0`` (oldest first).

        `rng` is the stream model's generator; agents that draw random numbers use it, so
        that the model's seed fixes their draws too (a standalone agent gets a fresh one).
        `y0` are the class indices of ``D0`` (a regressor's targets), for agents that learn
        from labels.
        """
        X = check_features(X0, what="X0")
        self._rng = rng if rng is not None else np.random.default_rng()
        self._start(X)
        if y0 is not None:
            for x, k in zip(X, np.asarray(y0), strict=True):
                self.label_one(x, k.item())  # a class index, or a regressor's target
        return self

    @abstractmethod
    def _start(self, X0: np.ndarray) -> None:
        """Reset learned state from the validated ``D0`` inputs."""

    @abstractmethod
    def advise_one(self, ctx: Context) -> float:
        """Acquisition probability for ``ctx.x`` in [0, 1]; observes the sample."""

    def score_one(self, ctx: Context) -> float:
        """How much ``ctx.x`` is worth asking for, a graded score in [0, 1]; observes it.

        Score fusion (:class:`~cbeal.core.ScoreFusion`) calls this instead of
        :meth:`advise_one`, once per sample. The default is the advice; an agent whose
        advice is all-or-nothing (RAL) grades it here, without changing its advice.
        """
        return self.advise_one(ctx)

    def reward_one(self, advice: float, reward: float, penalty: float) -> None:
        """Learn from the reward of an acquired sample (default: nothing to learn)."""

    def decided_one(self, advice: float, acquired: bool) -> None:
        """The model drew its decision on the last sample (default: nothing to track)."""

    def label_one(self, x: np.ndarray, y_index: Any) -> None:
        """A labelled sample joined the pool (default: the agent does not use labels).

        `y_index` is the class index, or a regressor's measured value (a float)."""

    @property
    def name(self) -> str:
        """A short display name, e.g. ``LD(L=100, δ=0.01)``."""
        return repr(self)
