"""Locate, verify and read the data files shipped in ``cbeal/datasets/data``.

Only the standard library is used. Files are found through :mod:`importlib.resources`, so
they can also be read from a zipped installation. Gzipped files are decompressed in
memory. The SHA-256 of the *uncompressed* content is compared with :data:`EXPECTED_SHA256`.
Each dataset module caches its parsed arrays with :func:`cached`, so this check runs once
per process for each file.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.resources
import sys
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from cbeal.core.exceptions import CbealError

if TYPE_CHECKING:  # pragma: no cover
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

__all__ = [
    "EXPECTED_SHA256",
    "DataIntegrityError",
    "cached",
    "clear_cache",
    "read_text",
]

#: SHA-256 of the uncompressed content of every shipped file. These are the same values as in
#: ``data/PROVENANCE.md`` and as the hashes of the raw files in the shared data folder.
EXPECTED_SHA256: dict[str, str] = {
    "secom.data.gz": "20f0e7ee434f7dcbae0eea9ffff009a2b57f42d6b0dc9a5bd4f00782c0a3374c",
    "secom_labels.data.gz": "126884cf453705c9e61a903fe906f0665a3b45ce3639e621edc5c93c89627e03",
    "ai4i2020.csv.gz": "dc6630cd9b1f0f853922fad78a1b6436570d3f1ec863f1dd5c4340ac56bc8a8e",
    "Faults.NNA.gz": "08994f5b0185a8e6cc22afe9910fd36834990fb1ca30852ed79012a832fbff55",
    "Faults27x7_var": "887dbfa140b48877b706865ef277550dc0203699243c600e24bfe8b090a9a953",
}

_REINSTALL = (
    "Reinstall cbeal (pip install --force-reinstall --no-deps -e . in the cbeal folder) to "
    "restore it."
)


class DataIntegrityError(CbealError, OSError):
    """A bundled data file is missing, unreadable, or its content has the wrong SHA-256.

    Examples
    --------
    >>> from cbeal.datasets import DataIntegrityError
    >>> issubclass(DataIntegrityError, OSError)
    True
    """


def _data_dir() -> Traversable:
    """The folder that holds the shipped files (a :class:`~importlib.abc.Traversable`)."""
    return importlib.resources.files("cbeal.datasets") / "data"


def read_bytes(name: str) -> bytes:
    """Return the verified, uncompressed content of the shipped file ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`EXPECTED_SHA256`, for example ``"secom.data.gz"``.

    Returns
    -------
    bytes
        The file content, gunzipped if ``name`` ends with ``.gz``.

    Raises
    ------
    DataIntegrityError
        If the file is missing, is not valid gzip, or its content does not have the SHA-256
        recorded in :data:`EXPECTED_SHA256`.

    Examples
    --------
    >>> len(read_bytes("Faults27x7_var"))
    497
    """
    expected = EXPECTED_SHA256[name]
    resource = _data_dir() / name
    try:
        raw = resource.read_bytes()
        data = gzip.decompress(raw) if name.endswith(".gz") else raw
    except FileNotFoundError as exc:
        raise DataIntegrityError(
            f"cbeal bundled data file {name!r} is missing ({resource}). The installation "
            f"is incomplete. {_REINSTALL}"
        ) from exc
    except (OSError, EOFError, zlib.error) as exc:
        raise DataIntegrityError(
            f"cbeal bundled data file {name!r} is corrupted and cannot be read ({resource}: "
            f"{exc}). {_REINSTALL}"
        ) from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise DataIntegrityError(
            f"cbeal bundled data file {name!r} is corrupted: the SHA-256 of its content is "
            f"{actual}, expected {expected} ({resource}). {_REINSTALL}"
        )
    return data


def read_text(name: str, encoding: str = "ascii") -> str:
    """Return the verified content of ``name`` decoded with ``encoding``.

    Examples
    --------
    >>> read_text("Faults27x7_var").splitlines()[:2]
    ['X_Minimum', 'X_Maximum']
    """
    try:
        return read_bytes(name).decode(encoding)
    except UnicodeDecodeError as exc:  # pragma: no cover - the hash check comes first
        raise DataIntegrityError(f"cbeal bundled data file {name!r}: {exc}") from exc


# ------------------------------------------------------------------ caching
_F = TypeVar("_F", bound=Callable[..., Any])
_CACHES: list[Any] = []


def cached(func: _F) -> _F:
    """Cache ``func`` for the rest of the process, like ``functools.lru_cache(maxsize=None)``.

    The cached functions return read-only arrays, and the public loaders hand out copies.
    :func:`clear_cache` empties every cache registered here.
    """
    wrapper = functools.lru_cache(maxsize=None)(func)
    _CACHES.append(wrapper)
    return wrapper  # type: ignore[return-value]


def clear_cache() -> None:
    """Forget every parsed dataset so that the next load reads and verifies the files again.

    Examples
    --------
    >>> from cbeal.datasets import clear_cache
    >>> clear_cache()
    """
    for wrapper in _CACHES:
        wrapper.cache_clear()


def frozen(*arrays: np.ndarray) -> None:
    """Make ``arrays`` read-only in place, so that a cached array cannot be changed by mistake."""
    for a in arrays:
        a.flags.writeable = False
