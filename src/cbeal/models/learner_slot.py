"""The learner a stream model serves, and the labels it has not been trained on yet.

A stream model retrains its learner after every ``refit_every`` labels, or when asked; a
retrain may run in another thread and is swapped in only if no other retrain came first
(:meth:`LearnerSlot.serve`), which keeps every swap replayable.
"""

from __future__ import annotations

from typing import Any

from cbeal.core import ParameterError
from cbeal.learners.adapter import LearnerAdapter

__all__ = ["LearnerSlot"]


class LearnerSlot:
    """The served learner (a :class:`~cbeal.learners.adapter.LearnerAdapter`, whose
    ``version`` counts its fits) and the labels since it was trained.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from cbeal.learners.adapter import LearnerAdapter
    >>> from cbeal.models.learner_slot import LearnerSlot
    >>> X, y = np.array([[0.0], [1.0]]), np.array([0, 1])
    >>> first = LearnerAdapter(LogisticRegression(), np.array([0, 1]), 0).fit(X, y)
    >>> slot = LearnerSlot().start(first)
    >>> slot.version, slot.due(2)
    (1, False)
    >>> slot.learned(None); slot.due(2)
    True
    >>> slot.serve(first.fitted_on(X, y), pool_size=3); slot.version, slot.since_refit_
    (2, 1)
    """

    learner_: LearnerAdapter
    since_refit_: int

    def start(self, learner: LearnerAdapter) -> LearnerSlot:
        """Serve the freshly trained `learner`."""
        self.learner_ = learner
        self.since_refit_ = 0
        return self

    @property
    def version(self) -> int:
        """Number of fits of the served learner so far."""
        return int(self.learner_.version)

    def due(self, refit_every: int | None) -> bool:
        """Whether the next label makes a retrain due (``refit_every`` labels since one)."""
        return refit_every is not None and self.since_refit_ + 1 >= refit_every

    def learned(self, new: LearnerAdapter | None) -> None:
        """A label joined the pool; `new` is the learner retrained with it, if it was due."""
        if new is not None:
            self.learner_ = new
            self.since_refit_ = 0
        else:
            self.since_refit_ += 1

    def serve(self, learner: Any, *, pool_size: int) -> None:
        """Serve a retrain of the served learner (refused if another one came first)."""
        if not isinstance(learner, LearnerAdapter) or learner.version != self.version + 1:
            raise ParameterError(
                "this learner was not trained from the one the model serves now (another "
                "refit came first); train a new one with train_learner()"
            )
        self.learner_ = learner
        self.since_refit_ = pool_size - learner.n_trained

    @classmethod
    def of_fields(cls, fields: dict[str, Any]) -> LearnerSlot:
        """The slot of a model stored before the slot was its own object (its ``_learner``
        and ``_since_refit``, popped from `fields`)."""
        slot = cls()
        slot.learner_ = fields.pop("_learner")
        slot.since_refit_ = fields.pop("_since_refit")
        return slot
