"""Hand-checked behaviour of the benchmark strategies (spec §6)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import SingleAgentLearner, make_stream, simulate
from cbeal.baselines import (
    DBALStreamAgent,
    QBCPYPAgent,
    RandomAgent,
    SplitAgent,
    UncertaintyAgent,
    VariableUncertaintyAgent,
)
from cbeal.core import Context

HALF = np.array([0.5, 0.5])


def ctx(x: list[float], proba: np.ndarray = HALF) -> Context:
    return Context(np.asarray(x, dtype=float), proba)


def test_variable_uncertainty_threshold_and_pacing() -> None:
    agent = VariableUncertaintyAgent(budget_fraction=0.5, step=0.1).fit(np.zeros((1, 1)))
    assert agent.advise_one(ctx([0], np.array([0.95, 0.05]))) == 1.0  # 0.95 < θ = 1
    assert agent.theta_ == pytest.approx(0.9)
    agent.decided_one(1.0, acquired=True)  # 1 label / 1 sample ≥ 0.5: out of budget
    assert agent.advise_one(ctx([0], np.array([0.6, 0.4]))) == 0.0  # 1/2 is not < 0.5
    assert agent.theta_ == pytest.approx(0.9)  # no update while out of budget
    assert agent.advise_one(ctx([0], np.array([0.95, 0.05]))) == 0.0  # 1/3: 0.95 ≥ 0.9
    assert agent.theta_ == pytest.approx(0.99)  # widened by (1 + s)


def test_dbal_density_candidate_and_threshold() -> None:
    rng = np.random.default_rng(0)
    agent = DBALStreamAgent(budget_fraction=1.0, step=0.1).fit(np.array([[0.0], [10.0]]), rng)
    # nn distances 10, 10; x = 20 is farther than 10 from 10? no: d(20,10)=10 is not < 10
    assert agent.advise_one(ctx([20.0])) == 0.0
    assert agent.theta_ == 1.0  # not a candidate: θ unchanged
    # x = 9 is closer to 0 (9 < 10) and to 10 (1 < 10) than their nearest neighbours:
    # ldf = 2, a candidate; margin 0 < θ η unless η ≤ 0, which the seeded draw decides
    eta = np.random.default_rng(0).normal(1.0, 1.0)
    p = agent.advise_one(ctx([9.0]))
    assert p == (1.0 if 0.0 < 1.0 * eta else 0.0)
    assert agent.theta_ == pytest.approx(0.9 if p else 1.1)
    # members 0, 10, 20 and the newcomer 9: 0 and 10 got closer neighbours, 20 did not
    np.testing.assert_allclose(agent.nn_[:4], [9.0, 1.0, 10.0, 1.0])


def test_dbal_moa_form_queries_on_negative_eta() -> None:
    agent = DBALStreamAgent(budget_fraction=1.0, form="moa").fit(
        np.array([[0.0], [10.0]]), np.random.default_rng(3)
    )
    agent._rng = np.random.default_rng(np.random.SeedSequence(1))
    draws = np.random.default_rng(np.random.SeedSequence(1)).normal(1.0, 1.0)
    p = agent.advise_one(ctx([5.0], np.array([0.9, 0.1])))  # margin 0.8
    assert p == (1.0 if 0.8 / draws < 1.0 else 0.0)


def test_split_random_share() -> None:
    agent = SplitAgent(budget_fraction=0.2, random_share=1.0).fit(np.zeros((1, 1)))
    assert agent.advise_one(ctx([0])) == 0.2
    vu = SplitAgent(budget_fraction=0.2, random_share=0.0).fit(np.zeros((1, 1)))
    assert vu.advise_one(ctx([0], np.array([0.9, 0.1]))) == 1.0


def test_qbc_queries_far_new_points_and_skips_clear_ones() -> None:
    rng = np.random.default_rng(0)
    X0 = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(8, 1, (30, 2))]
    y0 = np.r_[np.zeros(30, int), np.ones(30, int)]
    agent = QBCPYPAgent().fit(X0, np.random.default_rng(1), y0=y0)
    clear = np.mean([agent.advise_one(ctx([0.0, 0.0])) for _ in range(50)])
    far = np.mean([agent.advise_one(ctx([40.0, -40.0])) for _ in range(50)])
    between = np.mean([agent.advise_one(ctx([4.0, 4.0])) for _ in range(50)])
    assert clear < 0.2 and far > 0.8 and between > clear


def test_random_and_uncertainty() -> None:
    assert RandomAgent(rate=0.3).fit(np.zeros((1, 1))).advise_one(ctx([0])) == 0.3
    us = UncertaintyAgent(threshold=0.7).fit(np.zeros((1, 1)))
    assert [us.advise_one(ctx([0], np.array([p, 1 - p]))) for p in (0.69, 0.7, 0.9)] == [
        1.0,
        0.0,
        0.0,
    ]


@pytest.mark.parametrize(
    "agent",
    [
        RandomAgent(rate=0.1),
        UncertaintyAgent(),
        VariableUncertaintyAgent(budget_fraction=0.1),
        SplitAgent(budget_fraction=0.1),
        DBALStreamAgent(budget_fraction=0.1),
        QBCPYPAgent(),
    ],
    ids=lambda a: type(a).__name__,
)
def test_baselines_run_seeded_within_budget(agent: object) -> None:
    s = make_stream(n=300, pc=0.1, random_state=4)
    traces = []
    for _ in range(2):
        m = SingleAgentLearner(
            agent=agent, estimator=LogisticRegression(), budget=s.budget, random_state=8
        ).fit(s.X0, s.y0)
        traces.append(simulate(m, s.X_stream, s.y_stream))
    np.testing.assert_array_equal(traces[0].acquired, traces[1].acquired)
    assert traces[0].n_acquired <= s.budget
