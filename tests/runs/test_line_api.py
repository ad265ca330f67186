"""The stream API for a real line: decisions as data, labels by id, cancel, batches, rates,
robust steps and threads."""

from __future__ import annotations

import json
import pickle
import threading
from typing import Any

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import (
    CbeAL,
    Decision,
    DecisionError,
    InvalidInputError,
    LabelRate,
    ParameterError,
    SimulatedStream,
    make_stream,
    simulate,
)
from cbeal.core import RATE_BURST
from cbeal.learners import PlattSVC


def cbeal6(budget: Any, seed: int = 0, **kw: Any) -> CbeAL:
    return CbeAL.from_preset(
        "CBEAL-6", estimator=LogisticRegression(), budget=budget, random_state=seed, **kw
    )


def acquisitions(model: CbeAL, X: np.ndarray, n: int) -> list[tuple[int, Decision]]:
    out = []
    for i, x in enumerate(X):
        d = model.query_one(x)
        if d.acquire:
            out.append((i, d))
            if len(out) == n:
                return out
    raise AssertionError("too few acquisitions")


# ---------------------------------------------------------------- decisions as data
def test_decision_round_trips_through_json(stream: SimulatedStream) -> None:
    model = cbeal6(stream.budget).fit(stream.X0, stream.y0)
    for x in stream.X_stream[:30]:
        d = model.query_one(x)
        text = json.dumps(d.to_dict())
        back = Decision.from_dict(json.loads(text))
        for name in (
            "id",
            "t",
            "acquire",
            "p_acquire",
            "y_pred",
            "certainty",
            "budget_left",
            "reason",
            "learner_version",
            "model_token",
            "agent_names",
            "classes",
        ):
            assert getattr(back, name) == getattr(d, name), name
        for name in ("advice", "weights", "proba"):
            np.testing.assert_array_equal(getattr(back, name), getattr(d, name))
        assert back.explain() == d.explain()


def test_ids_are_unique_strings_stable_across_save_and_load(
    stream: SimulatedStream, tmp_path: Any
) -> None:
    model = cbeal6(stream.budget).fit(stream.X0, stream.y0)
    ids = [model.query_one(x).id for x in stream.X_stream[:50]]
    assert all(isinstance(i, str) for i in ids) and len(set(ids)) == 50
    model.save(tmp_path / "m.cbeal")
    again = CbeAL.load(tmp_path / "m.cbeal")
    later = [again.query_one(x).id for x in stream.X_stream[50:60]]
    assert later == [model.query_one(x).id for x in stream.X_stream[50:60]]
    assert not set(later) & set(ids)
    other = cbeal6(stream.budget).fit(stream.X0, stream.y0)
    assert other.query_one(stream.X_stream[0]).id != ids[0]  # unique per fitted model


@pytest.mark.parametrize("form", ["decision", "dict", "id"])
def test_label_by_decision_dict_or_id_with_or_without_x(stream: SimulatedStream, form: str) -> None:
    a = cbeal6(stream.budget, seed=2).fit(stream.X0, stream.y0)
    b = cbeal6(stream.budget, seed=2).fit(stream.X0, stream.y0)
    for x, y in zip(stream.X_stream, stream.y_stream, strict=True):
        da, db = a.query_one(x), b.query_one(x)
        assert da.acquire == db.acquire
        if da.acquire:
            a.learn_one(x, y, decision=da)
            handle = {"decision": db, "dict": db.to_dict(), "id": db.id}[form]
            b.learn_one(None, y, decision=handle)
    assert a.n_labels_ == b.n_labels_ > 0
    np.testing.assert_array_equal(a.weights_, b.weights_)
    np.testing.assert_array_equal(a.predict_proba(stream.X_test), b.predict_proba(stream.X_test))


def test_pending_lists_decisions_and_labels_arrive_in_any_order(stream: SimulatedStream) -> None:
    model = cbeal6(stream.budget, seed=4).fit(stream.X0, stream.y0)
    got = acquisitions(model, stream.X_stream, 6)
    assert [d.id for d in model.pending] == [d.id for _, d in got]
    for i, d in reversed(got):
        model.learn_one(None, stream.y_stream[i], decision=d.id)
    assert model.pending == () and model.n_labels_ == 6


