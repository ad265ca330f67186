"""scikit-activeml's stream strategies wrapped as cbeal agents (the baselines' cross-check)."""

from __future__ import annotations

import math
import pickle
import sys
from collections.abc import Iterator
from functools import cache

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from cbeal import SimulatedStream, SingleAgentLearner, simulate
from cbeal.adapters.skactiveml import SkactivemlAgent
from cbeal.baselines import UncertaintyAgent, VariableUncertaintyAgent
from cbeal.core import Agent, Context
from cbeal.simulation.trace import Trace
from cbeal_studies.reproduction.scenarios import scenario
from cbeal_studies.reproduction.skactiveml_check import skactiveml_methods

pytest.importorskip("skactiveml")

STRATEGIES = ("RS", "US", "VariableUncertainty", "DBALStream")


@pytest.fixture(scope="module", autouse=True)
def _one_blas_thread() -> Iterator[None]:
    # the refits solve tiny problems: BLAS threads only add contention (on a busy machine
    # this file took 40-60 s with them, 7 s without)
    with threadpool_limits(limits=1):
        yield


@cache
def s01() -> SimulatedStream:
    return scenario("S01").data(0, "v1")


def fraction() -> float:
    d = s01()
    return d.budget / d.X_stream.shape[0]  # 48 / 480 = 0.1


def run(agent: Agent, n: int | None = None, seed: int = 0) -> tuple[SingleAgentLearner, Trace]:
    d = s01()
    model = SingleAgentLearner(
        agent=agent, epsilon=0.0, estimator=LogisticRegression(), budget=d.budget, random_state=seed
    ).fit(d.X0, d.y0)
    return model, simulate(model, d.X_stream[:n], d.y_stream[:n])


@cache
def twice(strategy: str) -> tuple[tuple[SingleAgentLearner, Trace], ...]:
    """Two runs of one wrapped strategy on S01, same seed (shared by the tests below)."""
    return tuple(
        run(SkactivemlAgent(strategy=strategy, budget_fraction=fraction())) for _ in range(2)
    )


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_runs_within_budget_and_is_seeded(strategy: str) -> None:
    (m1, t1), (m2, t2) = twice(strategy)
    budget = s01().budget
    assert t1.n_acquired <= budget and m1.budget_used_ <= budget
    np.testing.assert_array_equal(t1.advice, t2.advice)
    np.testing.assert_array_equal(t1.acquired, t2.acquired)
    np.testing.assert_array_equal(m1.predict(s01().X_test), m2.predict(s01().X_test))
    agent = m1.policy_.named_agents[0][1]
    assert isinstance(agent, SkactivemlAgent)
    assert agent.n_seen_ == s01().X_stream.shape[0]
    assert agent.n_queried_ == int(t1.advice.sum())  # advice is exactly 0 or 1
    assert set(np.unique(t1.advice)) <= {0.0, 1.0}
    pickle.loads(pickle.dumps(m1))  # a model holding the wrapper still pickles


def test_seed_comes_from_the_model() -> None:
    d = s01()
    _, a = run(SkactivemlAgent(strategy="RS", budget_fraction=0.1), n=200, seed=0)
    _, b = run(SkactivemlAgent(strategy="RS", budget_fraction=0.1), n=200, seed=1)
    assert not np.array_equal(a.advice, b.advice)
    # an explicit random_state overrides the model's generator
    _, c = run(SkactivemlAgent(strategy="RS", budget_fraction=0.1, random_state=5), n=200, seed=0)
    _, e = run(SkactivemlAgent(strategy="RS", budget_fraction=0.1, random_state=5), n=200, seed=1)
    np.testing.assert_array_equal(c.advice, e.advice)
    assert d.budget == 48


def test_random_sampling_queries_about_the_budget_fraction() -> None:
    # StreamRandomSampling queries each sample independently with probability b, so the
    # count it queries is Binomial(n, b): 48 ± 6.6 for n = 480, b = 0.1. We allow 3 sd
    # (the seeded run gives 55). cbeal then caps the acquisitions at B = 48.
    (_, trace), _ = twice("RS")
    n, b = trace.advice.shape[0], fraction()
    queried = int(trace.advice.sum())
    assert abs(queried - b * n) <= 3 * math.sqrt(n * b * (1 - b))
    assert trace.n_acquired == min(queried, s01().budget)


def test_fixed_uncertainty_sees_our_probabilities() -> None:
    # their threshold for K = 2 classes is 1/2 + b/2 = 0.55 (b = 0.1): a sample above it
    # is never queried; with logistic regression on S01 only two samples fall below it
    (_, trace), _ = twice("US")
    theta = 0.5 + 0.5 * fraction()
    assert not trace.advice[trace.certainty > theta].any()
    assert not trace.acquired[trace.certainty > theta].any()
    assert (trace.advice[trace.certainty <= theta] == 1.0).all()  # budget never binds


