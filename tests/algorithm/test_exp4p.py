"""Hand-computed Exp4.P steps and EWMA chart limits and flips (spec §4)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cbeal.core import EWMAChart, Exp4P


def test_p_min_default_and_distribution() -> None:
    s = Exp4P().start(6)
    assert s.p_min_ == pytest.approx(math.sqrt(math.log(6) / (2 * 2000)))
    advice = np.array([1.0, 0.0, 1.0, 0.0, 0.5, 0.0])
    # equal weights: mix = 2.5 / 6
    expected = (1 - 2 * s.p_min_) * 2.5 / 6 + s.p_min_
    assert s.distribution(advice) == pytest.approx(expected)


def test_exp4p_step_by_hand() -> None:
    s = Exp4P().start(2)
    pm = math.sqrt(math.log(2) / 4000)
    bonus = math.sqrt(math.log(2) / 4000)  # c = ln N, K = 2, T = 2000
    s.alpha_ = np.array([1.0, 3.0])
    advice = np.array([0.8, 0.2])
    mix = (1.0 * 0.8 + 3.0 * 0.2) / 4.0  # 0.35
    P1 = (1 - 2 * pm) * mix + pm
    assert s.distribution(advice) == pytest.approx(P1)
    s.update_decision(advice, P1)
    s.update_reward(advice, P1, reward=-0.5)  # acquired, learner was right: penalty
    q1 = -0.5 / P1
    g = advice * q1  # ĝ_i = ξ_i · q̂ (q̂ of the skip arm is 0)
    v = advice / P1 + (1 - advice) / (1 - P1)
    expected = np.array([1.0, 3.0]) * np.exp(pm / 2 * (g + v * bonus))
    np.testing.assert_allclose(s.alpha_, expected, rtol=1e-14)


def test_skip_arm_only_variance_term() -> None:
    s = Exp4P().start(3)
    advice = np.array([1.0, 0.0, 0.3])
    P1 = s.distribution(advice)
    s.update_decision(advice, P1)  # skip drawn: reward 0, no ĝ factor
    s.update_reward(advice, P1, reward=0.0)
    v = advice / P1 + (1 - advice) / (1 - P1)
    np.testing.assert_allclose(s.alpha_, np.exp(s.p_min_ / 2 * v * s.bonus_), rtol=1e-14)


def test_beygelzimer_confidence() -> None:
    s = Exp4P(confidence="beygelzimer", delta=0.1).start(4)
    assert s.bonus_ == pytest.approx(math.sqrt(math.log(4 / 0.1) / 4000))


def test_weights_stay_finite_under_extreme_rewards() -> None:
    s = Exp4P(ewma=False).start(2)
    advice = np.array([1.0, 0.0])
    for _ in range(5000):
        P1 = s.distribution(advice)
        s.update_decision(advice, P1)
        s.update_reward(advice, P1, reward=50.0)
    assert np.isfinite(s.alpha_).all() and (s.alpha_ > 0).all()
    assert 1e-100 <= s.alpha_.sum() <= 1e100 * 2


def test_single_agent_rejected() -> None:
    with pytest.raises(ValueError, match="at least 2 agents"):
        Exp4P().start(1)


def chart(**kw: object) -> EWMAChart:
    params: dict = dict(
        lam=0.3,
        h=5.0,
        horizon=2000,
        gamma=None,
        limits="paper",
        flip_scope="agent",
        reset_after_flip=True,
    )
    params.update(kw)
    return EWMAChart(2, **params)


def test_ewma_paper_limits_and_flip_by_hand() -> None:
    c = chart()
    step, _ = c.step([1.0, 1.0])  # t=1: no variance yet, no flip
    assert not step.flipped.any()
    assert c.h == pytest.approx(5.0 * math.exp(1 / 2000))
    step, alpha = c.step([3.0, 1.0])  # t=2: ws = [.75, .25]
    var = ((0.5 - 0.625) ** 2 + (0.75 - 0.625) ** 2) / 1  # Welford sample variance
    half = 5.0 * math.exp(1 / 2000) * 0.3 / 1.7 * var  # paper: h λ/(2−λ) s²
    # after the step h has grown once more; the limits of the step itself used `half`
    np.testing.assert_allclose(c.limit_halfwidth(), [half * math.exp(2 / 2000)] * 2)
    z = 0.3 * 0.75 + 0.7 * 0.5  # 0.575, |z − μ| = 0.075 > half ≈ 0.0276
    assert abs(z - 0.5) > half
    np.testing.assert_array_equal(step.flipped, [True, True])
    np.testing.assert_allclose(step.weights_exp4p, [0.75, 0.25])
    np.testing.assert_allclose(step.weights_after, [0.25, 0.75])  # 2μ − α^s, renormalised
    np.testing.assert_allclose(alpha, [1.0, 3.0])  # scale Σα = 4 restored
    np.testing.assert_allclose(c.z, [0.5, 0.5])  # reset_after_flip
    assert c.h == pytest.approx(5.0 * math.exp(1 / 2000 + 2 / 2000))


def test_ewma_shewhart_limits_wider() -> None:
    c = chart(limits="shewhart")
    c.step([1.0, 1.0])
    step, _ = c.step([3.0, 1.0])
    var = 0.03125
    half = 5.0 * math.exp(1 / 2000) * math.sqrt(var) * math.sqrt(0.3 / 1.7)  # ≈ 0.371
    np.testing.assert_allclose(c.limit_halfwidth(), [half * math.exp(2 / 2000)] * 2)
    assert not step.flipped.any()  # 0.075 < 0.371


def test_ewma_no_reset_keeps_z() -> None:
    c = chart(reset_after_flip=False)
    c.step([1.0, 1.0])
    c.step([3.0, 1.0])
    np.testing.assert_allclose(c.z, [0.575, 0.425])


def test_flip_floor_and_scope_all() -> None:
    c3 = EWMAChart(
        3,
        lam=1.0,
        h=1e-9,
        horizon=2000,
        gamma=0.0,
        limits="paper",
        flip_scope="all",
        reset_after_flip=True,
    )
    c3.step([1.0, 1.0, 1.0])
    step, _ = c3.step([97.0, 2.0, 1.0])  # α^s = .97, .02, .01; μ = 1/3
    assert step.flipped.all()
    # agent 1: 2μ − .97 < 0 -> floored at 1e-6 μ; then all renormalised
    raw = np.array([1e-6 / 3, 2 / 3 - 0.02, 2 / 3 - 0.01])
    np.testing.assert_allclose(step.weights_after, raw / raw.sum())


def test_h_growth_stops_flips() -> None:
    c = chart()
    rng = np.random.default_rng(0)
    flips = []
    for _ in range(600):
        flips.append(c.step(rng.uniform(0.5, 1.5, size=2).tolist())[0].flipped.any())
    assert any(flips[:100]) and not any(flips[300:])


def test_plain_exp4p_never_flips() -> None:
    s = Exp4P(ewma=False).start(2)
    s.alpha_ = np.array([100.0, 1.0])
    step = s.chart_step()
    assert not step.flipped.any()
    np.testing.assert_allclose(step.weights_after, [100 / 101, 1 / 101])