def test_cancel_refunds_the_label_and_counts_as_a_skip(stream: SimulatedStream) -> None:
    model = cbeal6(stream.budget, seed=5).fit(stream.X0, stream.y0)
    (_, d), (_, e) = acquisitions(model, stream.X_stream, 2)
    used, pool = model.budget_used_, model.labelled_pool[0].shape[0]
    alpha = model.policy_.solver_.alpha_.copy()
    theta = [a.theta_ for _, a in model.policy_.named_agents if hasattr(a, "theta_")]
    assert model.cancel(d.id).id == d.id
    assert model.budget_used_ == used - 1  # the label was never bought
    assert model.labelled_pool[0].shape[0] == pool  # the sample never joins the pool
    np.testing.assert_array_equal(model.policy_.solver_.alpha_, alpha)  # reward 0: no update
    assert [a.theta_ for _, a in model.policy_.named_agents if hasattr(a, "theta_")] == theta
    assert [p.id for p in model.pending] == [e.id]
    with pytest.raises(DecisionError, match="cancelled"):
        model.learn_one(None, 1, decision=d.id)
    model.cancel(e, refund=False)  # "cannot tell": the expert's time was spent
    assert model.budget_used_ == used - 1


def test_cancelled_labels_never_let_the_budget_be_exceeded(stream: SimulatedStream) -> None:
    model = cbeal6(10, seed=1).fit(stream.X0, stream.y0)
    labelled = 0
    for i, x in enumerate(stream.X_stream):
        d = model.query_one(x)
        if d.acquire:
            if i % 3 == 0:
                model.cancel(d)
            else:
                model.learn_one(x, stream.y_stream[i], decision=d)
                labelled += 1
        assert model.budget_used_ <= 10
    assert labelled == model.n_labels_ <= 10


def test_unknown_and_foreign_ids(stream: SimulatedStream) -> None:
    model = cbeal6(stream.budget).fit(stream.X0, stream.y0)
    d = model.query_one(stream.X_stream[0])
    with pytest.raises(DecisionError, match="has made 1 decisions"):
        model.learn_one(None, 0, decision=f"{model.model_token_}-5")
    with pytest.raises(DecisionError, match="another model"):
        model.learn_one(None, 0, decision="0123456789ab-0")
    if not d.acquire:
        with pytest.raises(DecisionError, match="did not acquire"):
            model.learn_one(None, 0, decision=d.id)
    with pytest.raises(DecisionError, match="lacks"):
        model.learn_one(None, 0, decision={"id": d.id})


# ---------------------------------------------------------------- batches
@pytest.mark.parametrize(
    "estimator", [LogisticRegression(), PlattSVC()], ids=["logreg", "platt-svm"]
)
def test_query_many_equals_query_one_row_by_row(stream: SimulatedStream, estimator: Any) -> None:
    one = CbeAL.from_preset("CBEAL-6", estimator=estimator, budget=40, random_state=3)
    many = CbeAL.from_preset("CBEAL-6", estimator=estimator, budget=40, random_state=3)
    one.fit(stream.X0, stream.y0)
    many.fit(stream.X0, stream.y0)
    X = stream.X_stream[:120]
    a = [one.query_one(x) for x in X]
    b = many.query_many(X)
    assert [d.acquire for d in a] == [d.acquire for d in b]
    assert [d.p_acquire for d in a] == [d.p_acquire for d in b]
    assert [d.id.split("-")[1] for d in a] == [d.id.split("-")[1] for d in b]
    np.testing.assert_array_equal([d.advice for d in a], [d.advice for d in b])
    np.testing.assert_allclose([d.proba for d in a], [d.proba for d in b], rtol=0, atol=1e-12)
    assert [p.t for p in one.pending] == [p.t for p in many.pending]


def test_query_many_keeps_its_own_copy_of_each_acquired_sample(stream: SimulatedStream) -> None:
    # A line reuses its input buffer; the pending sample must not change with it (and must not
    # keep the whole batch alive).
    kept, reused = cbeal6(40, seed=3), cbeal6(40, seed=3)
    kept.fit(stream.X0, stream.y0)
    reused.fit(stream.X0, stream.y0)
    X = stream.X_stream[:200].copy()
    a, b = kept.query_many(X.copy()), reused.query_many(X)
    X[:] = 1e6  # the caller overwrites its buffer before the labels arrive
    for i, (da, db) in enumerate(zip(a, b, strict=True)):
        if da.acquire:
            kept.learn_one(None, stream.y_stream[i], decision=da.id)
            reused.learn_one(None, stream.y_stream[i], decision=db.id)
    assert reused.n_labels_ == kept.n_labels_ > 0
    probe = stream.X_stream[200:260]
    np.testing.assert_array_equal(reused.predict_proba(probe), kept.predict_proba(probe))


