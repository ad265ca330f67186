"""Simulated stream runs: the oracle loop that streams labels to a model
(:func:`simulate`, :mod:`.loop`) and what a run recorded, step by step (:class:`Trace`,
:mod:`.trace`).

The loop loads on first use: a :class:`Trace` (numpy only) can be read, summarized and
plotted without loading the stream models and scikit-learn, which the loop needs.

>>> from cbeal.simulation import Trace, simulate
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cbeal.simulation.trace import Trace

__all__ = ["Trace", "simulate"]


def __getattr__(name: str) -> Any:
    if name != "simulate":
        raise AttributeError(f"module 'cbeal.simulation' has no attribute {name!r}")
    from cbeal.simulation.loop import simulate

    return simulate


if TYPE_CHECKING:  # pragma: no cover
    from cbeal.simulation.loop import simulate
