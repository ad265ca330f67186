"""Each compiled kernel against its readable reference in the core, one step at a time.

The core's numpy functions are the specification; :mod:`cbeal.kernels` holds their twins
compiled with numba. Here both take the same seeded inputs — ties, an empty and a full
window, a label not yet due, due at once, past the horizon — and must give the same
values bit for bit (the long seeded streams of tests/test_decision_equality.py check the
whole decisions).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cbeal.core import pacer as reference

pytest.importorskip("numba")

from cbeal.kernels import pacer as compiled


def _cases(seed: int, n: int) -> list[tuple]:
    """`n` seeded pacer steps: window, fused scores, scores, weights, and the counters."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n):
        members = int(rng.integers(1, compiled.MAX_MEMBERS + 1))
        cap = int(rng.integers(2, 40))
        size = int(rng.integers(1, cap + 1))
        slot = int(rng.integers(0, size))
        ties = rng.random() < 0.5  # a few distinct scores: ties in the window's order
        values = [0.0, 0.25, 1.0] if ties else None

        def draw(shape: tuple[int, ...], values: list[float] | None = values) -> np.ndarray:
            return rng.choice(values, size=shape) if values else rng.random(shape)

        window = draw((cap, members))
        weights = rng.dirichlet(np.ones(members))
        fused = window @ weights
        seen = int(rng.integers(1, 3000))
        b = float(rng.choice([0.01, 0.05, 0.25, 1.0]))
        acquired = max(0, int(b * seen) + int(rng.integers(-3, 3)))  # behind, due, ahead
        head = float(rng.choice([0.0, 1.0, 2.5]))
        over = float(rng.choice([0.0, 1.0, 4.0]))
        tol = float(rng.choice([0.5, 1.0, 3.0]))
        horizon = float(rng.choice([math.nan, seen - 5, seen, seen + 3, seen + 1e4]))
        counters = (slot, size, seen, acquired, b, head, over, tol, horizon)
        cases.append((window, fused, draw((members,)), weights, counters))
    return cases


def test_the_compiled_pacer_step_is_its_reference() -> None:
    if not compiled.dot_matches_numpy():
        pytest.skip("OpenBLAS sums in another order here: the core fuses the scores")
    due = 0
    for window, fused, scores, weights, counters in _cases(29, 3000):
        w_ref, f_ref = window.copy(), fused.copy()
        w_nb, f_nb = window.copy(), fused.copy()
        want = reference.step(w_ref, f_ref, scores, weights, *counters)
        got = compiled.step(w_nb, f_nb, scores, weights, *counters)
        assert [repr(v) for v in got] == [repr(v) for v in want], counters
        assert w_nb.tobytes() == w_ref.tobytes() and f_nb.tobytes() == f_ref.tobytes()
        due += want[1] >= 0.0
    assert 300 < due < 2700  # both branches taken often


def test_the_compiled_quantile_is_the_core_s() -> None:
    rng = np.random.default_rng(5)
    for _ in range(2000):
        n = int(rng.integers(1, 60))
        values = rng.choice([0.0, 0.5, 1.0], size=n) if rng.random() < 0.5 else rng.random(n)
        at = float(rng.choice([0.0, 1.0, rng.random()]))
        assert repr(compiled._quantile(values, at)) == repr(reference._quantile(values, at))
