"""What every figure cbeal draws shares: the colours and the stream axis.

Colours mean the same thing in every figure: the failure (positive) class is always
:data:`FAILURE` (red) and passes :data:`PASS` (blue); red is used for nothing else, so
series (agents, methods) take their colours from :data:`SERIES`, which has no red.
Stream plots take an optional ``time`` array (one value per stream sample, numbers or
``datetime64``) to draw against time instead of the position in the stream.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["FAILURE", "PASS", "SERIES", "STREAM_AXIS", "distinct_colours"]

FAILURE = "#d62728"  # the failure class, everywhere
PASS = "#1f77b4"  # the passing class
# tab10 without its red (and without pink, too close to it), black last
SERIES = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#000000",
)
STREAM_AXIS = "stream position (sample number)"


def _axes(ax: Any) -> Any:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7, 3))
    return ax


def _x(n: int, time: Any) -> np.ndarray:
    """The x value of each of `n` stream samples: their times, or positions 0 … n−1."""
    if time is None:
        return np.arange(n)
    x = np.asarray(time)
    if x.shape[0] != n:
        raise ValueError(f"time has {x.shape[0]} values for {n} stream samples")
    return x


def _stream_axis(ax: Any, x: np.ndarray, time: Any, label: str | None) -> None:
    if x.size:
        ax.set_xlim(x[0], x[-1])
    ax.set_xlabel(label or ("time" if time is not None else STREAM_AXIS))


def _class_colors(classes: list[Any], positive: Any) -> dict[Any, str]:
    """Failure red, the other class blue (more classes: series colours)."""
    others = [c for c in classes if c != positive]
    colors = {
        c: (PASS if len(others) == 1 else SERIES[i % len(SERIES)]) for i, c in enumerate(others)
    }
    if positive in classes:
        colors[positive] = FAILURE
    return colors


def _percent() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(xmax=1.0, decimals=0)


def distinct_colours(n: int) -> list[Any]:
    """`n` colours no two alike: matplotlib's ten, then twenty, then evenly spaced hues.

    >>> len(set(map(tuple, distinct_colours(14))))
    14
    """
    from matplotlib import colormaps

    if n <= 10:
        return [colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [colormaps["tab20"](i) for i in range(n)]
    return [colormaps["hsv"](i / n) for i in range(n)]
