"""Conventions of every component: constructor parameters, cloning, repr, documentation."""

from __future__ import annotations

import inspect
import pickle
from typing import Any

from cbeal.checks._base import check
from cbeal.core.exceptions import ParameterError

__all__ = ["PARAMS_CHECKS"]


def _signature_params(obj: Any) -> list[inspect.Parameter]:
    sig = inspect.signature(type(obj).__init__)
    return [p for n, p in sig.parameters.items() if n != "self"]


@check("constructor parameters are keyword-only")
def check_keyword_only(obj: Any) -> None:
    positional = [p.name for p in _signature_params(obj) if p.kind is not p.KEYWORD_ONLY]
    assert not positional, f"make these keyword-only (put a * before them): {positional}"


class _Marker:
    """A value no constructor converts: whatever is stored must be this very object."""

    def __repr__(self) -> str:
        return "<marker>"


@check("parameters are stored unchanged under their own names")
def check_stored_unchanged(obj: Any) -> None:
    names = [p.name for p in _signature_params(obj)]
    got = obj.get_params(deep=False)
    assert list(got) == names, f"get_params(deep=False) lists {list(got)}, __init__ {names}"
    for name in names:
        marker = _Marker()
        try:
            fresh = type(obj)(**{**got, name: marker})
        except Exception as exc:
            raise AssertionError(
                f"__init__ refused {name}=<marker> ({type(exc).__name__}: {exc}); store every "
                "argument as given and check it when it is first used (fit, start)"
            ) from exc
        assert getattr(fresh, name, None) is marker, (
            f"__init__ does not store {name} unchanged as self.{name}; store every argument "
            "as given and check it when it is first used (fit, start)"
        )


@check("get_params(deep=True) lists nested parameters as outer__inner")
def check_deep_params(obj: Any) -> None:
    deep = obj.get_params(deep=True)
    for name, value in obj.get_params(deep=False).items():
        assert deep[name] is value, f"deep parameters change {name}"
        if hasattr(value, "get_params") and not isinstance(value, type):
            for inner in value.get_params(deep=True):
                assert f"{name}__{inner}" in deep, f"{name}__{inner} is missing"


@check("clone gives an unfitted twin with the same parameters")
def check_clone(obj: Any) -> None:
    twin = obj.clone()
    assert type(twin) is type(obj) and twin is not obj, "clone() must return a new object"
    assert repr(twin) == repr(obj), f"{twin!r} is not {obj!r}"
    learned = [k for k in vars(twin) if k.endswith("_") and not k.startswith("_")]
    assert not learned, f"a fresh object holds learned state {learned} (set it in fit)"


@check("set_params sets known parameters and refuses unknown ones")
def check_set_params(obj: Any) -> None:
    twin = obj.clone()
    params = obj.get_params(deep=False)
    if params:
        first = next(iter(params))
        assert twin.set_params(**{first: params[first]}) is twin, "set_params must return self"
    try:
        twin.set_params(not_a_parameter_of_this_component=1)
    except ParameterError:
        pass
    else:
        raise AssertionError("set_params accepted an unknown name; raise ParameterError")


@check("repr shows the class and its non-default parameters")
def check_repr(obj: Any) -> None:
    text = repr(obj)
    assert text.startswith(type(obj).__name__ + "("), f"repr is {text!r}"


@check("an unfitted component pickles")
def check_pickle_unfitted(obj: Any) -> None:
    assert repr(pickle.loads(pickle.dumps(obj.clone()))) == repr(obj)


@check("the class docstring has an Examples section (doctested)")
def check_examples(obj: Any) -> None:
    doc = type(obj).__doc__ or ""
    assert "Examples" in doc or ">>>" in doc, "add an Examples section with >>> lines"


PARAMS_CHECKS = [
    check_keyword_only,
    check_stored_unchanged,
    check_deep_params,
    check_clone,
    check_set_params,
    check_repr,
    check_pickle_unfitted,
    check_examples,
]