def test_query_one_with_given_probabilities(stream: SimulatedStream) -> None:
    a = cbeal6(40, seed=3).fit(stream.X0, stream.y0)
    b = cbeal6(40, seed=3).fit(stream.X0, stream.y0)
    P = a.predict_proba(stream.X_stream[:40])
    for x, p in zip(stream.X_stream[:40], P, strict=True):
        assert a.query_one(x).acquire == b.query_one(x, proba=p).acquire
    with pytest.raises(InvalidInputError, match="probabilities summing to 1"):
        b.query_one(stream.X_stream[41], proba=[0.3, 0.3])
    # the decision keeps its own read-only copy: the caller's array stays writeable
    p = P[0].copy()
    d = b.query_one(stream.X_stream[42], proba=p)
    p[:] = 0.5
    assert p.flags.writeable and not d.proba.flags.writeable
    assert not np.shares_memory(p, d.proba)


def test_refit_is_public_and_manual_refits_wait(stream: SimulatedStream) -> None:
    model = cbeal6(40, refit_every=None).fit(stream.X0, stream.y0)
    version = model.learner_version
    for i, d in acquisitions(model, stream.X_stream, 3):
        model.learn_one(None, stream.y_stream[i], decision=d)
    assert model.learner_version == version and model.labels_since_refit == 3
    model.refit()
    assert model.learner_version == version + 1 and model.labels_since_refit == 0


# ---------------------------------------------------------------- label rate
def test_rate_budget_is_never_exceeded_and_paces_spending() -> None:
    s = make_stream(n=1500, pc=0.1, random_state=2)
    rate = 0.05
    model = cbeal6(rate, seed=2).fit(s.X0, s.y0)
    trace = simulate(model, s.X_stream, s.y_stream)
    spent = np.cumsum(trace.acquired)
    seen = np.arange(1, len(trace) + 1)
    assert (spent <= np.floor(rate * seen + RATE_BURST + 1e-9)).all()  # the token bucket
    total = cbeal6(int(rate * len(trace)), seed=2).fit(s.X0, s.y0)
    hard = simulate(total, s.X_stream, s.y_stream)
    # the hard count is spent early; the rate spreads the labels over the whole stream
    assert np.flatnonzero(hard.acquired)[-1] < 0.7 * len(trace)
    assert np.flatnonzero(trace.acquired)[-1] > 0.9 * len(trace)
    assert trace.n_acquired >= 0.8 * rate * len(trace)


def test_rate_window_cap_and_total() -> None:
    s = make_stream(n=1500, pc=0.1, random_state=2)
    budget = LabelRate(rate=0.1, window=200, max_in_window=5, total=30)
    model = cbeal6(budget, seed=1).fit(s.X0, s.y0)
    trace = simulate(model, s.X_stream, s.y_stream)
    acq = trace.acquired.astype(int)
    in_window = np.convolve(acq, np.ones(200, dtype=int))[: len(acq)]
    assert in_window.max() <= 5 and trace.n_acquired <= 30
    skipped = [model.query_one(x) for x in s.X_stream[:5]]
    assert all(d.reason in ("drawn", "label rate reached") for d in skipped)


# ---------------------------------------------------------------- robust steps
@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("reward", float("inf")),
        ("reward", float("nan")),
        ("penalty", -float("inf")),
        ("penalty", 0.5),
    ],
)
def test_non_finite_rewards_are_refused_and_change_nothing(
    stream: SimulatedStream, param: str, value: float
) -> None:
    model = cbeal6(40, seed=1).fit(stream.X0, stream.y0)
    [(i, d)] = acquisitions(model, stream.X_stream, 1)
    model.set_params(**{param: value})
    before = pickle.dumps(model)
    with pytest.raises(ParameterError, match=param):
        model.learn_one(None, stream.y_stream[i], decision=d)
    assert pickle.dumps(model) == before
    model.set_params(reward=1.0, penalty=-0.5)
    model.learn_one(None, stream.y_stream[i], decision=d)  # the label was not lost


def test_huge_finite_rewards_are_refused_at_fit(stream: SimulatedStream) -> None:
    # bounded since issue 21 (finding 15); the bounds: tests/algorithm/test_reward_bounds.py
    with pytest.raises(ParameterError, match=r"reward ρ\+ must be a number in \(0, 100\]"):
        cbeal6(80, seed=1, reward=1e308, penalty=-1e308).fit(stream.X0, stream.y0)


