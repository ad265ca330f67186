"""Hand-computed cases for the agents and brute-force checks of their window maintenance."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbeal.core import Context, LowDensityAgent, ReinforcedAgent, SpaceFillingAgent

PROBA = np.array([0.5, 0.5])
SQUARE = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])


def ctx(x: list[float], proba: np.ndarray = PROBA) -> Context:
    return Context(np.asarray(x, dtype=float), proba)


# ---------------------------------------------------------------- LD: lsf by hand
@pytest.mark.parametrize(
    ("x", "lsf"),
    [
        # every member's MaxDist in the unit square is sqrt(2)
        ([0.5, 0.5], 0),  # all distances 0.707
        ([1.5, 0.0], 2),  # 1.5 > √2 (to 0,0) and √3.25 > √2 (to 0,1); 0.5 and √1.25 are not
        ([3.0, 0.0], 4),  # 3, 2, √10, √5 all exceed √2
    ],
)
def test_ld_lsf_hand_computed(x: list[float], lsf: int) -> None:
    agent = LowDensityAgent(window_size=4, sparsity_fraction=2.0).fit(SQUARE)
    d = agent.window_.distances(np.asarray(x))
    assert agent.lsf(d) == lsf
    # p = min(1, lsf / (L δ)) = lsf / 8
    assert agent.advise_one(ctx(x)) == pytest.approx(lsf / 8)


def test_ld_probability_capped_at_one() -> None:
    agent = LowDensityAgent(window_size=4, sparsity_fraction=0.25).fit(SQUARE)
    assert agent.advise_one(ctx([9.0, 9.0])) == 1.0  # lsf 4 / (4 * 0.25) = 4 -> 1


def test_ld_window_slides_and_recomputes_after_eviction() -> None:
    # window L=3 over a line: 0, 10, 11 -> MaxDist = 11, 10, 11
    agent = LowDensityAgent(window_size=3, sparsity_fraction=1.0).fit(
        np.array([[0.0], [10.0], [11.0]])
    )
    agent.advise_one(ctx([12.0]))  # evicts 0: window 10, 11, 12 -> MaxDist 2, 1, 2
    order = agent.window_.chronological()
    np.testing.assert_array_equal(agent.window_.points[order, 0], [10.0, 11.0, 12.0])
    np.testing.assert_array_equal(agent.stat_[order], [2.0, 1.0, 2.0])
    # the paper's literal listing keeps the stale maxima instead
    lit = LowDensityAgent(window_size=3, sparsity_fraction=1.0, exact_window=False)
    lit.fit(np.array([[0.0], [10.0], [11.0]])).advise_one(ctx([12.0]))
    np.testing.assert_array_equal(lit.stat_[lit.window_.chronological()], [10.0, 11.0, 2.0])


# ---------------------------------------------------------------- SPF by hand
def test_spf_hand_computed() -> None:
    agent = SpaceFillingAgent(window_size=3).fit(np.array([[0.0], [1.0], [3.0]]))
    # nearest-neighbour distances 1, 1, 2 -> denominator 2; MinDist(1.5) = 0.5
    assert agent.advise_one(ctx([1.5])) == pytest.approx(0.25)
    # window now 1, 3, 1.5 -> nn 0.5, 1.5, 0.5 -> denominator 1.5; MinDist(2.25) = 0.75
    assert agent.advise_one(ctx([2.25])) == pytest.approx(0.5)


def test_spf_zero_denominator() -> None:
    dup = np.array([[1.0, 1.0], [1.0, 1.0]])
    assert SpaceFillingAgent(window_size=2).fit(dup).advise_one(ctx([1.0, 1.0])) == 0.0
    assert SpaceFillingAgent(window_size=2).fit(dup).advise_one(ctx([2.0, 1.0])) == 1.0


# ---------------------------------------------------------------- RAL by hand
def test_ral_threshold_update_both_signs() -> None:
    agent = ReinforcedAgent(theta0=0.9, eta=0.1).fit(np.zeros((1, 1)))
    agent.reward_one(1.0, reward=1.0, penalty=-0.5)  # useful: × (1 + 0.75 η)
    assert agent.theta_ == pytest.approx(0.9 * 1.075)
    agent.reward_one(1.0, reward=-0.5, penalty=-0.5)  # useless: × (1 − η)
    assert agent.theta_ == pytest.approx(0.9 * 1.075 * 0.9)


def test_ral_threshold_capped_and_only_when_voted() -> None:
    agent = ReinforcedAgent(theta0=0.99, eta=0.1).fit(np.zeros((1, 1)))
    agent.reward_one(0.0, reward=1.0, penalty=-0.5)  # did not vote: no update
    assert agent.theta_ == 0.99
    agent.reward_one(1.0, reward=1.0, penalty=-0.5)
    assert agent.theta_ == 1.0


def test_ral_votes_by_certainty() -> None:
    agent = ReinforcedAgent(theta0=0.9).fit(np.zeros((1, 2)))
    assert agent.advise_one(ctx([0, 0], np.array([0.85, 0.15]))) == 1.0
    assert agent.advise_one(ctx([0, 0], np.array([0.05, 0.95]))) == 0.0
    # multiclass: certainty is the max over all classes
    assert agent.advise_one(ctx([0, 0], np.array([0.4, 0.3, 0.3]))) == 1.0


# ---------------------------------------------------------------- brute force
def _brute_stats(window: list[np.ndarray], extreme: str) -> np.ndarray:
    W = np.array(window)
    D = np.sqrt(((W[:, None, :] - W[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(D, 0.0 if extreme == "max" else np.inf)
    return D.max(axis=1) if extreme == "max" else D.min(axis=1)


points = st.lists(
    st.lists(st.integers(-3, 3), min_size=2, max_size=2), min_size=1, max_size=40
)  # a small integer grid makes ties (equal distances, duplicates) frequent


@settings(max_examples=150, deadline=None)
@given(init=points, stream=points, L=st.integers(2, 7), delta=st.sampled_from([0.1, 0.5, 1.0]))
def test_ld_matches_brute_force(init: list, stream: list, L: int, delta: float) -> None:
    agent = LowDensityAgent(window_size=L, sparsity_fraction=delta).fit(np.array(init, float))
    window = [np.array(p, float) for p in init][-L:]
    for p in stream:
        x = np.array(p, float)
        maxd = _brute_stats(window, "max") if len(window) > 1 else np.zeros(1)
        d = np.sqrt(((np.array(window) - x) ** 2).sum(-1))
        expected = min(1.0, int((d > maxd).sum()) / (L * delta))
        assert agent.advise_one(ctx(p)) == expected
        window = ([*window, x])[-L:]
        order = agent.window_.chronological()
        if len(window) > 1:
            np.testing.assert_array_equal(agent.stat_[order], _brute_stats(window, "max"))


@settings(max_examples=150, deadline=None)
@given(init=points, stream=points, L=st.integers(2, 7))
def test_spf_matches_brute_force(init: list, stream: list, L: int) -> None:
    agent = SpaceFillingAgent(window_size=L).fit(np.array(init, float))
    window = [np.array(p, float) for p in init][-L:]
    for p in stream:
        x = np.array(p, float)
        d = np.sqrt(((np.array(window) - x) ** 2).sum(-1))
        if len(window) < 2:
            expected = 1.0 if d.min() > 0 else 0.0
        else:
            denom = _brute_stats(window, "min").max()
            expected = (1.0 if d.min() > 0 else 0.0) if denom == 0 else min(1.0, d.min() / denom)
        assert agent.advise_one(ctx(p)) == expected
        window = ([*window, x])[-L:]
        if len(window) > 1:
            order = agent.window_.chronological()
            np.testing.assert_array_equal(agent.stat_[order], _brute_stats(window, "min"))


@settings(max_examples=60, deadline=None)
@given(init=points, stream=points, L=st.integers(2, 6))
def test_ld_literal_listing_maxima_only_grow(init: list, stream: list, L: int) -> None:
    # exact_window=False: an existing member's MaxDist never shrinks when the sample that
    # set it is evicted (the paper's listing).
    agent = LowDensityAgent(window_size=L, exact_window=False).fit(np.array(init, float))
    seen: list[tuple[np.ndarray, float]] = []
    for p in [*init][-L:] + stream:
        x = np.array(p, float)
        if seen:
            cur = [q for q, _ in seen]
            d = np.sqrt(((np.array(cur) - x) ** 2).sum(-1))
            seen = [(q, max(m, di)) for (q, m), di in zip(seen, d, strict=True)]
            # the newcomer's own maximum is over the members that stay in the window
            stay = d[1:] if len(seen) == L else d
            seen.append((x, float(stay.max()) if stay.size else 0.0))
        else:
            seen.append((x, 0.0))
        seen = seen[-L:]
    for p in stream:
        agent.advise_one(ctx(p))
    np.testing.assert_array_equal(agent.stat_[agent.window_.chronological()], [m for _, m in seen])
