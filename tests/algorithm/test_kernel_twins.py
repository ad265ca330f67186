"""Each compiled kernel against its readable reference in the core, one step at a time.

The core's numpy functions are the specification; :mod:`cbeal.kernels` holds their twins
compiled with numba. Here both take the same seeded inputs — ties, an empty and a full
window, a label not yet due, due at once, past the horizon — and must give the same
values bit for bit (the long seeded streams of tests/algorithm/test_decision_equality.py check the
whole decisions).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cbeal import kernels
from cbeal.core import Exp4P
from cbeal.core import pacer as reference
from cbeal.core.ewma import EWMAChart

pytest.importorskip("numba")

# after the skip: they need numba
from cbeal.kernels import bandit
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


@pytest.fixture
def numpy_core():
    """The core's reference arithmetic: no compiled kernel registered meanwhile."""
    before = kernels.active()
    kernels.use("numpy")
    yield
    kernels.use(before)


def _bandit_cases(seed: int, n: int) -> list[tuple[list[float], np.ndarray, float, float]]:
    """`n` seeded Exp4.P steps: weights (from tiny to huge), advice (ties, 0 and 1), a
    propensity and a reward (0 included, and one large enough to need the rescaling)."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n):
        k = int(rng.integers(2, 9))
        alpha = (rng.random(k) * 10.0 ** rng.choice([-99, -3, 0, 3, 99], size=k)).tolist()
        advice = rng.choice([0.0, 1.0, 0.5, 1e-9, rng.random()], size=k)
        p = float(rng.choice([0.5, 1e-12, 1.0 - 1e-12, 0.3, rng.random() * 0.9 + 0.05]))
        reward = float(rng.choice([0.0, 1.0, -0.5, 1e6, rng.normal()]))
        cases.append((alpha, advice, p, reward))
    return cases


@pytest.mark.parametrize("eta", [None, 50.0])
def test_the_compiled_bandit_steps_are_exp4p_s(numpy_core, eta) -> None:
    for alpha, advice, p, reward in _bandit_cases(7, 800):
        solver = Exp4P(eta=eta, horizon=500, ewma=False).start(len(alpha))
        solver._alpha = list(alpha)
        assert bandit.distribution(np.array(alpha), advice, solver.p_min_) == (
            solver.distribution(advice)
        )
        out = np.empty(len(alpha))
        mixed = bandit.mix(np.array(alpha), advice, solver.p_min_, 0.1, out)
        want_p, want_w = solver.mix(advice, 0.1)
        assert mixed == want_p and out.tobytes() == want_w.tobytes()
        assert bandit.weights(np.array(alpha)).tobytes() == solver.weights().tobytes()
        twin = np.array(alpha)
        bandit.update_decision(twin, advice, p, solver.step_ * solver.bonus_)
        solver.update_decision(advice, p)
        assert twin.tobytes() == solver.alpha_.tobytes()
        if reward != 0.0:  # the core skips a reward of 0; the kernel is never called then
            bandit.update_reward(twin, advice, solver.step_, reward, p)
            solver.update_reward(advice, p, reward)
            assert twin.tobytes() == solver.alpha_.tobytes()


@pytest.mark.parametrize(
    "options",
    [
        {"limits": "paper", "flip_scope": "agent", "reset_after_flip": True, "gamma": None},
        {"limits": "shewhart", "flip_scope": "all", "reset_after_flip": False, "gamma": 0.01},
    ],
)
def test_the_compiled_chart_step_is_the_chart_s(numpy_core, options) -> None:
    rng = np.random.default_rng(3)
    k = 4
    ref = EWMAChart(k, lam=0.3, h=0.5, horizon=300, **options)
    twin = EWMAChart(k, lam=0.3, h=0.5, horizon=300, **options)
    alpha_ref: list[float] = [1.0] * k
    alpha_nb = np.ones(k)
    flips = 0
    for _ in range(300):
        grow = np.exp(rng.normal(size=k) * rng.choice([0.01, 0.5, 3.0]))
        alpha_ref = [a * g for a, g in zip(alpha_ref, grow.tolist(), strict=True)]
        alpha_nb *= grow
        assert alpha_nb.tobytes() == np.array(alpha_ref).tobytes()
        want, alpha_ref = ref.step(alpha_ref)
        got, alpha_nb = twin._compiled(bandit.chart_step, alpha_nb)
        for field in ("weights_exp4p", "weights_after", "flipped"):
            assert getattr(got, field).tobytes() == getattr(want, field).tobytes(), field
        assert alpha_nb.tobytes() == np.array(alpha_ref).tobytes()
        assert (twin.t, repr(twin.h)) == (ref.t, repr(ref.h))
        assert np.array(twin.z).tobytes() == np.array(ref.z).tobytes()
        flips += bool(want.flipped.any())
    assert flips > 3  # the flipping branch ran
