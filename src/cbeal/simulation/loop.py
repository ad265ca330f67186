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
    y = check_labels(y_stream, X.shape[0])
    regression = "classes_" not in model.__dict__  # a regressor: measured values
    if regression:
        y = np.asarray(y, dtype=np.float64) if y.dtype.kind in "fiu" else y
        if y.dtype.kind != "f":
            raise InvalidInputError(
                "y_stream must hold measured values (numbers) for a model with a regressor"
            )
    else:
        for v in np.unique(y):
            label_index(model.classes_, v)  # fail before the model changes
    if isinstance(delay, bool) or not isinstance(delay, (int, np.integer)) or delay < 0:
        raise ParameterError(f"delay must be a whole number ≥ 0, got {delay!r}")
    n = X.shape[0]
    names = model.agent_names
    k = len(names)
    acquired = np.zeros(n, dtype=bool)
    p_acq = np.zeros(n)
    advice = np.zeros((n, k))
    w_before = np.zeros((n, k))
    w_exp4p = np.zeros((n, k))
    w_after = np.zeros((n, k))
    flipped = np.zeros((n, k), dtype=bool)
    reward = np.zeros(n)
    y_pred = np.empty(n, dtype=np.float64 if regression else model.classes_.dtype)
    certainty = np.zeros(n)
    queue: deque[tuple[int, Decision]] = deque()

    def deliver(j: int, dj: Decision) -> None:
        reward[j] = model.reward_of(dj, y[j])
        model.learn_one(None, y[j], decision=dj)

    chunk, start, end, version = _MIN_CHUNK, 0, 0, -1
    cache = np.empty((0, 0))
    show = progress if progress is not None else (n >= 5000 and sys.stderr.isatty())
    bar = tqdm(total=n, disable=not show, desc=desc or type(model).__name__, unit="sample")
    for i in range(n):
        current = model.learner_version
        if regression:  # the model predicts the value and spread itself
            d = model.query_one(X[i], transformed=True)
        else:
            if i >= end or current != version:
                chunk = min(chunk * 2, _MAX_CHUNK) if current == version else _MIN_CHUNK
                start, end, version = i, min(n, i + chunk), current
                cache = model.predict_proba(X[start:end], transformed=True)
            d = model.query_one(X[i], proba=cache[i - start], transformed=True)
        acquired[i] = d.acquire
        p_acq[i] = d.p_acquire
        advice[i] = d.advice
        w_before[i] = d.weights
        y_pred[i] = d.y_pred
        certainty[i] = d.certainty
        if d.acquire:
            queue.append((i, d))
        while queue and queue[0][0] <= i - delay:
            deliver(*queue.popleft())
        step = model.flush()
        if step is None:
            w_exp4p[i] = w_after[i] = d.weights
        else:
            w_exp4p[i] = step.weights_exp4p
            w_after[i] = step.weights_after
            flipped[i] = step.flipped
        bar.update(1)
    bar.close()
    while queue:
        deliver(*queue.popleft())
    model.flush()
    budget = model.budget
    return Trace(
        acquired=acquired,
        p_acquire=p_acq,
        advice=advice,
        weights_before=w_before,
        weights_exp4p=w_exp4p,
        weights_after=w_after,
        flipped=flipped,
        reward=reward,
        y_true=y,
        y_pred=y_pred,
        certainty=certainty,
        agent_names=names,
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
