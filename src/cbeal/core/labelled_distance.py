"""DTL-Agent: diversity against the labelled set (greedy sampling on the inputs, graded).

A regression model learns most from parts unlike those it was trained on: greedy
sampling on the inputs (Wu, Lin & Huang 2019) asks for the part farthest from the
labelled pool. As a stream score: the part's distance to its nearest labelled part,
ranked among the last `window` parts' distances (:class:`~cbeal.core.recent_rank.RecentRank`),
so it lies in [0, 1] on the scale of the stream itself. Unlike LD and SPF, which compare
a part with the recent *stream*, it compares it with what the model *knows*: a region the
stream visits often but the model has no label from still scores high.

With `memory` only the last `memory` labels count: a region labelled long ago counts as
unknown again, which is how a drifting process gets re-measured (recency).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError
from cbeal.core.recent_rank import RecentRank, check_window
from cbeal.core.window import RingBuffer

__all__ = ["LabelledDistanceAgent"]


class LabelledDistanceAgent(Agent):
    """Score a part by how far it lies from the labelled parts, ranked among recent parts.

    Parameters
    ----------
    window
        How many recent parts' distances the rank is taken over (≥ 2).
    memory
        How many of the most recent labels (``D0`` included) make up the labelled set;
        None: all of them.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context
    >>> from cbeal.core.labelled_distance import LabelledDistanceAgent
    >>> agent = LabelledDistanceAgent(window=10).fit(np.array([[0.0, 0.0], [1.0, 0.0]]))
    >>> p = np.array([0.5, 0.5])
    >>> [agent.score_one(Context(np.array([v, 0.0]), p)) for v in (0.5, 0.6, 3.0)]
    [0.5, 0.0, 1.0]
    >>> agent.label_one(np.array([3.0, 0.0]), 7.5)          # now known: close again
    >>> agent.score_one(Context(np.array([3.1, 0.0]), p))
    0.0
    """

    kind: ClassVar[str] = "exploration"
    tasks: ClassVar[tuple[str, ...]] = ("classification", "regression")  # inputs only

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"window": 50, "memory": 20}]

    def __init__(self, *, window: int = 200, memory: int | None = None) -> None:
        self.window = window
        self.memory = memory

    def _start(self, X0: np.ndarray) -> None:
        check_window(self.window)
        m = self.memory
        if m is not None and (isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1):
            raise ParameterError(f"memory must be a whole number ≥ 1 or None, got {m!r}")
        self.ranks_ = RecentRank(int(self.window))
        self.pool_: list[np.ndarray] = []
        self.recent_ = None if m is None else RingBuffer(int(m), X0.shape[1])
        self.points_ = np.zeros((0, X0.shape[1]))
        for x in X0:
            self.label_one(x, None)

    def label_one(self, x: np.ndarray, y_index: Any) -> None:
        row = np.asarray(x, dtype=np.float64)
        if self.recent_ is None:
            self.pool_.append(row)
            self.points_ = np.asarray(self.pool_)
        else:
            self.recent_.push(row)
            self.points_ = self.recent_.points[: self.recent_.size]

    def advise_one(self, ctx: Context) -> float:
        x = np.asarray(ctx.x, dtype=np.float64)
        pts = self.points_
        d = float(np.sqrt(np.min(np.sum((pts - x) ** 2, axis=1)))) if pts.shape[0] else 0.0
        return self.ranks_.rank(d)
