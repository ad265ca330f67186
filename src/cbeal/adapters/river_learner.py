"""A river classifier as cbeal's learner: ``fit``/``predict_proba`` on top of river's
``learn_one``/``predict_proba_one``.

How refits work: a stream model retrains its learner on the whole labelled pool (after
every label, or every ``refit_every`` labels). :meth:`RiverClassifier.fit` starts from a
fresh copy of the river model and lets it learn the pool's rows one by one, in pool order
(``D0``, then the labels in the order they arrived). That is exactly the model river would
have after learning the same labels incrementally, so nothing is lost by the replay; it
only costs time proportional to the pool (a few µs per row for linear models). With
thousands of labels, pass ``refit_every=k`` to the stream model.

river itself is only needed to build the river model you pass in; this module does not
import it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.core import InvalidInputError, NotFittedError, ParameterError, Params

__all__ = ["RiverClassifier"]


class RiverClassifier(Params):
    """A river classifier behind scikit-learn's ``fit``/``predict_proba``, for cbeal models.

    Features reach the river model as dicts keyed by column position (``{0: x0, 1: x1,
    …}``): what the stream model's agents see, i.e. the output of its ``preprocessor``.

    Parameters
    ----------
    model
        An unfitted river classifier (copied with its ``clone()`` at every fit).
    random_state
        The ``seed`` given to the river model's copies when its own ``seed`` is None; the
        stream model fills it in from its own ``random_state``.

    Attributes
    ----------
    model_
        The river model trained on the last ``fit``.
    classes_
        The labels seen at ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from river import linear_model
    >>> from cbeal.adapters.river import RiverClassifier
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [0.1, 0.9], [0.9, 0.2]])
    >>> clf = RiverClassifier(model=linear_model.LogisticRegression()).fit(X, [0, 1, 0, 1])
    >>> clf.predict_proba(X).shape, clf.classes_.tolist()
    ((4, 2), [0, 1])
    """

    def __init__(self, *, model: Any, random_state: int | None = None) -> None:
        self.model = model
        self.random_state = random_state

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        from river import linear_model

        return [{"model": linear_model.LogisticRegression()}]

    def fit(self, X: Any, y: Any) -> RiverClassifier:
        """Train a fresh copy of the river model on the rows of `X`, in order; returns self."""
        model = self.model
        if not (
            hasattr(model, "learn_one")
            and hasattr(model, "predict_proba_one")
            and hasattr(model, "clone")
        ):
            raise ParameterError(
                f"model must be a river classifier (learn_one, predict_proba_one), got "
                f"{type(model).__name__}"
            )
        X_ = np.asarray(X, dtype=np.float64)
        y_ = np.asarray(y)
        if X_.ndim != 2 or y_.shape != (X_.shape[0],):
            raise InvalidInputError(
                f"X must be 2-D with one label per row; got shapes {X_.shape} and {y_.shape}"
            )
        self.X_, self.y_ = X_, y_
        self.classes_ = np.unique(y_)
        self.model_ = self._replay()
        return self

    def _replay(self) -> Any:
        params: dict[str, Any] = getattr(self.model, "_get_params", dict)()
        seeded = "seed" in params and params["seed"] is None and self.random_state is not None
        model = self.model.clone({"seed": self.random_state} if seeded else None)
        for row, label in zip(self.X_.tolist(), self.y_.tolist(), strict=True):
            model.learn_one(dict(enumerate(row)), label)
        return model

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, columns ordered as ``classes_``."""
        if "model_" not in self.__dict__:
            raise NotFittedError("this RiverClassifier is not fitted; call fit(X, y) first.")
        labels = self.classes_.tolist()
        out = np.empty((len(X), len(labels)))
        for i, row in enumerate(np.asarray(X, dtype=np.float64).tolist()):
            proba = self.model_.predict_proba_one(dict(enumerate(row)))
            p = np.array([float(proba.get(c, 0.0)) for c in labels])
            total = p.sum()
            # river models answer {} (or zeros) before they can tell: no preference then
            out[i] = p / total if total > 0 else 1.0 / len(labels)
        return out

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class of each row."""
        return np.asarray(self.classes_[np.argmax(self.predict_proba(X), axis=1)])

    # a model file keeps what the river model learned from (numbers only) and replays it
    # when read, rather than the river model's internals
    def _modelfile_state(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("model_", None)
        return state

    def _modelfile_restore(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "X_" in state:
            self.model_ = self._replay()
