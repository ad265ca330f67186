"""Peers run through their own libraries, as cbeal agents on the same learner and budget.

* :class:`RiverEntropyAgent`: river's ``active.EntropySampler``. It asks with probability
  ``H^d`` (``H`` the normalised entropy of the learner's probabilities, ``d`` its
  ``discount_factor``), which has no notion of a budget. To make it spend about the budget
  share ``b``, the discount factor is steered after every sample by a proportional
  controller on the recent label rate ``ρ`` (an exponentially weighted mean of its asks
  over about 100 samples): ``log d ← log d + κ (ρ − b) / b`` (κ = 0.05, ``d`` kept in
  [0.05, 1000]); river's own sampler draws every decision.
* :class:`SkactivemlPALAgent`: scikit-activeml's ``StreamProbabilisticAL`` with its default
  budget manager, the balanced incremental quantile filter. Its spatial utility needs
  kernel frequency estimates: a Parzen window (``metric="rbf"``) over the labelled pool
  multiplied by our learner's probabilities, as the strategy computes them itself when
  given a metric (handed over through ``predict_freq`` so the window is refitted only when
  the pool grows).
* scikit-activeml's ``VariableUncertainty``, ``Split`` and ``StreamDensityBasedAL`` run
  through :class:`~cbeal_studies.reproduction.skactiveml_check.SkactivemlAgent`.

Both libraries are optional (``pip install -e '.[suite]'``) and imported at first use.
"""

from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import numpy as np

from cbeal.adapters.skactiveml_agent import SkactivemlAgent, _proba_shim, _stream_module
from cbeal.core.agent import Agent, Context

__all__ = ["RiverEntropyAgent", "SkactivemlPALAgent"]

_RATE_WINDOW = 100.0


def _river_shim(proba: list[float]) -> Any:
    """A river classifier whose ``predict_proba_one`` answers our learner's probabilities."""
    from river import base

    class _Fixed(base.Classifier):
        def __init__(self) -> None:
            self.proba = proba

        def learn_one(self, x: Any, y: Any, **kwargs: Any) -> None:
            return None  # our learner is refitted by the stream model

        def predict_proba_one(self, x: Any, **kwargs: Any) -> dict[Any, float]:
            return dict(enumerate(self.proba))

    return _Fixed()


class RiverEntropyAgent(Agent):
    """river's ``EntropySampler`` with its discount factor paced to a budget share.

    Parameters
    ----------
    budget_fraction
        Target share ``b`` of samples to label.
    discount0
        Starting discount factor (river's default is 3).
    gain
        ``κ`` of the rate controller.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context
    >>> agent = RiverEntropyAgent(budget_fraction=0.1).fit(np.zeros((1, 2)),
    ...                                                    np.random.default_rng(0))
    >>> agent.advise_one(Context(np.zeros(2), np.array([0.5, 0.5])))  # entropy 1: asks
    1.0
    >>> agent.discount_ > 3.0                                        # rate 1 > 0.1: stricter
    True
    """

    kind: ClassVar[str] = "exploitation"

    def __init__(
        self, *, budget_fraction: float = 0.1, discount0: float = 3.0, gain: float = 0.05
    ) -> None:
        self.budget_fraction = budget_fraction
        self.discount0 = discount0
        self.gain = gain

    def _start(self, X0: np.ndarray) -> None:
        if not 0.0 < float(self.budget_fraction) <= 1.0:
            raise ValueError(f"budget_fraction must be in (0, 1], got {self.budget_fraction}")
        try:
            from river import active
        except ImportError as exc:
            raise ImportError(
                "river's EntropySampler needs river; install it with `pip install -e '.[suite]'`"
            ) from exc
        self.shim_ = _river_shim([1.0])
        self.sampler_ = active.EntropySampler(
            self.shim_,
            discount_factor=float(self.discount0),
            seed=int(self._rng.integers(2**31 - 1)),
        )
        self.discount_ = float(self.discount0)
        self.rate_ = float(self.budget_fraction)
        self.n_seen_ = 0
        self.n_asked_ = 0

    def advise_one(self, ctx: Context) -> float:
        self.shim_.proba = [float(p) for p in ctx.proba]
        self.sampler_.discount_factor = self.discount_
        _, ask = self.sampler_.predict_proba_one({})
        self.n_seen_ += 1
        self.n_asked_ += int(ask)
        b = float(self.budget_fraction)
        # a recent rate, not the cumulative one: no wind-up after an eager start
        self.rate_ += (float(ask) - self.rate_) / _RATE_WINDOW
        step = float(self.gain) * (self.rate_ - b) / b
        self.discount_ = min(1000.0, max(0.05, self.discount_ * math.exp(step)))
        return 1.0 if ask else 0.0


