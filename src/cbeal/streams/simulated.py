"""The paper's simulated stream: clustered, imbalanced, optionally noisy and sparse (spec §7)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.datasets import make_classification

from cbeal.core.exceptions import ParameterError
from cbeal.core.validation import check_seed
from cbeal.streams.split import StreamSplit

__all__ = ["SimulatedStream", "make_stream"]


@dataclass(frozen=True, eq=False)
class SimulatedStream(StreamSplit):
    """One replication: initial set ``D0``, the stream, a clean balanced test set, the budget."""

    budget: int
    params: dict[str, Any] = field(default_factory=dict)


def make_stream(
    *,
    n: int = 1000,
    pc: float = 0.10,
    ds: float = 0.0,
    sp: float = 0.30,
    p: int = 15,
    class_sep: float = 1.0,
    n_initial: int = 20,
    n_test: int = 500,
    budget_share: float = 0.10,
    random_state: Any = None,
) -> SimulatedStream:
    """Draw one data set of the simulation study.

    A balanced pool from ``make_classification`` (2 classes × 2 unit-variance clusters on
    hypercube vertices, random covariance, ``floor(sp·p)`` useless features) is split
    without overlap into a training set of `n` samples with a share `pc` of positives
    (class 1), in random order, and a test set of `n_test` samples, half of each class.
    ``D0`` holds the first `n_initial` training samples, stratified by `pc` with at least one
    positive; the stream is the rest. Exactly ``round(ds · (n − n_initial))`` stream labels
    are flipped (the test set stays clean). Budget ``B = floor(budget_share · (n − n_initial))``.

    Examples
    --------
    >>> s = make_stream(n=500, pc=0.1, random_state=0)
    >>> s.X0.shape, s.X_stream.shape, s.X_test.shape, s.budget
    ((20, 15), (480, 15), (500, 15), 48)
    >>> int(s.y0.sum()), int(s.y_test.sum())
    (2, 250)
    """
    if not 0.0 < pc < 1.0:
        raise ParameterError(f"pc must be in (0, 1), got {pc}")
    if not 0.0 <= sp < 1.0 or not 0.0 <= ds < 1.0:
        raise ParameterError(f"sp and ds must be in [0, 1), got sp={sp}, ds={ds}")
    if n <= n_initial or n_test % 2:
        raise ParameterError("need n > n_initial and an even n_test")
    rng = check_seed(random_state)
    n_pos = round(pc * n)
    n_neg = n - n_pos
    per_class = max(n_pos, n_neg) + n_test // 2
    per_class += per_class % 2  # 2 clusters per class get equal halves
    n_useless = math.floor(sp * p)
    X, y = make_classification(
        n_samples=2 * per_class,
        n_features=p,
        n_informative=p - n_useless,
        n_redundant=0,
        n_repeated=0,
        n_classes=2,
        n_clusters_per_class=2,
        flip_y=0.0,
        class_sep=class_sep,
        hypercube=True,
        shuffle=True,
        random_state=int(rng.integers(2**31 - 1)),
    )
    pos = rng.permutation(np.flatnonzero(y == 1))
    neg = rng.permutation(np.flatnonzero(y == 0))
    half = n_test // 2
    test = rng.permutation(np.concatenate([pos[:half], neg[:half]]))
    train_pos, train_neg = pos[half : half + n_pos], neg[half : half + n_neg]
    k_pos = max(1, round(pc * n_initial))
    init = rng.permutation(np.concatenate([train_pos[:k_pos], train_neg[: n_initial - k_pos]]))
    stream = rng.permutation(np.concatenate([train_pos[k_pos:], train_neg[n_initial - k_pos :]]))
    y_stream = y[stream].copy()
    n_flip = round(ds * stream.size)
    if n_flip:
        flip = rng.choice(stream.size, size=n_flip, replace=False)
        y_stream[flip] = 1 - y_stream[flip]
    return SimulatedStream(
        X0=X[init],
        y0=y[init],
        X_stream=X[stream],
        y_stream=y_stream,
        X_test=X[test],
        y_test=y[test],
        budget=math.floor(budget_share * (n - n_initial)),
        params={"n": n, "pc": pc, "ds": ds, "sp": sp, "p": p, "class_sep": class_sep},
    )
