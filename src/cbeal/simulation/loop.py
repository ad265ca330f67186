"""The oracle loop: stream an array through a model, labels from ``y`` (optionally late)."""

from __future__ import annotations

import sys
from collections import deque
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from cbeal._version import __version__
from cbeal.core import Decision
from cbeal.core.exceptions import InvalidInputError, ParameterError
from cbeal.core.validation import check_labels, label_index
from cbeal.models import StreamLearner
from cbeal.simulation.trace import Trace

__all__ = ["simulate"]

_MIN_CHUNK, _MAX_CHUNK = 8, 512


def simulate(
    model: StreamLearner,
    X_stream: Any,
    y_stream: Any,
    *,
    delay: int = 0,
    progress: bool | None = None,
    desc: str | None = None,
) -> Trace:
    """Run a fitted model over a stream with ``y_stream`` as the expert (spec §10).

    Each sample goes through ``query_one``; the label of an acquisition is delivered with
    ``learn_one`` `delay` samples later (0: before the next sample, which is exactly
    Algorithm 1 of the paper). Labels still pending at the end are delivered then.

    The learner's predictions for upcoming samples are computed a chunk at a time and
    recomputed after each refit; this gives the same decisions as one ``query_one`` per
    sample, faster. Only the model's public methods are used: any driver can do the same.

    ``progress`` shows a progress bar labelled `desc` (default: the model's class name);
    ``None`` shows it for long streams on a terminal.
    """
    X = model.transform(X_stream)  # validates, and raises if the model is not fitted
    regression = "classes_" not in model.__dict__  # a regressor: measured values
    y = _expert(model, y_stream, X.shape[0], regression)
    if isinstance(delay, bool) or not isinstance(delay, (int, np.integer)) or delay < 0:
        raise ParameterError(f"delay must be a whole number ≥ 0, got {delay!r}")
    n = X.shape[0]
    record = _Record(n, len(model.agent_names), np.float64 if regression else model.classes_.dtype)
    proba = None if regression else _Probabilities(model, X)  # a regressor predicts itself
    queue: deque[tuple[int, Decision]] = deque()

    def deliver(j: int, dj: Decision) -> None:
        record.reward[j] = model.reward_of(dj, y[j])
        model.learn_one(None, y[j], decision=dj)

    show = progress if progress is not None else (n >= 5000 and sys.stderr.isatty())
    bar = tqdm(total=n, disable=not show, desc=desc or type(model).__name__, unit="sample")
    for i in range(n):
        if proba is None:
            d = model.query_one(X[i], transformed=True)
        else:
            d = model.query_one(X[i], proba=proba.of(i), transformed=True)
        if d.acquire:
            queue.append((i, d))
        while queue and queue[0][0] <= i - delay:
            deliver(*queue.popleft())
        record.step(i, d, model.flush())
        bar.update(1)
    bar.close()
    while queue:
        deliver(*queue.popleft())
    model.flush()
    budget = model.budget
    return Trace(
        **record.columns(),
        y_true=y,
        agent_names=model.agent_names,
        metadata={
            "model": type(model).__name__,
            # score fusion's weights are fixed: its figures show which members drove the asks
            "weighting": "score fusion" if getattr(model, "fusion", None) is not None else "bandit",
            "params": repr(model),
            "random_state": repr(model.random_state),
            "budget": budget if isinstance(budget, (int, float, str)) else str(budget),
            "delay": delay,
            **({"tolerance": float(model.tolerance)} if regression else {}),
            "cbeal_version": __version__,
        },
    )


def _expert(model: StreamLearner, y_stream: Any, n: int, regression: bool) -> np.ndarray:
    """The expert's labels, checked before the model changes: measured values for a
    regressor, the model's classes for a classifier."""
    y = check_labels(y_stream, n)
    if regression:
        y = np.asarray(y, dtype=np.float64) if y.dtype.kind in "fiu" else y
        if y.dtype.kind != "f":
            raise InvalidInputError(
                "y_stream must hold measured values (numbers) for a model with a regressor"
            )
    else:
        for v in np.unique(y):
            label_index(model.classes_, v)
    return y


class _Probabilities:
    """The learner's class probabilities for upcoming samples, a chunk at a time: the chunk
    doubles while the learner stays the same and starts small again after each refit, which
    gives the same decisions as one prediction per sample, faster."""

    def __init__(self, model: StreamLearner, X: np.ndarray) -> None:
        self.model, self.X = model, X
        self.chunk, self.start, self.end, self.version = _MIN_CHUNK, 0, 0, -1
        self.cache = np.empty((0, 0))

    def of(self, i: int) -> np.ndarray:
        current = self.model.learner_version
        if i >= self.end or current != self.version:
            same = current == self.version
            self.chunk = min(self.chunk * 2, _MAX_CHUNK) if same else _MIN_CHUNK
            self.start, self.end = i, min(len(self.X), i + self.chunk)
            self.version = current
            rows = self.X[self.start : self.end]
            self.cache = self.model.predict_proba(rows, transformed=True)
        return np.asarray(self.cache[i - self.start])


class _Record:
    """What the loop records per step, as the Trace's columns."""

    def __init__(self, n: int, k: int, y_dtype: Any) -> None:
        self.acquired = np.zeros(n, dtype=bool)
        self.p_acquire = np.zeros(n)
        self.advice = np.zeros((n, k))
        self.weights_before = np.zeros((n, k))
        self.weights_exp4p = np.zeros((n, k))
        self.weights_after = np.zeros((n, k))
        self.flipped = np.zeros((n, k), dtype=bool)
        self.reward = np.zeros(n)
        self.y_pred = np.empty(n, dtype=y_dtype)
        self.certainty = np.zeros(n)

    def step(self, i: int, d: Decision, update: Any) -> None:
        """Sample `i`'s decision and the bandit's update after it (None: no update)."""
        self.acquired[i] = d.acquire
        self.p_acquire[i] = d.p_acquire
        self.advice[i] = d.advice
        self.weights_before[i] = d.weights
        self.y_pred[i] = d.y_pred
        self.certainty[i] = d.certainty
        if update is None:
            self.weights_exp4p[i] = self.weights_after[i] = d.weights
        else:
            self.weights_exp4p[i] = update.weights_exp4p
            self.weights_after[i] = update.weights_after
            self.flipped[i] = update.flipped

    def columns(self) -> dict[str, np.ndarray]:
        return dict(vars(self))
