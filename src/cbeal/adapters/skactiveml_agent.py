"""scikit-activeml's stream query strategies as cbeal agents.

:class:`SkactivemlAgent` wraps a stream strategy (``query`` then ``update`` once per
sample) so that it can run alone in a :class:`~cbeal.SingleAgentLearner` (the baselines'
cross-check, :mod:`cbeal_studies.reproduction.skactiveml_check`) or join a CbeAL ensemble.
scikit-activeml is imported when an agent is fitted, so this module imports without it.
"""

from __future__ import annotations

import copy
import functools
import inspect
from typing import Any, ClassVar

import numpy as np

from cbeal.core import ModelFileError, ParameterError
from cbeal.core.agent import Agent, Context

__all__ = ["STRATEGIES", "SkactivemlAgent"]

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

#: Strategies that call the classifier's ``predict_freq`` (kernel frequency estimates).
_NEEDS_FREQUENCIES = ("StreamProbabilisticAL",)

_INSTALL_HINT = (
    "scikit-activeml strategies need the optional package scikit-activeml; install it with "
    "`pip install -e '.[skactiveml]'`"
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

    The strategies only check ``isinstance(clf, SkactivemlClassifier)`` (with
    ``fit_clf=False`` they never fit or clone it) and then call ``clf.predict_proba``; the
    shim answers with our learner's probabilities, so their strategy scores exactly what
    ours scores. The class is built on first use because its base class comes from the
    optional package; instances are never stored.
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

    Per sample the agent calls the strategy's ``query`` on the one-row batch ``[x]`` (with a
    classifier shim whose ``predict_proba`` returns our learner's ``ctx.proba``, for the
    strategies that take a classifier), then ``update`` with what it queried; the advice
    is ``1.0`` if it queried the sample, else ``0.0``.

    `strategy` is a name (ours or scikit-activeml's, see :data:`STRATEGIES`) or an unfitted
    scikit-activeml stream strategy, used as a template (copied at :meth:`fit`; a
    ``random_state`` left at None is drawn from the model's generator). Strategies that
    need more of the classifier than ``predict_proba`` (``StreamProbabilisticAL`` uses
    ``predict_freq``) are refused. Named strategies:

    ``"RS"``
        ``StreamRandomSampling(budget=b)``: each sample with probability ``b``.
    ``"US"``
        ``FixedUncertainty(classes, budget=b)``: asks when the certainty is
        ``≤ 1/K + b (1 − 1/K)`` (K classes) and a windowed label count allows; for two
        classes and ``b = 0.4`` this is our ``UncertaintyAgent(threshold=0.7)``.
    ``"VariableUncertainty"``, ``"Split"``, ``"RandomVariableUncertainty"``
        Žliobaitė et al.'s strategies (θ₀ = 1, s = 0.01).
    ``"DBALStream"``
        ``StreamDensityBasedAL(budget=b)`` (window 100, Euclidean).

    The strategy starts empty: ``D0`` is not shown to it (``update``, its only entry point,
    would count ``D0`` as unlabelled stream samples in its budget manager). cbeal's model
    may refuse an acquisition the strategy asked for once its own budget is spent;
    scikit-activeml's budget manager is told what the strategy queried nevertheless.

    A model holding a fitted agent of this kind cannot be written to a model file (the
    strategy's state is not plain data; skops would drop parts of it silently): saving
    raises a :class:`~cbeal.ModelFileError`. Pickle works.

    Parameters
    ----------
    strategy
        A name or an unfitted strategy, see above.
    budget_fraction
        scikit-activeml's ``budget`` for named strategies, in (0, 1].
    random_state
        Seed of a named strategy; None: drawn from the generator given to :meth:`fit`.

    Attributes
    ----------
    strategy_
        The fitted scikit-activeml strategy.
    utility_
        The strategy's utility of the last sample.
    n_seen_, n_queried_
        Samples seen and queried by the strategy.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context
    >>> from cbeal.adapters.skactiveml import SkactivemlAgent
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

    def __init__(
        self, *, strategy: Any = "RS", budget_fraction: float = 0.1, random_state: int | None = None
    ) -> None:
        self.strategy = strategy
        self.budget_fraction = budget_fraction
        self.random_state = random_state

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"strategy": "DBALStream", "budget_fraction": 0.2}]

    def _start(self, X0: np.ndarray) -> None:
        named = isinstance(self.strategy, str)
        if named and self.strategy not in STRATEGIES:
            raise ParameterError(
                f"unknown strategy {self.strategy!r}; choose one of {sorted(STRATEGIES)} or "
                "pass a scikit-activeml stream strategy"
            )
        if not named and not (hasattr(self.strategy, "query") and hasattr(self.strategy, "update")):
            raise ParameterError(
                f"strategy must be a name or a scikit-activeml stream strategy (with query "
                f"and update), got {type(self.strategy).__name__}"
            )
        if named and not 0.0 < float(self.budget_fraction) <= 1.0:
            raise ParameterError(f"budget_fraction must be in (0, 1], got {self.budget_fraction}")
        rs = self.random_state
        if rs is not None and (isinstance(rs, bool) or not isinstance(rs, (int, np.integer))):
            raise ParameterError(f"random_state must be an int or None, got {rs!r}")
        _stream_module()
        self.seed_ = int(rs) if rs is not None else int(self._rng.integers(2**31 - 1))
        self.strategy_: Any = None  # built at the first sample, when the classes are known
        self.n_classes_ = 0
        self.utility_ = float("nan")
        self.n_seen_ = 0
        self.n_queried_ = 0

    def _build(self, n_classes: int) -> Any:
        if not isinstance(self.strategy, str):
            strategy = copy.deepcopy(self.strategy)  # the template stays unfitted
            if getattr(strategy, "random_state", 0) is None:
                strategy.random_state = self.seed_
            if type(strategy).__name__ in _NEEDS_FREQUENCIES:
                raise ParameterError(
                    f"{type(strategy).__name__} needs the classifier's predict_freq, which a "
                    "cbeal agent cannot give (it only sees class probabilities)"
                )
            return strategy
        name = STRATEGIES[self.strategy]
        kwargs: dict[str, Any] = {"budget": float(self.budget_fraction), "random_state": self.seed_}
        if name == "FixedUncertainty":
            kwargs["classes"] = np.arange(n_classes)
        return getattr(_stream_module(), name)(**kwargs)

    def advise_one(self, ctx: Context) -> float:
        k = ctx.proba.shape[0]
        if self.strategy_ is None:
            self.strategy_ = self._build(k)
            self.n_classes_ = k
            self.takes_clf_ = "clf" in inspect.signature(self.strategy_.query).parameters
        elif k != self.n_classes_:
            raise ParameterError(f"the learner's classes changed from {self.n_classes_} to {k}")
        candidates = np.asarray(ctx.x, dtype=float).reshape(1, -1)
        if self.takes_clf_:
            clf = _proba_shim()(np.asarray(ctx.proba, dtype=float))
            queried, utilities = self.strategy_.query(candidates, clf=clf, return_utilities=True)
        else:
            queried, utilities = self.strategy_.query(candidates, return_utilities=True)
        queried = np.asarray(queried, dtype=np.intp)
        self.strategy_.update(candidates, queried)
        self.utility_ = float(utilities[0])
        self.n_seen_ += 1
        self.n_queried_ += int(queried.size)
        return 1.0 if queried.size else 0.0

    def _modelfile_state(self) -> dict[str, Any]:
        # skops would store a strategy object, but drops the content of its deques (the
        # window of StreamDensityBasedAL) without a word: refuse rather than save a model
        # that loads with another state
        if self.__dict__.get("strategy_") is not None or not isinstance(self.strategy, str):
            raise ModelFileError(
                f"cannot save a model holding the agent {self.name}: a scikit-activeml "
                "strategy's state is not plain data, so it cannot be stored safely. Keep the "
                "model in memory, or pickle it if you trust where the file is kept."
            )
        return dict(self.__dict__)

    @property
    def name(self) -> str:
        label = self.strategy if isinstance(self.strategy, str) else type(self.strategy).__name__
        return f"{label} (skactiveml)"
