"""Stream behaviour: delayed labels, budget, determinism, save/resume, multiclass, explanations."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression

from cbeal import (
    CbeAL,
    LowDensityAgent,
    ReinforcedAgent,
    SimulatedStream,
    SingleAgentLearner,
    SingleClassWarning,
    SpaceFillingAgent,
    make_stream,
    simulate,
)


def cbeal6(budget: int, seed: int = 0, **kw: object) -> CbeAL:
    return CbeAL.from_preset(
        "CBEAL-6", estimator=LogisticRegression(), budget=budget, random_state=seed, **kw
    )


@pytest.mark.parametrize("delay", [1, 5, 60])
def test_delayed_labels_respect_budget_lose_nothing(stream: SimulatedStream, delay: int) -> None:
    model = cbeal6(stream.budget).fit(stream.X0, stream.y0)
    trace = simulate(model, stream.X_stream, stream.y_stream, delay=delay)
    assert trace.n_acquired <= stream.budget
    assert model.budget_used_ == trace.n_acquired
    assert model.pending == ()
    assert model.n_labels_ == trace.n_acquired  # every acquisition was labelled
    assert (trace.reward[trace.acquired] != 0).all()
    assert (trace.reward[~trace.acquired] == 0).all()
    X, _ = model.labelled_pool
    assert X.shape[0] == stream.X0.shape[0] + trace.n_acquired


def test_labels_in_random_order_long_after(stream: SimulatedStream) -> None:
    model = cbeal6(stream.budget, seed=4).fit(stream.X0, stream.y0)
    waiting = []
    for x, y in zip(stream.X_stream, stream.y_stream, strict=True):
        d = model.query_one(x)
        if d.acquire:
            waiting.append((x, y, d))
        assert model.budget_used_ <= stream.budget
    assert len(model.pending) == len(waiting) > 0
    for i in np.random.default_rng(0).permutation(len(waiting)):
        x, y, d = waiting[i]
        model.learn_one(x, y, decision=d)
    assert model.pending == ()
    assert model.n_labels_ == len(waiting)


def test_budget_exhausted_decisions_say_so() -> None:
    s = make_stream(n=200, random_state=1)
    model = cbeal6(budget=3, epsilon=0.9).fit(s.X0, s.y0)
    decisions = [model.query_one(x) for x in s.X_stream]
    third = [i for i, d in enumerate(decisions) if d.acquire][2]
    assert decisions[third].budget_left == 0
    after = decisions[third + 1 :]
    assert after and all(not d.acquire and d.reason == "budget exhausted" for d in after)
    assert all(d.p_acquire == 0.0 for d in after)
    assert sum(d.acquire for d in decisions) == 3


def test_same_seed_identical_trace(stream: SimulatedStream) -> None:
    t1 = simulate(
        cbeal6(stream.budget, 11).fit(stream.X0, stream.y0), stream.X_stream, stream.y_stream
    )
    t2 = simulate(
        cbeal6(stream.budget, 11).fit(stream.X0, stream.y0), stream.X_stream, stream.y_stream
    )
    t3 = simulate(
        cbeal6(stream.budget, 12).fit(stream.X0, stream.y0), stream.X_stream, stream.y_stream
    )
    for name in ("acquired", "p_acquire", "advice", "weights_after", "reward", "flipped"):
        np.testing.assert_array_equal(getattr(t1, name), getattr(t2, name))
    assert not np.array_equal(t1.acquired, t3.acquired)


def test_seeds_estimator_random_state() -> None:
    from sklearn.ensemble import RandomForestClassifier

    s = make_stream(n=150, random_state=2)
    probas = []
    for _ in range(2):
        m = CbeAL.from_preset(
            "CBEAL-2", estimator=RandomForestClassifier(n_estimators=5), budget=10, random_state=5
        ).fit(s.X0, s.y0)
        simulate(m, s.X_stream, s.y_stream)
        probas.append(m.predict_proba(s.X_test))
        assert m.estimator_.random_state is not None
    np.testing.assert_array_equal(probas[0], probas[1])


@settings(max_examples=6, deadline=None)
@given(cut=st.integers(0, 379), delay=st.sampled_from([0, 7]))
def test_save_at_random_point_continues_identically(
    tmp_path_factory: pytest.TempPathFactory, cut: int, delay: int
) -> None:
    s = make_stream(n=400, pc=0.1, random_state=9)
    path = Path(tmp_path_factory.mktemp("m")) / "model.cbeal"

    def run(model: CbeAL, start: int, stop: int, queue: list) -> list:
        out = []
        for i in range(start, stop):
            d = model.query_one(s.X_stream[i])
            out.append((d.acquire, d.p_acquire, tuple(d.weights)))
            if d.acquire:
                queue.append((i, d))
            while queue and queue[0][0] <= i - delay:
                j, dj = queue.pop(0)
                model.learn_one(s.X_stream[j], s.y_stream[j], decision=dj)
        return out

    full_q: list = []
    full = cbeal6(s.budget, 3).fit(s.X0, s.y0)
    expected = run(full, 0, 380, full_q)
    part_q: list = []
    part = cbeal6(s.budget, 3).fit(s.X0, s.y0)
    first = run(part, 0, cut, part_q)
    part.save(path)
    resumed = CbeAL.load(path)
    second = run(resumed, cut, 380, part_q)  # pending decisions are delivered to the copy
    assert first + second == expected
    np.testing.assert_array_equal(resumed.predict_proba(s.X_test), full.predict_proba(s.X_test))


def test_multiclass_with_string_labels() -> None:
    rng = np.random.default_rng(0)
    centers = np.array([[0, 0], [4, 0], [0, 4]])
    labels = np.array(["crack", "ok", "void"])
    idx = rng.integers(0, 3, size=400)
    X = centers[idx] + rng.normal(size=(400, 2))
    y = labels[idx]
    model = CbeAL.from_preset(
        "CBEAL-4*", estimator=LogisticRegression(), budget=30, random_state=0
    ).fit(X[:15], y[:15])
    trace = simulate(model, X[15:], y[15:])
    assert model.classes_.tolist() == ["crack", "ok", "void"]
    proba = model.predict_proba(X)
    assert proba.shape == (400, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(model.predict(X)) <= set(labels)
    assert (model.predict(X) == y).mean() > 0.8
    assert 0 < trace.n_acquired <= 30


def test_single_class_d0_fallback_then_learns() -> None:
    s = make_stream(n=300, pc=0.1, random_state=0)
    neg = s.y_stream == 0
    X0 = s.X_stream[neg][:10]
    with pytest.warns(SingleClassWarning, match="only class"):
        model = cbeal6(60, classes=[0, 1]).fit(X0, np.zeros(10, dtype=int))
    np.testing.assert_array_equal(model.predict_proba(s.X_test[:3]), [[1.0, 0.0]] * 3)
    d = model.query_one(s.X_test[0])
    assert d.certainty == 1.0 and d.y_pred == 0
    trace = simulate(model, s.X_stream, s.y_stream)
    assert (s.y_stream[trace.acquired] == 1).any()  # exploration found the other class
    assert model.estimator_ is not None  # and the learner became a real classifier
    assert model.predict_proba(s.X_test).max() < 1.0


def test_probabilities_weights_budget_invariants() -> None:
    for seed in range(3):
        s = make_stream(n=260, pc=0.05, ds=0.03, sp=0.7, random_state=seed)
        model = cbeal6(s.budget, seed).fit(s.X0, s.y0)
        trace = simulate(model, s.X_stream, s.y_stream, delay=seed)
        for arr in (trace.p_acquire, trace.advice, trace.certainty):
            assert ((arr >= 0) & (arr <= 1)).all()
        for arr in (trace.weights_before, trace.weights_exp4p, trace.weights_after):
            assert np.isfinite(arr).all() and (arr > 0).all()
            np.testing.assert_allclose(arr.sum(axis=1), 1.0)
        assert trace.n_acquired <= s.budget


def test_decision_explanation(stream: SimulatedStream) -> None:
    model = cbeal6(stream.budget, 0).fit(stream.X0, stream.y0)
    acquisitions = []
    for x in stream.X_stream[:200]:
        d = model.query_one(x)
        if d.acquire:
            acquisitions.append(d)
    assert acquisitions
    for d in acquisitions:
        votes = d.advice >= 0.5
        assert set(d.wanted) == {n for n, v in zip(d.agent_names, votes, strict=True) if v}
        if votes.any():
            expl = np.array([k == "exploration" for k in d.agent_kinds])
            share = d.weights[expl & votes].sum() / d.weights[votes].sum()
            assert d.exploration_share == pytest.approx(share)
            assert d.led_by == ("exploration" if share >= 0.5 else "exploitation")
        else:
            assert d.led_by == "epsilon"
        assert "ACQUIRE" in d.explain()
    pickle.loads(pickle.dumps(acquisitions[0]))


def test_custom_agents_and_single_agent() -> None:
    s = make_stream(n=300, random_state=5)
    model = CbeAL.from_agents(
        [("near", SpaceFillingAgent(window_size=30)), ReinforcedAgent(theta0=0.8)],
        estimator=LogisticRegression(),
        budget=20,
        random_state=0,
    ).fit(s.X0, s.y0)
    assert model.agent_names == ("near", "AG2")
    assert simulate(model, s.X_stream, s.y_stream).n_acquired <= 20
    solo = SingleAgentLearner(
        agent=LowDensityAgent(), estimator=LogisticRegression(), budget=20, random_state=0
    ).fit(s.X0, s.y0)
    trace = simulate(solo, s.X_stream, s.y_stream)
    assert trace.agent_names == ("LowDensityAgent",) and trace.n_acquired <= 20
    np.testing.assert_array_equal(trace.weights_after, 1.0)


def test_trace_frame(stream: SimulatedStream) -> None:
    trace = simulate(
        cbeal6(stream.budget).fit(stream.X0, stream.y0), stream.X_stream, stream.y_stream
    )
    frame = trace.to_frame()
    assert len(frame) == len(trace) == stream.X_stream.shape[0]
    assert {"acquired", "p_acquire", "reward", "weight_after[SPF1]", "flipped[RAL3]"} <= set(
        frame.columns
    )
    assert frame.attrs["budget"] == stream.budget
    assert frame["reward"].sum() == pytest.approx(trace.summary()["cumulative_reward"])
