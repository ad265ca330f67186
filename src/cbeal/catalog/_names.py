"""Looking a typed name up in a table: case and '_'/'-' do not matter, and an unknown name
gets a suggestion and the list to choose from."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import TypeVar

from cbeal.core.exceptions import ParameterError

__all__ = ["UnknownNameError", "key", "lookup"]

T = TypeVar("T")


class UnknownNameError(ParameterError):
    """A name that is not in the catalog; the message suggests the closest and lists all."""


def key(name: str) -> str:
    """The form names are compared in: upper case, '_' read as '-', no spaces around."""
    return name.strip().upper().replace("_", "-")


def lookup(
    table: Mapping[str, T], name: str, what: str, aliases: Mapping[str, str] | None = None
) -> T:
    """``table[name]`` by :func:`key`, or :class:`UnknownNameError`.

    >>> lookup({"CBEAL-6": 6}, "cbeal_6", "preset")
    6
    >>> lookup({"CBEAL-6": 6}, "CBEAL6", "preset")
    Traceback (most recent call last):
    ...
    cbeal.catalog._names.UnknownNameError: unknown preset 'CBEAL6'; did you mean 'CBEAL-6'? choose one of: CBEAL-6
    """  # noqa: E501
    if not isinstance(name, str):
        raise UnknownNameError(f"a {what} is given by its name (text), got {name!r}")
    by_key = {key(n): n for n in table}
    by_key.update({key(a): n for a, n in (aliases or {}).items()})
    found = by_key.get(key(name))
    if found is not None:
        return table[found]
    close = difflib.get_close_matches(key(name), list(by_key), n=1, cutoff=0.6)
    hint = f"did you mean {by_key[close[0]]!r}? " if close else ""
    raise UnknownNameError(f"unknown {what} {name!r}; {hint}choose one of: {', '.join(table)}")
