"""Constructor-parameter conventions shared by every component (numpy-free).

Components take keyword-only constructor parameters and store them unchanged under the
same name; learned state ends in ``_``. :class:`Params` derives ``get_params``,
``set_params``, ``clone`` and a compact ``repr`` from the ``__init__`` signature, like
scikit-learn's ``BaseEstimator`` but without depending on scikit-learn.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, TypeVar

__all__ = ["Params"]

P = TypeVar("P", bound="Params")


class Params:
    """Mixin: parameters introspected from ``__init__``."""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [
            name
            for name, par in sig.parameters.items()
            if name != "self" and par.kind in (par.KEYWORD_ONLY, par.POSITIONAL_OR_KEYWORD)
        ]

    def get_params(self) -> dict[str, Any]:
        """The constructor parameters, as given."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self: P, **params: Any) -> P:
        """Set constructor parameters; unknown names raise ``ValueError``."""
        valid = set(self._param_names())
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"{type(self).__name__} has no parameter {name!r}; "
                    f"valid parameters are {sorted(valid)}"
                )
            setattr(self, name, value)
        return self

    def clone(self: P) -> P:
        """A new, unfitted component with the same parameters (deep-copied)."""
        return type(self)(**copy.deepcopy(self.get_params()))

    def __repr__(self) -> str:
        sig = inspect.signature(type(self).__init__)
        parts = []
        for name in self._param_names():
            value = getattr(self, name)
            default = sig.parameters[name].default
            try:
                same = bool(value == default)
            except Exception:  # arrays and other objects without a plain truth value
                same = value is default
            if not same:
                parts.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"
