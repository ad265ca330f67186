"""A model's state as plain data: a JSON tree, numeric arrays and skops blobs — never code.

Encoding walks the model's attributes. cbeal's own objects become ``{"__obj__": name,
"attrs": {...}}`` (their class looked up by name in an allow-list at decoding, never
imported from the file), arrays go to an ``.npz`` archive read without pickle, and
scikit-learn objects (the estimator, the fitted learner, a preprocessor) go through skops,
whose loader refuses every type it was not told to trust. Objects referenced twice (an
agent shared by the ensemble and its window group) are written once and decoded once, so
that they stay shared.

A cbeal class may choose what is stored of its objects with a method
``_modelfile_state() -> dict`` (which may also refuse, with a ModelFileError) and rebuild
an object from that dict with ``_modelfile_restore(self, state)``.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import sys
from collections import deque
from typing import Any

import numpy as np

from cbeal.core.exceptions import ModelFileError
from cbeal.modelfile.limits import Limits, check_seedseq

__all__ = ["Decoder", "Encoder", "cbeal_classes"]

_OWN_MODULES = (
    "cbeal.core", "cbeal.baselines", "cbeal.models", "cbeal.learners.adapter",
    "cbeal.learners.platt_svm", "cbeal.learners.committee", "cbeal.adapters",
    "cbeal.learners.regression",  # and regression_committee (a prefix match)
)  # fmt: skip
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_SCALARS = (str, bool, int, type(None))


def cbeal_classes() -> dict[str, type]:
    """cbeal's own classes whose state a model file may hold, by qualified name."""
    out: dict[str, type] = {}
    for top in _OWN_MODULES:
        importlib.import_module(top)
        package = sys.modules[top]
        if hasattr(package, "__path__"):
            for info in pkgutil.iter_modules(package.__path__, top + "."):
                try:
                    importlib.import_module(info.name)
                except ImportError:  # an adapter whose optional library is not installed:
                    continue  # its classes are not needed, since no file can hold them here
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(_OWN_MODULES):
            continue
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and obj.__module__ == name
                and not issubclass(obj, BaseException)
            ):
                out[f"{name}.{obj.__qualname__}"] = obj
    return out


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _fields(obj: Any) -> dict[str, Any]:
    """An object's attributes: its ``__dict__`` and its slots (a lock is never state)."""
    out = dict(getattr(obj, "__dict__", {}))
    for klass in type(obj).__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if slot not in ("__dict__", "__weakref__") and hasattr(obj, slot):
                out[slot] = getattr(obj, slot)
    out.pop("_lock", None)
    return out


