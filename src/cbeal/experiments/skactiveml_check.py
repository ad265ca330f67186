"""Outside cross-check of the baselines: scikit-activeml's own stream strategies in cbeal.

:class:`SkactivemlAgent` wraps a stream query strategy of scikit-activeml (``query`` then
``update`` once per sample) as a cbeal :class:`~cbeal.core.Agent`. Run through
:class:`~cbeal.model.SingleAgentLearner` with ε = 0, such a strategy gets exactly what our
own baselines get: the same learner and refits, the same labelled pool, the same hard
budget ``B`` and the same seed. Differences between "RS" and "RS (skactiveml)" and so on
therefore come from the strategies alone. ``benchmarks/crosscheck_baselines.py`` runs the
comparison.

scikit-activeml is an optional dependency (``pip install cbeal[bench]``); it is imported
only when an agent is fitted, so this module imports without it.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.experiments.method import Builder, Method
from cbeal.models import SingleAgentLearner, StreamLearner

__all__ = ["STRATEGIES", "SkactivemlAgent", "skactiveml_methods"]

#: Accepted strategy names (ours and scikit-activeml's) → scikit-activeml class name.
STRATEGIES: dict[str, str] = {
    "RS": "StreamRandomSampling",
    "StreamRandomSampling": "StreamRandomSampling",
    "US": "FixedUncertainty",
    "FixedUncertainty": "FixedUncertainty",
    "VariableUncertainty": "VariableUncertainty",
    "DBALStream": "StreamDensityBasedAL",
    "StreamDensityBasedAL": "StreamDensityBasedAL",
    "Split": "Split",
    "RandomVariableUncertainty": "RandomVariableUncertainty",
}

_INSTALL_HINT = (
    "the scikit-activeml cross-check needs the optional package scikit-activeml; "
    "install it with `pip install cbeal[bench]`"
)


def _stream_module() -> Any:
    """``skactiveml.stream``, or an ImportError that says how to install it."""
    try:
        import skactiveml.stream as stream
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    return stream


@functools.lru_cache(maxsize=1)
def _proba_shim() -> type:
    """A fitted scikit-activeml classifier whose ``predict_proba`` is fixed at construction.

    scikit-activeml's strategies only check ``isinstance(clf, SkactivemlClassifier)`` (with
    ``fit_clf=False`` they never fit or clone it) and then call
    ``clf.predict_proba(candidates)``; the shim answers with our learner's probabilities
    of the sample, so their strategy scores exactly what ours scores. The class is built
    on first use because its base class comes from the optional package; instances are
    never stored (a class defined in a function does not pickle, and models are saved).
    """
    _stream_module()
    from skactiveml.base import SkactivemlClassifier

    class _FixedProba(SkactivemlClassifier):
        def __init__(self, proba: np.ndarray) -> None:
            k = proba.shape[0]
            super().__init__(classes=np.arange(k))
            self.proba = proba
            self.classes_ = np.arange(k)  # "fitted"

        def fit(self, X: Any, y: Any, sample_weight: Any = None) -> _FixedProba:
            return self  # never called: the strategies get fit_clf=False

        def predict_proba(self, X: Any, **kwargs: Any) -> np.ndarray:
            return np.tile(self.proba, (len(X), 1))

    return _FixedProba


class SkactivemlAgent(Agent):
    """One of scikit-activeml's stream query strategies as a cbeal agent.

    Per sample the agent calls the strategy's ``query`` on the one-row batch ``[x]`` with a
    classifier shim whose ``predict_proba`` returns our learner's ``ctx.proba``, then
    ``update`` with what it queried; the advice is ``1.0`` if it queried the sample, else
    ``0.0``.

    Strategies (our name or scikit-activeml's, see :data:`STRATEGIES`):

    ``"RS"``
        ``StreamRandomSampling(budget=b)``: queries each sample with probability ``b``
        (``allow_exceeding_budget=True``, its default), like our ``RandomAgent(rate=b)``.
    ``"US"``
        ``FixedUncertainty(classes, budget=b)``: queries when the certainty (max
        probability) is ``≤ 1/K + b (1 − 1/K)`` for ``K`` classes, while an exponentially
        weighted count of its recent queries (window ``w = 100``) is below ``b w``. Its
        threshold is tied to the budget: for two classes and ``b = 0.1`` it is 0.55.
        Our ``UncertaintyAgent(threshold=0.7)`` (no pacing, only the hard budget)
        corresponds to ``b = (0.7 − 1/K) / (1 − 1/K)`` = 0.4 for two classes, which then
        also lets it label up to 40 % of the recent samples.
    ``"VariableUncertainty"``
        Žliobaitė et al.'s variable threshold (θ₀ = 1, s = 0.01, as ours); the budget is
        checked with the same windowed estimate as for ``"US"`` rather than with our
        cumulative labels / samples seen.
    ``"DBALStream"``
        ``StreamDensityBasedAL(budget=b)`` (window 100, Euclidean): a candidate when it
        becomes a new nearest neighbour of a window member; queried when its margin is
        ``< θ η`` with ``η ~ N(1, 1)``, budget checked as labels / samples seen. Unlike
        ours, θ is also widened for samples that are not candidates.
    ``"Split"``, ``"RandomVariableUncertainty"``
        Further Žliobaitė strategies, for completeness.

    The strategy starts empty: ``D0`` is not shown to it (its only entry point, ``update``,
    would also count ``D0`` as unlabelled stream samples in its budget manager).

    cbeal's model may refuse an acquisition the strategy asked for once its hard budget
    ``B`` is spent; scikit-activeml's budget manager is nevertheless told what the
    strategy queried (as if the label had been bought). Its own budget fraction is
    ``budget_fraction`` (``B / n`` in :func:`skactiveml_methods`), so this rarely matters.

    Parameters
    ----------
    strategy
        Which strategy, see above.
    budget_fraction
        scikit-activeml's ``budget``: the share of samples it may label, in (0, 1].
    random_state
        Seed of the strategy (its ``random_state``); None: drawn from the generator given
        to :meth:`fit`, i.e. fixed by the stream model's seed.

    Attributes
    ----------
    strategy_
        The fitted scikit-activeml strategy.
    utility_
        The strategy's utility of the last sample (US/VU: 1 − certainty, DBALStream:
        1 − margin, RS: a uniform draw).
    n_seen_, n_queried_
        Samples seen and queried by the strategy.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context
    >>> from cbeal.experiments.skactiveml_check import SkactivemlAgent
    >>> agent = SkactivemlAgent(strategy="US", budget_fraction=0.1, random_state=0)
    >>> agent = agent.fit(np.zeros((1, 2)))
    >>> agent.advise_one(Context(np.zeros(2), np.array([0.52, 0.48])))  # 0.52 ≤ 0.55
    1.0
    >>> agent.advise_one(Context(np.ones(2), np.array([0.9, 0.1])))
    0.0
    >>> round(agent.utility_, 6), agent.n_seen_, agent.n_queried_
    (0.1, 2, 1)
    """

    kind: ClassVar[str] = "hybrid"

    def __init__(self, *, strategy: str = "RS", budget_fraction: float = 0.1,
                 random_state: int | None = None) -> None:
        self.strategy = strategy
        self.budget_fraction = budget_fraction
        self.random_state = random_state

    def _start(self, X0: np.ndarray) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(
                f"unknown strategy {self.strategy!r}; choose one of {sorted(STRATEGIES)}"
            )
        if not 0.0 < float(self.budget_fraction) <= 1.0:
            raise ValueError(f"budget_fraction must be in (0, 1], got {self.budget_fraction}")
        rs = self.random_state
        if rs is not None and (isinstance(rs, bool) or not isinstance(rs, (int, np.integer))):
            raise TypeError(f"random_state must be an int or None, got {rs!r}")
        _stream_module()
        self.seed_ = int(rs) if rs is not None else int(self._rng.integers(2**31 - 1))
        self.strategy_: Any = None  # built at the first sample, when the classes are known
        self.n_classes_ = 0
        self.utility_ = float("nan")
        self.n_seen_ = 0
        self.n_queried_ = 0

    def _build(self, n_classes: int) -> Any:
        name = STRATEGIES[self.strategy]
        cls = getattr(_stream_module(), name)
        kwargs: dict[str, Any] = {"budget": float(self.budget_fraction),
                                  "random_state": self.seed_}
        if name == "FixedUncertainty":
            kwargs["classes"] = np.arange(n_classes)
        return cls(**kwargs)

    def advise_one(self, ctx: Context) -> float:
        k = ctx.proba.shape[0]
        if self.strategy_ is None:
            self.strategy_ = self._build(k)
            self.n_classes_ = k
        elif k != self.n_classes_:
            raise ValueError(f"the learner's classes changed from {self.n_classes_} to {k}")
        candidates = np.asarray(ctx.x, dtype=float).reshape(1, -1)
        if STRATEGIES[self.strategy] == "StreamRandomSampling":
            queried, utilities = self.strategy_.query(candidates, return_utilities=True)
        else:
            clf = _proba_shim()(np.asarray(ctx.proba, dtype=float))
            queried, utilities = self.strategy_.query(candidates, clf=clf,
                                                      return_utilities=True)
        queried = np.asarray(queried, dtype=np.intp)
        self.strategy_.update(candidates, queried)
        self.utility_ = float(utilities[0])
        self.n_seen_ += 1
        self.n_queried_ += int(queried.size)
        return 1.0 if queried.size else 0.0

    @property
    def name(self) -> str:
        return f"{self.strategy} (skactiveml)"


def _crosscheck(name: str, strategy: str) -> Builder:
    def build(est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        _stream_module()  # fail early, with the install hint
        agent = SkactivemlAgent(strategy=strategy, budget_fraction=budget / n_stream)
        return SingleAgentLearner(agent=agent, name=name, epsilon=0.0, estimator=est,
                                  budget=budget, random_state=seed)

    return build


def skactiveml_methods() -> dict[str, Method]:
    """scikit-activeml's counterparts of the benchmarks RS, US, VariableUncertainty and
    DBALStream, as methods of the ``"crosscheck"`` family.

    Built like the baselines of :data:`~cbeal.experiments.METHODS` (one agent, ε = 0,
    budget fraction ``B / n``, the model's seed). Listing them does not need
    scikit-activeml; building one without it raises an ImportError.

    >>> sorted(skactiveml_methods())  # doctest: +NORMALIZE_WHITESPACE
    ['DBALStream (skactiveml)', 'RS (skactiveml)', 'US (skactiveml)',
     'VariableUncertainty (skactiveml)']
    """
    methods = [Method(f"{s} (skactiveml)", "crosscheck", _crosscheck(f"{s} (skactiveml)", s))
               for s in ("RS", "US", "VariableUncertainty", "DBALStream")]
    return {m.name: m for m in methods}
