"""Compiled decision kernels (numba), behind the ``fast`` extra: ``pip install "cbeal[fast]"``.

The decision core is numpy only; this package registers compiled versions of its hottest
arithmetic (the window agents' distances, scores and window updates, one call per sample
or per ``query_many`` batch; Exp4.P's weights and control chart; the quantile pacer's step)
in the core's table :data:`cbeal.core.window.KERNELS`, which the core consults at every
call. The advice is the same bit for bit — the numpy code is the reference, and the tests
compare each twin with it step by step and both over long seeded streams — so a model
decides the same with or without numba; only faster. A window agent declares which
kernel scores it (:meth:`cbeal.core.window_agent.WindowAgent.kernel_spec`). Two kernels
sum in the order of a library numpy calls (einsum's distances, OpenBLAS's dot product);
they are registered only where a check at registration finds that order on this machine
(:mod:`cbeal.kernels.distances`, :mod:`cbeal.kernels.pacer`), and numpy computes those
sums elsewhere.

A stream model calls :func:`enable` once it has decided :data:`AFTER` samples (or is
loaded past them): importing numba and loading the compiled code costs about 0.6 s of CPU
once per process, which only a long stream pays back. Without numba, or with the
environment variable ``CBEAL_KERNELS=numpy``, nothing is registered and numpy runs;
:func:`use` switches at once.

Examples
--------
>>> from cbeal import kernels
>>> kernels.use("numpy")
'numpy'
>>> kernels.active()
'numpy'
"""

from __future__ import annotations

import os
import threading

from cbeal.core.exceptions import ParameterError
from cbeal.core.window import KERNELS

__all__ = ["AFTER", "ENV", "active", "available", "enable", "use"]

#: Decisions a stream model makes with numpy before it enables the compiled kernels.
AFTER = 1000

#: The environment variable that chooses the kernels: ``numba`` (the default when numba is
#: installed) or ``numpy``.
ENV = "CBEAL_KERNELS"

_LOCK = threading.Lock()
_DONE = [False]  # enable() ran
_MATCHES: list[bool] = []  # the compiled distances, dot product are numpy's here (checked once)


def available() -> bool:
    """Whether numba can be imported (the ``fast`` extra is installed)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def use(name: str) -> str:
    """Switch every model of this process to the ``"numba"`` or the ``"numpy"`` kernels at
    once; returns the name of the kernels now active (``"numpy"`` if numba is missing)."""
    if name not in ("numba", "numpy"):
        raise ParameterError(f"kernels are 'numba' or 'numpy', got {name!r}")
    with _LOCK:
        _DONE[0] = True
        KERNELS.clear()
        if name == "numba" and available():
            from cbeal.kernels import bandit, distances, pacer, window

            if not _MATCHES:  # once per process: are numpy's orders of summation ours?
                _MATCHES.extend((distances.matches_numpy(), pacer.dot_matches_numpy()))
            if _MATCHES[0]:
                KERNELS["euclidean"] = distances.euclidean_into
            if _MATCHES[1]:
                KERNELS["pace"] = pacer.step
            KERNELS["agent"] = window.advise_agent
            KERNELS["group"] = window.advise_group
            KERNELS["group_many"] = window.advise_group_many
            KERNELS["distribution"] = bandit.distribution
            KERNELS["weights"] = bandit.weights
            KERNELS["mix"] = bandit.mix
            KERNELS["update_decision"] = bandit.update_decision
            KERNELS["update_reward"] = bandit.update_reward
            KERNELS["chart_step"] = bandit.chart_step
    return active()


def active() -> str:
    """``"numba"`` when the compiled kernels are registered, else ``"numpy"``."""
    return "numba" if KERNELS else "numpy"


def enable() -> str:
    """Register the compiled kernels once per process, unless ``CBEAL_KERNELS=numpy``
    (or numba is missing); returns the name of the kernels active. Cheap after the first
    call, which imports numba (about 0.3 s) and loads the cached compiled code."""
    if _DONE[0]:
        return active()
    choice = os.environ.get(ENV, "").strip().lower() or "numba"
    if choice not in ("numba", "numpy"):
        raise ParameterError(
            f"the environment variable {ENV} must be 'numba' or 'numpy', got {choice!r}"
        )
    return use(choice)
