"""SPF-Agent: space-filling exploration (paper Algorithm SFAL, spec §3.2)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.core.window_agent import KernelSpec, WindowAgent, compiled_alike

__all__ = ["SpaceFillingAgent"]


class SpaceFillingAgent(WindowAgent):
    """Acquire samples far from everything seen recently, to fill the input space evenly.

    ``p = min(1, MinDist(x, W) / max_i nn_i)`` where ``nn_i`` is the nearest-neighbour
    distance of window member ``i`` inside the window. When that denominator is 0
    (duplicates only), ``p`` is 1 for a sample at a new location and 0 otherwise; a window
    of fewer than two members cannot judge spacing, so it acquires any new location.

    Parameters
    ----------
    window_size
        ``L``, the number of most recent observed samples in the window.
    metric
        ``"euclidean"`` (default), ``"manhattan"`` or ``"chebyshev"``.
    exact_window
        Keep nearest-neighbour distances exact after evictions (default); ``False``
        follows the paper's listing literally (they only shrink).

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context, SpaceFillingAgent
    >>> agent = SpaceFillingAgent(window_size=3).fit(np.array([[0.0], [1.0], [3.0]]))
    >>> proba = np.array([0.5, 0.5])
    >>> agent.advise_one(Context(np.array([1.5]), proba))   # 0.5 / max(1, 1, 2)
    0.25
    >>> agent.advise_one(Context(np.array([10.0]), proba))  # far away: certain
    1.0
    """

    _extreme = "min"
    tasks = ("classification", "regression")  # distances only: any learner

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"window_size": 25}]

    def __init__(
        self, *, window_size: int = 60, metric: str = "euclidean", exact_window: bool = True
    ) -> None:
        self.window_size = window_size
        self.metric = metric
        self.exact_window = exact_window

    def kernel_spec(self) -> KernelSpec | None:
        """The compiled window kernel's SPF (kind 1)."""
        if not compiled_alike(type(self), SpaceFillingAgent, ("_score",)):
            return None
        return 1, 0.0, False, bool(self.exact_window), np.inf

    def _score(self, d: np.ndarray) -> float:
        if d.shape[0] == 0:
            return 1.0
        nearest = float(d.min())
        denom = float(self.stat_[: d.shape[0]].max()) if d.shape[0] >= 2 else 0.0
        if denom <= 0.0:
            return 1.0 if nearest > 0.0 else 0.0
        return min(1.0, nearest / denom)