class Encoder:
    """Turns a model into ``(tree, arrays, blobs)``; see the module docstring."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.blobs: dict[str, bytes] = {}
        self._memo: dict[int, Any] = {}
        self._keep: list[Any] = []  # ids are only unique while the objects live

    def encode(self, value: Any) -> Any:
        if isinstance(value, _SCALARS):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else {"__float__": repr(value)}
        if isinstance(value, (list, tuple, set, frozenset, deque, dict)):
            return self._container(value)
        memo = self._memo.get(id(value))
        if memo is not None:
            return memo
        self._keep.append(value)
        ref = {"__ref__": len(self._memo)}
        self._memo[id(value)] = ref
        out = self._object(value)
        out["id"] = ref["__ref__"]
        return out

    def _container(self, value: Any) -> Any:
        items = [self.encode(v) for v in value] if not isinstance(value, dict) else None
        if isinstance(value, list):
            return items
        if isinstance(value, tuple):
            return {"__tuple__": items}
        if isinstance(value, (set, frozenset)):
            return {"__set__": items}
        if isinstance(value, deque):
            return {"__deque__": items, "maxlen": value.maxlen}
        return {"__dict__": [[self.encode(k), self.encode(v)] for k, v in value.items()]}

    def _object(self, value: Any) -> dict[str, Any]:
        if isinstance(value, np.ndarray):
            return self._array(value)
        if isinstance(value, np.generic):
            return {"__scalar__": self._array(np.asarray(value))}
        if isinstance(value, np.dtype):
            return {"__dtype__": value.str}
        if isinstance(value, np.random.Generator):
            bg = value.bit_generator
            return {"__rng__": type(bg).__name__, "state": self.encode(bg.state)}
        if isinstance(value, np.random.SeedSequence):
            return {"__seedseq__": self.encode({
                "entropy": value.entropy, "spawn_key": value.spawn_key,
                "pool_size": value.pool_size, "n_children_spawned": value.n_children_spawned,
            })}  # fmt: skip
        if type(value).__module__.startswith("cbeal.") or _is_params(value):
            # a class may choose what is stored (and refuse with a ModelFileError)
            state = getattr(value, "_modelfile_state", None)
            fields = state() if state is not None else _fields(value)
            attrs = {k: self.encode(v) for k, v in fields.items()}
            return {"__obj__": _qualname(type(value)), "attrs": attrs}
        return self._skops(value)

    def _array(self, arr: np.ndarray) -> dict[str, Any]:
        if arr.dtype.kind == "O":
            items = arr.ravel().tolist()
            if not all(isinstance(v, (*_SCALARS, float)) for v in items):
                raise ModelFileError(
                    "cannot save an object array holding values other than text and numbers"
                )
            return {"__objarray__": [self.encode(v) for v in items], "shape": list(arr.shape)}
        key = f"a{len(self.arrays)}"
        self.arrays[key] = arr
        return {"__array__": key}

    def _skops(self, value: Any) -> dict[str, Any]:
        import skops.io

        try:
            data = skops.io.dumps(value)
        except Exception as exc:
            raise ModelFileError(
                f"cannot save an object of type {_qualname(type(value))} in a model file: {exc}"
            ) from exc
        key = f"b{len(self.blobs)}"
        self.blobs[key] = data
        return {"__skops__": key}


def _is_params(value: Any) -> bool:
    from cbeal.core.params import Params

    return isinstance(value, Params)


class Decoder:
    """Rebuilds the objects an :class:`Encoder` wrote, from allow-listed classes only."""

    def __init__(
        self,
        arrays: dict[str, np.ndarray],
        blobs: dict[str, bytes],
        trusted: dict[str, type],
        skops_trusted: list,
        limits: Limits,
    ) -> None:
        self.arrays = arrays  # each is used once: taken out, not copied
        self.limits = limits
        self.blobs = blobs
        self.classes = {**cbeal_classes(), **trusted}
        self.skops_trusted = skops_trusted
        self._memo: dict[int, Any] = {}

    def decode(self, node: Any) -> Any:
        if isinstance(node, _SCALARS) or isinstance(node, float):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict):
            raise ModelFileError(f"unexpected value {node!r} in the model file")
        if "__ref__" in node:
            try:
                return self._memo[node["__ref__"]]
            except KeyError:
                msg = "the model file refers to an object it never defines"
                raise ModelFileError(msg) from None
        if "__float__" in node:
            return float(node["__float__"])
        for key, kind in (("__tuple__", tuple), ("__set__", set)):
            if key in node:
                return kind(self.decode(v) for v in node[key])
        if "__deque__" in node:
            return deque((self.decode(v) for v in node["__deque__"]), maxlen=node["maxlen"])
        if "__dict__" in node:
            return {self.decode(k): self.decode(v) for k, v in node["__dict__"]}
        return self._object(node)

    def _object(self, node: dict[str, Any]) -> Any:
        ref = node.get("id")
        if "__array__" in node or "__objarray__" in node:
            value: Any = self._array(node)
        elif "__scalar__" in node:
            value = self._array(node["__scalar__"])[()]
        elif "__dtype__" in node:
            value = np.dtype(str(node["__dtype__"]))
        elif "__rng__" in node:
            value = self._rng(node)
        elif "__seedseq__" in node:
            params = check_seedseq(self.decode(node["__seedseq__"]), self.limits)
            value = np.random.SeedSequence(**params)
        elif "__skops__" in node:
            value = self._skops(node["__skops__"])
        elif "__obj__" in node:
            return self._instance(node)
        else:
            raise ModelFileError(f"unknown entry {sorted(node)} in the model file")
        if ref is not None:
            self._memo[ref] = value
        return value

    def _array(self, node: dict[str, Any]) -> np.ndarray:
        if "__objarray__" in node:
            items = [self.decode(v) for v in node["__objarray__"]]
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out.reshape(node["shape"])
        try:
            return self.arrays.pop(node["__array__"])
        except KeyError:
            raise ModelFileError(f"array {node['__array__']!r} is missing from the file") from None

    def _rng(self, node: dict[str, Any]) -> np.random.Generator:
        name = node["__rng__"]
        if name not in _BIT_GENERATORS:
            raise ModelFileError(f"unknown random generator {name!r} in the model file")
        bg = getattr(np.random, name)()
        bg.state = self.decode(node["state"])
        return np.random.Generator(bg)

    def _skops(self, key: str) -> Any:
        import skops.io

        data = self.blobs.get(key)
        if data is None:
            raise ModelFileError(f"part {key!r} is missing from the model file")
        untrusted = [t for t in skops.io.get_untrusted_types(data=data)
                     if t not in self.skops_trusted]  # fmt: skip
        if untrusted:
            raise ModelFileError(
                f"the model file holds types that are not trusted: {', '.join(untrusted)}. "
                "Loading them could run code. If you trust the file's source, pass these "
                "classes as trusted=[...] to load()."
            )
        return skops.io.loads(data, trusted=[*self.skops_trusted])

    def _instance(self, node: dict[str, Any]) -> Any:
        name = node["__obj__"]
        cls = self.classes.get(name)
        if cls is None:
            raise ModelFileError(
                f"the model file holds an object of class {name}, which cbeal does not know "
                "as safe; if it is your own class and you trust the file, pass it as "
                "trusted=[...] to load()."
            )
        obj: Any = object.__new__(cls)
        self._memo[node["id"]] = obj  # before the attributes: they may refer back
        attrs = {key: self.decode(value) for key, value in node["attrs"].items()}
        rebuild = getattr(cls, "_modelfile_restore", None)  # the other half of _modelfile_state
        if rebuild is not None:
            rebuild(obj, attrs)
            return obj
        for key, value in attrs.items():
            object.__setattr__(obj, key, value)
        restore = getattr(cls, "__post_init__", None)  # dataclasses: read-only arrays
        if restore is not None:
            restore(obj)
        return obj


def resolve_trusted(trusted: Any) -> tuple[dict[str, type], list[str]]:
    """Classes the caller trusts: by type or qualified name, for cbeal's decoder and skops."""
    classes: dict[str, type] = {}
    names: list[str] = []
    for item in trusted:
        if isinstance(item, type):
            name = _qualname(item)
            classes[name] = item
        elif isinstance(item, str):
            name = item
            module, _, attr = item.rpartition(".")
            try:
                found = getattr(importlib.import_module(module), attr)
            except (ImportError, AttributeError, ValueError):
                found = None
            if isinstance(found, type):
                classes[name] = found
        else:
            raise ModelFileError(f"trusted must list classes or their names, got {item!r}")
        names.append(name)
    return classes, names
