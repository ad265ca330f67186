"""cbeal in river's world (``pip install -e '.[river]'``).

* :class:`CbealActiveClassifier` is a river active learner: ``predict_one(x) -> (y_pred,
  ask)`` and ``learn_one(x, y)`` on dict samples. It subclasses river's
  ``active.base.ActiveLearningClassifier``, which is how ``river.evaluate`` recognises an
  active learner: ``progressive_val_score`` then scores every prediction but calls
  ``learn_one`` only for the samples whose ``ask`` was True, when their label is revealed
  (with ``delay``, later and possibly in another order).
* :class:`~cbeal.adapters.river_learner.RiverClassifier` makes a river classifier cbeal's
  learner (``estimator=RiverClassifier(model=...)``).
"""

from __future__ import annotations

from collections import deque
from typing import Any

try:
    from river import active
except ImportError as exc:  # the extra is missing: say how to install it
    raise ImportError(
        "cbeal.adapters.river needs the optional package river; install it with "
        "`pip install -e '.[river]'`"
    ) from exc

from cbeal.adapters.river_learner import RiverClassifier
from cbeal.core import DecisionError, ParameterError

__all__ = ["CbealActiveClassifier", "RiverClassifier"]


def _key(x: dict[Any, Any]) -> str:
    """The identity of a sample: its content, since river hands ``learn_one`` a copy."""
    return repr(sorted(x.items(), key=lambda kv: str(kv[0])))


def _named(x: dict[Any, Any]) -> dict[str, Any]:
    """`x` with string feature names: river's synthetic streams (SEA, Hyperplane) key
    features by position, and cbeal checks dict samples by column name."""
    if all(isinstance(k, str) for k in x):
        return x
    return {str(k): v for k, v in x.items()}


class CbealActiveClassifier(active.base.ActiveLearningClassifier):
    """A cbeal stream model as a river active learner.

    The first `initial` samples are all asked for: their labels are the initial labelled
    set ``D0`` (outside the budget, as in the paper), and the model is fitted on them once
    they have all arrived. Samples seen in between get no prediction (``None``) and are
    not asked for. From then on each ``predict_one`` is one decision of the cbeal model
    (``query_one``): call it once per sample. ``learn_one(x, y)`` delivers the label of a
    sample that was asked for, found by its content, late and in any order; the label of a
    sample that was not asked for is refused (the budget only pays for asked labels).

    Samples are dicts with the same keys throughout (the model's feature names).

    Parameters
    ----------
    model
        An unfitted cbeal stream model (:class:`~cbeal.CbeAL`,
        :class:`~cbeal.SingleAgentLearner`); a copy is fitted, the object stays as given.
    initial
        How many of the first samples form ``D0``.

    Attributes
    ----------
    model_
        The fitted cbeal model (None until ``D0`` is complete).
    n_asked_
        Labels asked for so far, ``D0`` included.

    Examples
    --------
    >>> from river import datasets, evaluate, metrics
    >>> from sklearn.linear_model import LogisticRegression
    >>> from cbeal import CbeAL
    >>> from cbeal.adapters.river import CbealActiveClassifier
    >>> model = CbealActiveClassifier(model=CbeAL.from_preset(
    ...     "CBEAL-2", estimator=LogisticRegression(), budget=0.1, random_state=0))
    >>> metric = evaluate.progressive_val_score(
    ...     datasets.synth.SEA(seed=0).take(300), model, metrics.Accuracy(), delay=5)
    >>> model.n_asked_ <= 10 + 0.1 * 300 + 5    # D0, 10 %, and the rate's burst of 5
    True
    """

    def __init__(self, *, model: Any, initial: int = 10) -> None:
        self.model = model
        self.initial = initial
        self.model_: Any = None
        self.n_asked_ = 0
        self._warmup: dict[str, deque[dict[Any, Any]]] = {}
        self._d0: list[tuple[dict[Any, Any], Any]] = []
        self._asked: dict[str, deque[str]] = {}

    @classmethod
    def _unit_test_params(cls) -> Any:
        from sklearn.linear_model import LogisticRegression

        from cbeal.models import CbeAL

        yield {
            "model": CbeAL.from_preset(
                "CBEAL-2", estimator=LogisticRegression(), budget=0.2, random_state=0
            ),
            "initial": 5,
        }

    # river's Wrapper reads these from the wrapped model, which is no river model
    @property
    def _wrapped_model(self) -> Any:
        return self.model

    @property
    def _supervised(self) -> bool:
        return True

    @property
    def _multiclass(self) -> bool:
        return True

    def _more_tags(self) -> set[str]:
        return set()

    def _ask_for_label(self, x: dict[Any, Any], y_pred: Any) -> bool:  # pragma: no cover
        raise NotImplementedError("CbealActiveClassifier decides in predict_proba_one")

    # ------------------------------------------------------------------ river API
    # river's active learners answer (prediction, ask), unlike its plain classifiers
    def predict_proba_one(  # type: ignore[override]
        self, x: dict[Any, Any], **kwargs: Any
    ) -> tuple[dict[Any, float], bool]:
        """Class probabilities of `x` and whether to ask for its label (one decision)."""
        if self.model_ is None:
            n = self.initial
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ParameterError(f"initial must be a whole number ≥ 1, got {n!r}")
            if self.n_asked_ >= n:
                return {}, False  # D0 asked for, its labels not all in yet
            self._warmup.setdefault(_key(x), deque()).append(dict(x))
            self.n_asked_ += 1
            return {}, True
        d = self.model_.query_one(_named(x))
        if d.acquire:
            self._asked.setdefault(_key(x), deque()).append(d.id)
            self.n_asked_ += 1
        return dict(zip(d.classes, d.proba.tolist(), strict=True)), d.acquire

    def predict_one(self, x: dict[Any, Any], **kwargs: Any) -> tuple[Any, bool]:  # type: ignore[override]
        """The predicted label of `x` (None before ``D0`` is complete) and whether to ask."""
        proba, ask = self.predict_proba_one(x)
        return (max(proba, key=proba.__getitem__) if proba else None), ask

    def learn_one(self, x: dict[Any, Any], y: Any, **kwargs: Any) -> None:
        """Deliver the label `y` of a sample that was asked for."""
        key = _key(x)
        if key in self._asked:
            ids = self._asked[key]
            self.model_.learn_one(None, y, decision=ids[0])  # may raise: then nothing changed
            ids.popleft()
            if not ids:
                del self._asked[key]
        elif key in self._warmup:
            rows = self._warmup[key]
            self._d0.append((rows.popleft(), y))
            if not rows:
                del self._warmup[key]
            if len(self._d0) == self.initial:
                self._start()
        else:
            raise DecisionError(
                "learn_one got a sample that was not asked for (or whose label was already "
                "delivered); deliver labels only when predict_one answered ask=True."
            )

    def _start(self) -> None:
        import pandas as pd

        rows = [_named(x) for x, _ in self._d0]
        X0 = pd.DataFrame(rows, columns=list(rows[0]))
        model = self.model.clone()
        model.fit(X0, [y for _, y in self._d0])
        self.model_ = model
        self._d0 = []
