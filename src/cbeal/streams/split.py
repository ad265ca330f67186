"""One replication's data, split for a stream experiment: ``D0``, the stream, a test set."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["StreamSplit"]


@dataclass(frozen=True, eq=False)
class StreamSplit:
    """The initial labelled set ``D0``, the stream (in arrival order) and a held-out test set.

    Every method of an experiment runs on the same split; ``X_train`` / ``y_train`` are
    ``D0`` followed by the stream (what "All Training Data" is trained on).

    Examples
    --------
    >>> import numpy as np
    >>> s = StreamSplit(X0=np.zeros((2, 3)), y0=np.array([0, 1]), X_stream=np.ones((4, 3)),
    ...                 y_stream=np.array([0, 0, 1, 0]), X_test=np.ones((1, 3)),
    ...                 y_test=np.array([1]))
    >>> s.X_train.shape, s.y_train.tolist()
    ((6, 3), [0, 1, 0, 0, 1, 0])
    """

    X0: np.ndarray
    y0: np.ndarray
    X_stream: np.ndarray
    y_stream: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray

    @property
    def X_train(self) -> np.ndarray:
        return np.vstack([self.X0, self.X_stream])

    @property
    def y_train(self) -> np.ndarray:
        return np.concatenate([self.y0, self.y_stream])
