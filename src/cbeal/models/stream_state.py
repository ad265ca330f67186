"""A stream model's lock and its copies: pickle, deep copies and the model file.

:class:`StreamState` is the base of :class:`~cbeal.models.stream.StreamLearner`. It holds
the model's lock (made once per object, never copied) and writes and reads the whole state
(see :mod:`cbeal.modelfile`), migrating the flat layouts that files and pickles written
before the model's parts were objects of their own hold: the labelled pool
(:class:`~cbeal.models.labelled_pool.LabelledPool`), the learner
(:class:`~cbeal.models.learner_slot.LearnerSlot`) and the decision path
(:class:`~cbeal.models.decision_path.DecisionPath`). It reads no learned state but the
stream position, to compile the kernels of a long stream it loads.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, TypeVar

from cbeal.core import Params
from cbeal.kernels import AFTER as KERNELS_AFTER
from cbeal.kernels import enable as enable_kernels
from cbeal.models.decision_path import DecisionPath
from cbeal.models.labelled_pool import LabelledPool
from cbeal.models.learner_slot import LearnerSlot

__all__ = ["StreamState"]

M = TypeVar("M", bound="StreamState")
_GUARD = threading.Lock()  # creates each model's own lock exactly once


class StreamState(Params):
    """A stream model's lock and its copies (the base of
    :class:`~cbeal.models.stream.StreamLearner`, not used on its own)."""

    # ------------------------------------------------------------------ locking
    @property
    def _mutex(self) -> threading.RLock:
        lock = self.__dict__.get("_lock")
        if lock is None:
            with _GUARD:
                lock = self.__dict__.setdefault("_lock", threading.RLock())
        return lock

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_lock", None)  # a lock cannot be copied; each copy makes its own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(_migrated(state))
        if self.__dict__.get("t_", 0) >= KERNELS_AFTER:
            enable_kernels()

    def _modelfile_restore(self, attrs: dict[str, Any]) -> None:
        """Rebuild from a model file's fields, those of an older layout included."""
        self.__dict__.update(_migrated(attrs))

    # ------------------------------------------------------------------ persistence
    def save(self, path: Any) -> Any:
        """Write the whole state to a model file (see :mod:`cbeal.modelfile`); returns its path.

        Safe to load: no code is stored, only numbers, text and scikit-learn objects in
        the skops format. The file is written under a temporary name and renamed, so a
        crash never leaves a half-written model (nor a temporary file).
        """
        from cbeal.modelfile import save_model

        with self._mutex:
            return save_model(self, path)

    @classmethod
    def load(cls: type[M], path: Any, *, trusted: Sequence[Any] = (), limits: Any = None) -> M:
        """Read a model written by :meth:`save`; it continues exactly where it stopped.

        `trusted` lists further classes the file may contain (your own agents or
        estimators); anything else that is not cbeal's, numpy's or scikit-learn's is
        refused with a :class:`~cbeal.ModelFileError`. `limits` bounds what the file may
        cost to load (a :class:`cbeal.modelfile.Limits`; None: the defaults, 1 GiB in
        total, compression ratios up to 300, nesting 100 deep, arrays up to 512 MiB):
        anything beyond is refused before it is inflated or allocated, with an error that
        names the limit to raise, e.g. ``limits=Limits(max_bytes=4 * 2**30)``. Every
        failure to load, whatever its cause, is a :class:`~cbeal.ModelFileError`.
        """
        from cbeal.modelfile import load_model

        model = load_model(path, cls, trusted=trusted, limits=limits)
        if model.__dict__.get("t_", 0) >= KERNELS_AFTER:
            enable_kernels()
        return model

    def to_bytes(self) -> bytes:
        """The model file's content as bytes (e.g. for a database); see :meth:`save`."""
        from cbeal.modelfile import dumps_model

        with self._mutex:
            return dumps_model(self)

    @classmethod
    def from_bytes(
        cls: type[M], data: bytes, *, trusted: Sequence[Any] = (), limits: Any = None
    ) -> M:
        """The model :meth:`to_bytes` wrote; see :meth:`load`."""
        from cbeal.modelfile import loads_model

        model = loads_model(data, cls, trusted=trusted, limits=limits)
        if model.__dict__.get("t_", 0) >= KERNELS_AFTER:
            enable_kernels()
        return model


def _migrated(fields: dict[str, Any]) -> dict[str, Any]:
    """A model's fields in the current layout: files and pickles written before the pool,
    the learner and the decision path were objects of their own hold their parts as flat
    fields (the first two objects came one release before the last)."""
    if "_pool_X" not in fields and "_names" not in fields:
        return fields
    fields = dict(fields)
    if "_pool_X" in fields:
        fields["_pool"] = LabelledPool.of_fields(fields)
        fields["_slot"] = LearnerSlot.of_fields(fields)
    if "_names" in fields:
        fields["_path"] = DecisionPath.of_fields(fields)
    return fields
