"""DBALStream (Ienco et al. 2014): density-weighted margin sampling with an adaptive threshold."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError
from cbeal.core.window import METRICS, RingBuffer

__all__ = ["DBALStreamAgent"]


class DBALStreamAgent(Agent):
    """DBALStream as specified in spec §6 (after the authors' MOA implementation).

    A window of the last ``window_size`` samples keeps each member's nearest-neighbour
    distance. ``ldf(x)`` counts the members to which ``x`` is closer than their nearest
    neighbour (their distance is then updated). A sample is a candidate when ``ldf > 0`` and
    labels spent / samples seen ``< budget_fraction``. With the margin ``m`` between the two
    most probable classes and ``η ~ N(1, 1)``, a candidate is queried when ``m < θ η``
    (``form="product"``) or ``m / η < θ`` (``form="moa"``); then ``θ ← θ(1 − s)``, and a
    candidate not queried gives ``θ ← θ(1 + s)``. As in MOA, nearest-neighbour distances are
    not recomputed when a member leaves the window.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.baselines import DBALStreamAgent
    >>> from cbeal.core import Context
    >>> agent = DBALStreamAgent(budget_fraction=0.5).fit(np.array([[0.0], [1.0]]),
    ...                                                  np.random.default_rng(0))
    >>> agent.advise_one(Context(np.array([0.5]), np.array([0.5, 0.5])))  # dense, margin 0
    1.0
    """

    kind: ClassVar[str] = "hybrid"

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"budget_fraction": 0.2, "window_size": 50}]

    def __init__(
        self,
        *,
        budget_fraction: float = 0.1,
        window_size: int = 100,
        step: float = 0.01,
        theta0: float = 1.0,
        form: str = "product",
        metric: str = "euclidean",
    ) -> None:
        self.budget_fraction = budget_fraction
        self.window_size = window_size
        self.step = step
        self.theta0 = theta0
        self.form = form
        self.metric = metric

    def _start(self, X0: np.ndarray) -> None:
        if self.form not in ("product", "moa"):
            raise ParameterError(f"form must be 'product' or 'moa', got {self.form!r}")
        if not 0.0 < float(self.budget_fraction) <= 1.0:
            raise ParameterError(f"budget_fraction must be in (0, 1], got {self.budget_fraction}")
        L = int(self.window_size)
        self.window_ = RingBuffer(L, X0.shape[1])
        self.nn_ = np.full(L, np.inf)  # each member's nearest-neighbour distance, by slot
        self.theta_ = float(self.theta0)
        self.n_seen_ = 0
        self.n_labels_ = 0
        for x in X0[-L:]:
            self._observe(x)

    def _observe(self, x: np.ndarray) -> int:
        w = self.window_
        n = w.size
        ldf = 0
        nearest = np.inf
        if n:
            d = METRICS[self.metric](w.points[:n], x)
            closer = d < self.nn_[:n]
            ldf = int(np.count_nonzero(closer))
            self.nn_[:n][closer] = d[closer]
            nearest = float(d.min())
        self.nn_[w.push(x)] = nearest
        return ldf

    def advise_one(self, ctx: Context) -> float:
        ldf = self._observe(ctx.x)
        self.n_seen_ += 1
        if ldf == 0 or self.n_labels_ / self.n_seen_ >= float(self.budget_fraction):
            return 0.0
        top2 = np.sort(ctx.proba)[-2:]
        margin = float(top2[1] - top2[0])
        eta = float(self._rng.normal(1.0, 1.0))
        if self.form == "product":
            query = margin < self.theta_ * eta
        else:
            query = margin / eta < self.theta_ if eta != 0.0 else True
        self.theta_ *= (1.0 - float(self.step)) if query else (1.0 + float(self.step))
        return 1.0 if query else 0.0

    def decided_one(self, advice: float, acquired: bool) -> None:
        self.n_labels_ += int(acquired)