@functools.lru_cache(maxsize=1)
def _freq_shim() -> type:
    """The probability shim plus ``predict_freq``: fixed kernel frequency estimates."""
    base = _proba_shim()

    class _FixedFreq(base):  # type: ignore[misc, valid-type]
        def __init__(self, proba: np.ndarray, freq: np.ndarray) -> None:
            super().__init__(proba)
            self.freq = freq

        def predict_freq(self, X: Any) -> np.ndarray:
            return np.tile(self.freq, (len(X), 1))

    return _FixedFreq


class SkactivemlPALAgent(SkactivemlAgent):
    """scikit-activeml's ``StreamProbabilisticAL`` (balanced incremental quantile filter).

    The strategy's kernel frequency estimates are what it computes itself when given
    ``metric="rbf"``: the total Parzen-window frequency ``n`` of the labelled pool
    (``D0`` and every label delivered; RBF kernel, ``gamma="mean"``) at the sample, times
    our learner's probabilities. The Parzen window is refitted only when the pool grows
    (the strategy would refit it for every sample) and handed over through ``predict_freq``.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context
    >>> agent = SkactivemlPALAgent(budget_fraction=0.1, random_state=0)
    >>> agent = agent.fit(np.array([[0.0, 0.0], [1.0, 1.0]]), y0=np.array([0, 1]))
    >>> agent.advise_one(Context(np.array([0.5, 0.5]), np.array([0.5, 0.5])))
    1.0
    >>> len(agent.pool_y_)
    2
    """

    def __init__(self, *, budget_fraction: float = 0.1, random_state: int | None = None) -> None:
        super().__init__(strategy="RS", budget_fraction=budget_fraction, random_state=random_state)

    def _start(self, X0: np.ndarray) -> None:
        super()._start(X0)
        self.pool_X_: list[np.ndarray] = []
        self.pool_y_: list[int] = []
        self.parzen_: Any = None

    def label_one(self, x: np.ndarray, y_index: int) -> None:
        self.pool_X_.append(np.asarray(x, dtype=float))
        self.pool_y_.append(int(y_index))
        self.parzen_ = None  # the pool changed

    def _frequency(self, candidates: np.ndarray, k: int) -> np.ndarray:
        if self.parzen_ is None:
            from skactiveml.classifier import ParzenWindowClassifier

            self.parzen_ = ParzenWindowClassifier(
                metric="rbf", metric_dict={"gamma": "mean"}, classes=np.arange(k)
            )
            self.parzen_.fit(np.asarray(self.pool_X_), np.asarray(self.pool_y_))
        return np.asarray(self.parzen_.predict_freq(candidates)).sum(axis=1)

    def advise_one(self, ctx: Context) -> float:
        k = ctx.proba.shape[0]
        if self.strategy_ is None:
            self.strategy_ = _stream_module().StreamProbabilisticAL(
                budget=float(self.budget_fraction), random_state=self.seed_
            )
            self.n_classes_ = k
        candidates = np.asarray(ctx.x, dtype=float).reshape(1, -1)
        proba = np.asarray(ctx.proba, dtype=float)
        clf = _freq_shim()(proba, self._frequency(candidates, k)[0] * proba)
        queried, utilities = self.strategy_.query(candidates, clf=clf, return_utilities=True)
        queried = np.asarray(queried, dtype=np.intp)
        # the quantile filter learns its threshold from the utilities it is shown
        self.strategy_.update(
            candidates, queried, budget_manager_param_dict={"utilities": utilities}
        )
        self.utility_ = float(utilities[0])
        self.n_seen_ += 1
        self.n_queried_ += int(queried.size)
        return 1.0 if queried.size else 0.0

    @property
    def name(self) -> str:
        return "StreamProbabilisticAL (skactiveml)"
