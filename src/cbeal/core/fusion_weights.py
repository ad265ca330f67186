"""How score fusion weighs its members: equal weights, or weights that need evidence.

Both rules see every member's score on every sample (:meth:`FusionWeights.observe_one`)
and, for each labelled sample, whether the label was useful (the learner was wrong,
:meth:`FusionWeights.learn_one`) — full information, since a member's score is known for
every labelled sample whether or not that member wanted it.

:class:`EqualWeights` is the control. :class:`EvidenceWeights` moves a member's weight
only on evidence that its scores *rank* the useful labels higher: the gain of a label is
the member's score minus its own running mean, times the usefulness minus its running
mean. A member that asks for everything has no deviation from its mean, so it gains
nothing however often the learner is wrong; a member whose scores are unrelated to the
usefulness gains a random walk, which the evidence threshold keeps at the even mix.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from cbeal.core.exceptions import ParameterError
from cbeal.core.params import Params

__all__ = ["EqualWeights", "EvidenceWeights", "FusionWeights"]


class FusionWeights(Params, ABC):
    """A rule for the weights of score fusion's members (they sum to 1)."""

    def start(self, n_members: int) -> FusionWeights:
        """Reset for `n_members` members: the even mix."""
        self.n_members_ = int(n_members)
        self.weights_ = np.full(self.n_members_, 1.0 / self.n_members_)
        self._start()
        return self

    def _start(self) -> None:
        """Reset the rule's own state."""

    def weights(self) -> np.ndarray:
        """The current weights (a fresh array)."""
        return self.weights_.copy()

    def observe_one(self, scores: np.ndarray) -> None:
        """The members' scores of one stream sample (default: nothing to track)."""

    @abstractmethod
    def learn_one(self, scores: np.ndarray, useful: bool) -> None:
        """A labelled sample whose members' scores were `scores`; `useful`: the learner was
        wrong on it."""


class EqualWeights(FusionWeights):
    """Every member weighs ``1/m`` for the whole stream (the control).

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import EqualWeights
    >>> rule = EqualWeights().start(n_members=4)
    >>> rule.learn_one(np.array([1.0, 0.0, 0.2, 0.4]), useful=True)
    >>> rule.weights().tolist()
    [0.25, 0.25, 0.25, 0.25]
    """

    def __init__(self) -> None:
        pass

    def learn_one(self, scores: np.ndarray, useful: bool) -> None:
        return None


class EvidenceWeights(FusionWeights):
    """Exponential weights on each member's evidence that its scores find useful labels.

    For a labelled sample with usefulness ``u`` (1 if the learner was wrong, else 0) member
    ``i`` gains ``g_i = (s_i − m_i)(u − ū)``: ``m_i`` is the member's mean score over the
    recent stream (about `memory` samples), ``ū`` the mean usefulness of the labels so far.
    Its evidence is the self-normalised sum ``z_i = Σ g_i / sqrt(Σ g_i²)`` (about standard
    normal when the scores say nothing about usefulness); the weights are
    ``w_i ∝ exp(gain · max(0, |z_i| − threshold) · sign z_i)``, the even mix until some
    member's evidence passes `threshold`.

    Parameters
    ----------
    gain
        How strongly evidence beyond the threshold moves the weights.
    threshold
        The evidence ``|z|`` a member needs before its weight moves at all.
    memory
        Samples over which a member's mean score is taken.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import EvidenceWeights
    >>> rule = EvidenceWeights().start(n_members=2)
    >>> rng = np.random.default_rng(0)
    >>> for _ in range(300):
    ...     s = rng.random(2)
    ...     rule.observe_one(s)
    ...     rule.learn_one(s, useful=bool(rng.random() < s[0]))  # member 0 knows
    >>> w = rule.weights()
    >>> bool(w[0] > 0.7), round(float(w.sum()), 6)
    (True, 1.0)
    """

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"gain": 1.0, "threshold": 1.0, "memory": 50}]

    def __init__(self, *, gain: float = 0.5, threshold: float = 2.0, memory: int = 200) -> None:
        self.gain = gain
        self.threshold = threshold
        self.memory = memory

    def _start(self) -> None:
        for name in ("gain", "threshold"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ParameterError(f"{name} must be a number ≥ 0, got {value!r}")
        mem = self.memory
        if isinstance(mem, bool) or not isinstance(mem, (int, np.integer)) or mem < 1:
            raise ParameterError(f"memory must be a whole number ≥ 1, got {mem!r}")
        m = self.n_members_
        self.mean_score_ = np.full(m, math.nan)  # set by the first observed sample
        self.n_labels_ = 0
        self.mean_useful_ = 0.0
        self.sum_gain_ = np.zeros(m)
        self.sum_sq_ = np.zeros(m)

    def observe_one(self, scores: np.ndarray) -> None:
        mean = self.mean_score_
        if np.isnan(mean[0]):
            mean[:] = scores
        else:
            mean += (scores - mean) / float(self.memory)

    def learn_one(self, scores: np.ndarray, useful: bool) -> None:
        u = 1.0 if useful else 0.0
        base = self.mean_score_ if not np.isnan(self.mean_score_[0]) else scores
        if self.n_labels_ > 0:  # no mean usefulness before the first label
            g = (scores - base) * (u - self.mean_useful_)
            self.sum_gain_ += g
            self.sum_sq_ += g * g
        self.n_labels_ += 1
        self.mean_useful_ += (u - self.mean_useful_) / self.n_labels_
        self.weights_ = self._weights()

    def evidence(self) -> np.ndarray:
        """Each member's ``z`` (0 before any gain)."""
        sq = self.sum_sq_
        return np.where(sq > 0.0, self.sum_gain_ / np.sqrt(np.where(sq > 0.0, sq, 1.0)), 0.0)

    def _weights(self) -> np.ndarray:
        z = self.evidence()
        shrunk = np.sign(z) * np.maximum(0.0, np.abs(z) - float(self.threshold))
        logits = float(self.gain) * shrunk
        w = np.exp(logits - logits.max())
        return np.asarray(w / w.sum())