class FlakyLogReg(LogisticRegression):
    """Fails to fit while ``broken`` is set (a learner that crashes mid-stream)."""

    broken = False

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> FlakyLogReg:
        if FlakyLogReg.broken:
            raise RuntimeError("disk full")
        return super().fit(X, y, sample_weight)


def test_a_failing_refit_loses_no_label_and_a_retry_works(stream: SimulatedStream) -> None:
    model = CbeAL.from_preset("CBEAL-6", estimator=FlakyLogReg(), budget=40, random_state=0).fit(
        stream.X0, stream.y0
    )
    [(i, d)] = acquisitions(model, stream.X_stream, 1)
    before = pickle.dumps(model)
    FlakyLogReg.broken = True
    try:
        with pytest.raises(RuntimeError, match="disk full"):
            model.learn_one(None, stream.y_stream[i], decision=d)
    finally:
        FlakyLogReg.broken = False
    assert pickle.dumps(model) == before
    assert [p.id for p in model.pending] == [d.id]
    model.learn_one(None, stream.y_stream[i], decision=d)
    assert model.n_labels_ == 1 and model.pending == ()


# ---------------------------------------------------------------- threads
def test_threads_sharing_a_model_lose_nothing(stream: SimulatedStream) -> None:
    model = cbeal6(10_000, seed=0).fit(stream.X0, stream.y0)
    X, y = stream.X_stream, stream.y_stream
    decisions: list[Decision] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker(rows: range) -> None:
        try:
            for i in rows:
                d = model.query_one(X[i])
                with lock:
                    decisions.append(d)
                if d.acquire and i % 2 == 0:
                    model.learn_one(None, y[i], decision=d.id)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(range(k, 400, 4),)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    ids = [d.id for d in decisions]
    assert len(ids) == len(set(ids)) == 400 == model.t_
    assert sorted(d.t for d in decisions) == list(range(400))
    acquired = [d for d in decisions if d.acquire]
    assert model.budget_used_ == len(acquired)
    assert len(model.pending) + model.n_labels_ == len(acquired) > 0
    assert {p.id for p in model.pending} < {d.id for d in acquired}


def test_the_default_preset_is_the_recommended_one_and_named_presets_are_unchanged() -> None:
    from cbeal.core import DEFAULT_PACE, EqualWeights, Exp4P, ScoreFusion

    model = CbeAL.from_preset(estimator=LogisticRegression(), budget=0.05)
    assert [n for n, _ in model.agents] == ["RAL1", "RAL2", "ENT", "VU", "MIN"]
    assert isinstance(model.fusion, ScoreFusion) and model.solver is None
    assert isinstance(model.fusion.weights, EqualWeights) and model.epsilon == 0.0
    assert model.fusion.pacer == "deficit"  # issue 32, round 5: CBEAL-5D
    assert model.agents[2][1].budget_fraction == 0.05
    same = CbeAL.from_preset(estimator=LogisticRegression(), budget=40, budget_fraction=0.05)
    assert repr(same.agents) == repr(model.agents)
    assert same.fusion.budget_fraction == 0.05
    # a count alone is paced at the default pace (issue 32: it was refused)
    alone = CbeAL.from_preset(estimator=LogisticRegression(), budget=40)
    assert alone.agents[2][1].budget_fraction == DEFAULT_PACE
    previous = CbeAL.from_preset("CBEAL-4U", estimator=LogisticRegression(), budget=0.05)
    assert [n for n, _ in previous.agents] == ["RAL1", "RAL2", "ENT", "VU"]
    assert isinstance(previous.solver, Exp4P) and previous.solver.eta == 0.2
    paper = CbeAL.from_preset("CBEAL-6", estimator=LogisticRegression(), budget=40)
    assert [n for n, _ in paper.agents] == ["LD1", "RAL1", "LD2", "RAL2", "SPF1", "RAL3"]
    assert paper.solver is None and paper.epsilon == 0.01


def test_set_params_that_fails_changes_nothing() -> None:
    model = CbeAL.from_preset("CBEAL-6", estimator=LogisticRegression(), budget=40)
    before = model.get_params(deep=True)
    with pytest.raises(ParameterError, match="no parameter 'bogus'"):
        model.set_params(reward=2.0, bogus=1)
    with pytest.raises(ParameterError, match="no parameter 'Cee'"):
        model.set_params(reward=2.0, estimator__C=3.0, estimator__Cee=1)
    assert model.get_params(deep=True) == before
    # a nested name of an estimator set in the same call is checked against the new one
    model.set_params(estimator=PlattSVC(), estimator__C=3.0)
    assert isinstance(model.estimator, PlattSVC) and model.estimator.C == 3.0
