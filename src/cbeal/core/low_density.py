"""LD-Agent: low-density exploration (paper Algorithm LDAL, spec §3.1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.core.exceptions import ParameterError
from cbeal.core.window_agent import KernelSpec, WindowAgent, compiled_alike

__all__ = ["LowDensityAgent"]


class LowDensityAgent(WindowAgent):
    """Acquire samples lying where the recent stream is sparse.

    The local sparsity factor ``lsf(x)`` counts the window members for which ``x`` is
    farther away than every other member is; the acquisition probability is
    ``min(1, lsf(x) / (L · δ_L))``.

    Parameters
    ----------
    window_size
        ``L``, the number of most recent observed samples in the window.
    sparsity_fraction
        ``δ_L``; a sample is acquired for sure once it is the farthest point for
        ``L · δ_L`` members.
    metric
        ``"euclidean"`` (default), ``"manhattan"`` or ``"chebyshev"``.
    exact_window
        Keep every member's largest distance exact after evictions (default); ``False``
        follows the paper's listing literally, where maxima only grow.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context, LowDensityAgent
    >>> agent = LowDensityAgent(window_size=4, sparsity_fraction=0.5)
    >>> agent = agent.fit(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    >>> proba = np.array([0.5, 0.5])
    >>> agent.advise_one(Context(np.array([0.5, 0.5]), proba))  # inside the square
    0.0
    >>> agent.advise_one(Context(np.array([5.0, 5.0]), proba))  # far outside
    1.0
    """

    _extreme = "max"
    tasks = ("classification", "regression")  # distances only: any learner

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"window_size": 30, "sparsity_fraction": 0.02}]

    def __init__(
        self,
        *,
        window_size: int = 100,
        sparsity_fraction: float = 0.01,
        metric: str = "euclidean",
        exact_window: bool = True,
    ) -> None:
        self.window_size = window_size
        self.sparsity_fraction = sparsity_fraction
        self.metric = metric
        self.exact_window = exact_window

    def _check_params(self) -> None:
        super()._check_params()
        if not 0 < float(self.sparsity_fraction):
            raise ParameterError(f"sparsity_fraction must be > 0, got {self.sparsity_fraction!r}")

    def kernel_spec(self) -> KernelSpec | None:
        """The compiled window kernel's LD (kind 0), with :meth:`_score`'s divisor ``L · δ_L``."""
        if not compiled_alike(type(self), LowDensityAgent, ("_score", "lsf")):
            return None
        param = float(self.window_size * self.sparsity_fraction)
        return 0, param, True, bool(self.exact_window), 0.0

    def lsf(self, d: np.ndarray) -> int:
        """Local sparsity factor of a sample whose distances to the members are `d`."""
        return int(np.count_nonzero(d > self.stat_[: d.shape[0]]))

    def _score(self, d: np.ndarray) -> float:
        if d.shape[0] == 0:
            return 1.0
        return min(1.0, self.lsf(d) / (self.window_size * self.sparsity_fraction))
