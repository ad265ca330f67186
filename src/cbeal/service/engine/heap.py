"""Giving the C heap's free memory back to the system.

glibc's allocator keeps memory that Python, numpy and SQLite freed in its arenas for reuse
and hands it back only from the top of each heap; under a service's mix of short-lived
request buffers and long-lived model state the held-free memory grows in holes (measured:
about 60 MB after ten minutes of ingest, ``benchmarks/results/soak.md``). ``malloc_trim(0)``
returns every free whole page of every arena (``madvise(MADV_DONTNEED)``), in a few
milliseconds; the background loop calls it every ``trim_seconds``. Elsewhere than glibc it
does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from typing import Any

__all__ = ["trim"]

_trim: Any = None
if sys.platform.startswith("linux"):
    try:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        _trim = _libc.malloc_trim
        _trim.argtypes = [ctypes.c_size_t]
        _trim.restype = ctypes.c_int
    except (OSError, AttributeError):  # musl and others: no malloc_trim
        _trim = None


def trim() -> bool:
    """Return the C heap's free pages to the system; True when glibc released any.

    >>> isinstance(trim(), bool)
    True
    """
    return bool(_trim(0)) if _trim is not None else False
