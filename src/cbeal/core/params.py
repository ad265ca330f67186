"""Constructor-parameter conventions shared by every component (numpy-free).

Components take keyword-only constructor parameters and store them unchanged under the
same name; learned state ends in ``_``. :class:`Params` derives ``get_params``,
``set_params``, ``clone`` and a compact ``repr`` from the ``__init__`` signature, with
scikit-learn's semantics (``deep=True`` lists nested parameters as ``outer__inner``,
``set_params`` accepts them, ``sklearn.base.clone`` works) but without depending on
scikit-learn.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Iterable
from typing import Any, TypeVar

from cbeal.core.exceptions import ParameterError

__all__ = ["Params"]

P = TypeVar("P", bound="Params")


def _nested(value: Any) -> bool:
    return hasattr(value, "get_params") and not isinstance(value, type)


class Params:
    """Mixin: parameters introspected from ``__init__``."""

    @classmethod
    def _unit_test_params(cls) -> Iterable[dict[str, Any]]:
        """Parameter sets :mod:`cbeal.checks` builds test instances from (as river's).

        The default, ``{}``, is the defaults; a component whose parameters have no default
        (an ensemble's agents, a model's estimator) or whose defaults would test little
        overrides it, e.g. ``return [{"window_size": 30}]``.
        """
        return [{}]

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [
            name
            for name, par in sig.parameters.items()
            if name != "self" and par.kind in (par.KEYWORD_ONLY, par.POSITIONAL_OR_KEYWORD)
        ]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters, as given; with `deep`, nested ones as ``name__param``."""
        out: dict[str, Any] = {}
        for name in self._param_names():
            value = getattr(self, name)
            out[name] = value
            if deep and _nested(value):
                out.update((f"{name}__{k}", v) for k, v in value.get_params(deep=True).items())
        return out

    def set_params(self: P, **params: Any) -> P:
        """Set parameters, nested ones as ``name__param``; unknown names raise an error.

        Every name is checked before any is set, so a call that fails changes nothing.
        """
        valid = set(self._param_names())
        direct: dict[str, Any] = {}
        inner: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, _, rest = key.partition("__")
            if name not in valid:
                raise ParameterError(
                    f"{type(self).__name__} has no parameter {name!r}; "
                    f"valid parameters are {sorted(valid)}"
                )
            if rest:
                inner.setdefault(name, {})[rest] = value
            else:
                direct[name] = value
        for name, sub in inner.items():
            target = direct.get(name, getattr(self, name))  # a new value set in this call
            if not _nested(target):
                raise ParameterError(
                    f"{type(self).__name__}.{name} is {type(target).__name__}, which has no "
                    f"parameters to set ({', '.join(f'{name}__{k}' for k in sub)})"
                )
            known = set(target.get_params(deep=True))
            unknown = sorted(k for k in sub if k not in known)
            if unknown:
                raise ParameterError(
                    f"{type(self).__name__}.{name} ({type(target).__name__}) has no parameter "
                    f"{', '.join(repr(k) for k in unknown)}; valid parameters are "
                    f"{sorted(k for k in known if '__' not in k)}"
                )
        for name, value in direct.items():
            setattr(self, name, value)
        for name, sub in inner.items():
            getattr(self, name).set_params(**sub)
        return self

    def clone(self: P) -> P:
        """A new, unfitted component with the same parameters (deep-copied)."""
        return type(self)(**copy.deepcopy(self.get_params(deep=False)))

    def __sklearn_clone__(self: P) -> P:
        return self.clone()

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