def test_fixed_uncertainty_at_b_04_is_our_us_decision_for_decision() -> None:
    # 1/2 + b/2 = 0.7 for b = 0.4: their US then asks exactly where ours (θ = 0.7) does,
    # which holds only if the shim passes our learner's probabilities unchanged
    _, theirs = run(SkactivemlAgent(strategy="US", budget_fraction=0.4))
    _, ours = run(UncertaintyAgent(threshold=0.7))
    assert ours.n_acquired > 5
    np.testing.assert_array_equal(theirs.advice, ours.advice)
    np.testing.assert_array_equal(theirs.acquired, ours.acquired)


def test_variable_uncertainty_without_pacing_is_ours_decision_for_decision() -> None:
    # with b = 1 neither budget check ever binds, and the θ dynamics (θ0 = 1, s = 0.01)
    # are the same: the decisions must coincide (B is spent within the first 150 samples)
    _, theirs = run(SkactivemlAgent(strategy="VariableUncertainty", budget_fraction=1.0), n=150)
    _, ours = run(VariableUncertaintyAgent(budget_fraction=1.0), n=150)
    assert ours.n_acquired == s01().budget
    np.testing.assert_array_equal(theirs.advice, ours.advice)


@pytest.mark.parametrize(
    ("strategy", "utility"), [("US", 0.2), ("VariableUncertainty", 0.2), ("DBALStream", 0.4)]
)
def test_shim_returns_the_context_probabilities(strategy: str, utility: float) -> None:
    agent = SkactivemlAgent(strategy=strategy, budget_fraction=0.5, random_state=0)
    agent.fit(np.zeros((1, 2)))
    agent.advise_one(Context(np.zeros(2), np.array([0.2, 0.8])))
    assert agent.utility_ == pytest.approx(utility)  # 1 − certainty, or 1 − margin


def test_parameters_and_errors() -> None:
    agent = SkactivemlAgent(strategy="DBALStream", budget_fraction=0.05, random_state=3)
    assert agent.get_params() == {
        "strategy": "DBALStream",
        "budget_fraction": 0.05,
        "random_state": 3,
    }
    assert agent.name == "DBALStream (skactiveml)"
    with pytest.raises(ValueError, match="unknown strategy"):
        SkactivemlAgent(strategy="QBC").fit(np.zeros((1, 2)))
    with pytest.raises(ValueError, match="budget_fraction"):
        SkactivemlAgent(strategy="RS", budget_fraction=0.0).fit(np.zeros((1, 2)))
    with pytest.raises(TypeError, match="random_state"):
        SkactivemlAgent(strategy="RS", random_state=0.5).fit(np.zeros((1, 2)))  # type: ignore[arg-type]


def test_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "skactiveml.stream", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[skactiveml\]'"):
        SkactivemlAgent(strategy="RS").fit(np.zeros((1, 2)))


def test_methods() -> None:
    methods = skactiveml_methods()
    assert list(methods) == [
        "RS (skactiveml)",
        "US (skactiveml)",
        "VariableUncertainty (skactiveml)",
        "DBALStream (skactiveml)",
    ]
    assert {m.family for m in methods.values()} == {"crosscheck"}
    assert not any(m.full for m in methods.values())
    build = methods["US (skactiveml)"].build
    assert build is not None
    model = build(LogisticRegression(), 48, 480, 7)
    assert isinstance(model, SingleAgentLearner)
    assert model.epsilon == 0.0 and model.budget == 48 and model.random_state == 7
    assert model.name == "US (skactiveml)"
    assert model.agent.get_params() == {
        "strategy": "US",
        "budget_fraction": 0.1,
        "random_state": None,
    }


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_agent_protocol_pickle_and_refit(strategy: str) -> None:
    # the generic agent conventions (tests/project/test_conventions.py) for the wrapper
    X = s01().X_stream[:120]
    rng = np.random.default_rng(0)
    p1 = rng.uniform(0.5, 1.0, size=X.shape[0])
    contexts = [Context(x, np.array([p, 1.0 - p])) for x, p in zip(X, p1, strict=True)]
    agent = SkactivemlAgent(strategy=strategy, budget_fraction=0.2)
    twin = agent.clone()
    assert repr(twin) == repr(agent) and not [k for k in vars(twin) if k.endswith("_")]
    agent.fit(s01().X0, np.random.default_rng(0))
    head = [agent.advise_one(c) for c in contexts[:60]]
    copy = pickle.loads(pickle.dumps(agent))
    assert [copy.advise_one(c) for c in contexts[60:]] == [
        agent.advise_one(c) for c in contexts[60:]
    ]
    agent.fit(s01().X0, np.random.default_rng(0))  # fit resets all state
    assert [agent.advise_one(c) for c in contexts[:60]] == head
