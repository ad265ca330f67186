"""The case-study protocol on real line data (spec §8): splits, preprocessing, scores.

Per replication: a random start, then one third of the samples, contiguous in time order
and wrapping around the end, is the test set; the rest, in time order, is the training
stream, whose first 10 samples are the initial labelled set ``D0``. Missing values and
scales are handled by :func:`~cbeal.learners.fit_preprocessor`, fitted on the inputs of the
training portion only. If ``D0`` holds no failure, it stays that way: the stream models
start from the single-class fallback (spec §1).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cbeal.core.exceptions import ParameterError
from cbeal.datasets import Dataset, load_ai4i2020, load_secom
from cbeal.evaluation import metrics
from cbeal.learners.preprocess import fit_preprocessor
from cbeal.streams.split import StreamSplit

__all__ = ["DATASETS", "METRICS", "CaseData", "CaseStudy", "contiguous_split", "scores"]

DATASETS: dict[str, Callable[[], Dataset]] = {"secom": load_secom, "ai4i": load_ai4i2020}

#: the metrics of every row; the failure class (label 1) is the positive class
METRICS = ("accuracy", "balanced_accuracy", "f1", "recall", "precision")


@dataclass(frozen=True)
class CaseStudy:
    """One case study: a bundled dataset, a base learner and the protocol's constants.

    ``id`` is permanent; a changed protocol gets a new ``version`` (it enters the seeds).
    ``refit`` is the stream models' refit schedule (their ``refit_every``): ``1``, after
    every label (Algorithm 1), or every k labels, for learners too slow to refit a thousand
    times per run. Every method of a study shares it.
    """

    id: str
    dataset: str
    learner: str
    refit: int = 1
    budgets: tuple[float, ...] = (0.03, 0.05, 0.10, 0.15, 0.20)
    replications: int = 10
    methods: tuple[str, ...] = (
        "CBEAL-6",
        "LD2",
        "RAL1",
        "RS",
        "US",
        "DBALStream",
        "QBC-PYP",
        "Initial",
        "All Training Data",
    )
    test_fraction: float = 1.0 / 3.0
    n_initial: int = 10
    version: str = "v1"

    def seed(self, replication: int) -> int:
        """Split and model seed of one replication: the same for every learner of a dataset."""
        return zlib.crc32(f"{self.dataset}/{replication}/{self.version}".encode())

    def data(self, replication: int) -> CaseData:
        """The preprocessed split of one replication (every method of the study sees it)."""
        ds = DATASETS[self.dataset]()
        rng = np.random.default_rng(self.seed(replication))
        train, test = contiguous_split(ds.n_samples, rng, test_fraction=self.test_fraction)
        pre = fit_preprocessor(ds.X[train])  # inputs of the training portion only
        X_train, X_test = pre.transform(ds.X[train]), pre.transform(ds.X[test])
        k = self.n_initial
        return CaseData(
            X0=X_train[:k],
            y0=ds.y[train][:k],
            X_stream=X_train[k:],
            y_stream=ds.y[train][k:],
            X_test=X_test,
            y_test=ds.y[test],
            train_index=train,
            test_index=test,
        )


@dataclass(frozen=True, eq=False)
class CaseData(StreamSplit):
    """One replication's split, preprocessed; ``*_index`` are rows of the dataset."""

    train_index: np.ndarray
    test_index: np.ndarray

    def budget(self, share: float) -> int:
        """Labels allowed for a budget given as a share of the stream (at least 1)."""
        return max(1, round(share * self.y_stream.size))


def contiguous_split(
    n: int, rng: np.random.Generator, *, test_fraction: float = 1.0 / 3.0
) -> tuple[np.ndarray, np.ndarray]:
    """Training and test row indices: a contiguous test block with a random start.

    The test block holds ``round(test_fraction * n)`` consecutive rows and wraps around the
    end; the training rows are all the others, in time order.

    Examples
    --------
    >>> import numpy as np
    >>> train, test = contiguous_split(9, np.random.default_rng(3))
    >>> test, train
    (array([7, 8, 0]), array([1, 2, 3, 4, 5, 6]))
    """
    if not 0.0 < test_fraction < 1.0:
        raise ParameterError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    n_test = round(test_fraction * n)
    if n_test < 1 or n - n_test < 2:
        raise ParameterError(f"{n} samples are too few to hold out {test_fraction:.0%} for testing")
    start = int(rng.integers(n))
    test = (start + np.arange(n_test)) % n
    train = np.setdiff1d(np.arange(n), test)  # sorted: the stream runs forward in time
    return train, test


def scores(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    """Accuracy, balanced accuracy and F1 / recall / precision of the failure class (1).

    The same scores as ``cbeal run`` reports (:func:`cbeal.evaluation.scores`).

    >>> import numpy as np
    >>> s = scores(np.array([0, 0, 0, 1]), np.array([0, 0, 0, 0]))
    >>> s["accuracy"], s["balanced_accuracy"], s["recall"], s["f1"]
    (0.75, 0.5, 0.0, 0.0)
    """
    out = metrics.scores(np.asarray(y_true), np.asarray(y_pred), positive=1)
    return {k: out[k] for k in METRICS}
