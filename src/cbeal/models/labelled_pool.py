"""The labelled pool of a stream model, and the acquisitions whose label is pending.

A stream model learns from ``D0`` followed by every label delivered (spec §9). An
acquisition joins the pool when its label arrives (:meth:`LabelledPool.deliver`), or leaves
the pending ones for good when it is cancelled; the pool remembers which stream positions
went which way, so that a label delivered twice or too late is refused with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cbeal.core import Decision, DecisionError, Proposal

__all__ = ["LabelledPool"]


@dataclass(frozen=True)
class _Pending:
    """What a pending acquisition needs when its label arrives."""

    x: np.ndarray
    proposal: Proposal
    y_index: int
    decision: Decision


# Model files and pickles name a class by its module: keep the name this class has always
# had (set after the class is built: dataclasses look its module up while building it).
_Pending.__module__ = "cbeal.models.stream"


class LabelledPool:
    """``D0`` and the delivered labels (as class indices, or a regressor's targets), and
    the acquisitions still waiting for theirs, by stream position.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.models.labelled_pool import LabelledPool
    >>> pool = LabelledPool().start(np.zeros((2, 3)), [0, 1])
    >>> len(pool), pool.n_features
    (2, 3)
    >>> pool.position(7, "m-7", seen=5)
    Traceback (most recent call last):
    ...
    cbeal.core.exceptions.DecisionError: no decision m-7: this model has made 5 decisions.
    >>> X, y = pool.arrays(upto=1)
    >>> X.shape, y.tolist()
    ((1, 3), [0])
    """

    X_: list[np.ndarray]
    y_: list[Any]
    pending_: dict[int, _Pending]
    labelled_: set[int]
    cancelled_: set[int]

    def start(self, X: Any, y: Any) -> LabelledPool:
        """Begin with the initial labelled set: nothing pending, nothing delivered."""
        self.X_ = list(X)
        self.y_ = list(y)
        self.pending_ = {}
        self.labelled_ = set()
        self.cancelled_ = set()
        return self

    def __len__(self) -> int:
        return len(self.y_)

    @property
    def n_features(self) -> int:
        """The width of a sample in the model's feature space."""
        return int(self.X_[0].shape[0])

    def arrays(self, upto: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)`` of the first `upto` samples (default: all)."""
        return np.asarray(self.X_[:upto]), np.asarray(self.y_[:upto])

    def arrays_with(self, x: np.ndarray, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)`` of the whole pool and one more sample, to train before it joins."""
        return np.asarray([*self.X_, x]), np.asarray([*self.y_, y])

    def ask(self, t: int, record: _Pending) -> None:
        """Acquisition `t` waits for its label."""
        self.pending_[t] = record

    def deliver(self, t: int, y: Any) -> None:
        """The label `y` of pending acquisition `t` arrived: its sample joins the pool."""
        record = self.pending_.pop(t)
        self.labelled_.add(t)
        self.X_.append(record.x)
        self.y_.append(y)

    def cancel(self, t: int) -> _Pending:
        """Acquisition `t` will never get its label; its record."""
        record = self.pending_.pop(t)
        self.cancelled_.add(t)
        return record

    def position(self, t: int, did: str, *, seen: int) -> int:
        """`t`, when acquisition `t` (decision `did`, of a model that has made `seen`
        decisions) waits for its label; else a :class:`~cbeal.DecisionError` that says
        why no label can be taken for it."""
        if t in self.pending_:
            return t
        if t in self.labelled_:
            raise DecisionError(f"decision {did} was already labelled.")
        if t in self.cancelled_:
            raise DecisionError(f"decision {did} was cancelled; it can no longer be labelled.")
        if t >= seen:
            raise DecisionError(f"no decision {did}: this model has made {seen} decisions.")
        raise DecisionError(
            f"decision {did} did not acquire its sample; only samples the model asked for "
            "can be labelled and rewarded."
        )

    def resolve(self, decision: Any, *, token: str | None, seen: int) -> int:
        """The stream position of the pending acquisition `decision` (a
        :class:`~cbeal.Decision`, its dict or its id) of the model whose decision ids
        start with `token` and that has made `seen` decisions; else a
        :class:`~cbeal.DecisionError` that says why it takes no label."""
        if isinstance(decision, dict):
            decision = Decision.from_dict(decision)
        if isinstance(decision, Decision):
            found, t, did = decision.model_token, decision.t, decision.id
            if not decision.acquire:
                raise DecisionError(
                    f"decision {did} did not acquire its sample ({decision.reason}); only "
                    "samples the model asked for can be labelled and rewarded."
                )
        elif isinstance(decision, str):
            found, _, pos = decision.rpartition("-")
            did = decision
            if not pos.isdigit():
                raise DecisionError(
                    f"{decision!r} is not a decision id; ids look like "
                    f"'{token or 'ab12cd34ef56'}-17'"
                )
            t = int(pos)
        else:
            raise DecisionError(
                "decision must be a Decision returned by query_one, its to_dict() or its id "
                f"string; got {type(decision).__name__}"
            )
        if found != token:
            raise DecisionError(
                f"decision {did} was made by another model (or before this model was fitted "
                "again); deliver each label to the model that asked for it."
            )
        return self.position(t, did, seen=seen)

    def waiting(self) -> tuple[Decision, ...]:
        """The decisions of the pending acquisitions, oldest first."""
        return tuple(self.pending_[t].decision for t in sorted(self.pending_))

    @classmethod
    def of_fields(cls, fields: dict[str, Any]) -> LabelledPool:
        """The pool of a model stored before the pool was its own object (its ``_pool_X``,
        ``_pool_y``, ``_pending``, ``_labelled`` and ``_cancelled``, popped from `fields`)."""
        pool = cls()
        pool.X_ = fields.pop("_pool_X")
        pool.y_ = fields.pop("_pool_y")
        pool.pending_ = fields.pop("_pending")
        pool.labelled_ = fields.pop("_labelled")
        pool.cancelled_ = fields.pop("_cancelled")
        return pool
