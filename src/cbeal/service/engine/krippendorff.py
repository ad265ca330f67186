"""Krippendorff's α: how much several experts agree beyond chance, with missing answers.

α = 1 − D_o / D_e, where D_o is the mean difference between two answers to one part
(observed) and D_e the mean difference between any two answers to any parts (expected by
chance); each part contributes its ordered pairs weighted by 1 / (m − 1), m its number of
answers, and only parts with two or more answers count (Krippendorff 2011, "Computing
Krippendorff's Alpha-Reliability"). The difference is 0/1 for ``nominal`` values (classes)
and the squared difference for ``interval`` values (measured values).

A hand-computed example: two experts, four parts, one disagreement (nominal). The values are
``a a`` ``a a`` ``b b`` ``a b``: n = 8 answers, five ``a`` and three ``b``. Observed: the
fourth part's two ordered pairs differ, weighted 1/(2−1), so D_o = 2/8. Expected: ordered
pairs of different values over all answers, 2·5·3 = 30 of 8·7, so D_e = 30/56. Then
α = 1 − (2/8)/(30/56) = 1 − 14/30 = 0.5333…

>>> round(alpha([["a", "a"], ["a", "a"], ["b", "b"], ["a", "b"]]), 4)
0.5333
>>> alpha([[1.0, 1.2], [3.0, 3.1]], "interval") > 0.9, alpha([["a"], ["b"]]) is None
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

__all__ = ["Level", "alpha"]

Level = Literal["nominal", "interval"]


def alpha(units: Sequence[Sequence[Any]], level: Level = "nominal") -> float | None:
    """Krippendorff's α of `units` (each part's answers, any number; missing ones left out).

    None when fewer than two parts have two answers or more (nothing to compare), or when
    every answer is the same value (no variation: α is undefined).
    """
    pairable = [list(u) for u in units if len(u) >= 2]
    if len(pairable) < 2:
        return None
    if level == "nominal":
        codes: dict[str, int] = {}
        coded = [[codes.setdefault(repr(v), len(codes)) for v in u] for u in pairable]
        return _nominal(coded, len(codes))
    if level == "interval":
        return _interval([np.asarray(u, dtype=float) for u in pairable])
    raise ValueError(f"level must be 'nominal' or 'interval', got {level!r}")


def _nominal(units: list[list[int]], k: int) -> float | None:
    # the coincidence matrix: o[c, d] = Σ_u (pairs of values c, d in u) / (m_u − 1)
    o = np.zeros((k, k))
    for u in units:
        counts = np.bincount(u, minlength=k).astype(float)
        o += (np.outer(counts, counts) - np.diag(counts)) / (len(u) - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    disagree_observed = o.sum() - np.trace(o)
    disagree_expected = (n * n - (n_c * n_c).sum()) / (n - 1)
    if disagree_expected == 0:
        return None
    return float(1.0 - disagree_observed / disagree_expected)


def _interval(units: list[np.ndarray]) -> float | None:
    observed = 0.0
    for u in units:
        diff = u[:, None] - u[None, :]
        observed += float((diff * diff).sum()) / (len(u) - 1)
    values = np.concatenate(units)
    n = len(values)
    # Σ over ordered pairs of all values of (v_i − v_j)² = 2 n Σ (v − mean)²
    expected = 2.0 * n * float(((values - values.mean()) ** 2).sum()) / (n - 1)
    if expected == 0:
        return None
    return float(1.0 - observed / expected)
