"""The scikit-activeml adapter, run with the real scikit-activeml: CbeAL behind its stream
query/update protocol (rewards computed for the user), and its strategies inside a CbeAL
ensemble (model files refuse them)."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from cbeal import (
    CbeAL,
    DecisionError,
    ModelFileError,
    SimulatedStream,
    UnknownLabelError,
    make_stream,
    simulate,
)
from cbeal.adapters.skactiveml import CbealStreamStrategy, SkactivemlAgent
from cbeal.core import RATE_BURST, LabelRate, LowDensityAgent, ReinforcedAgent

pytest.importorskip("skactiveml")
from skactiveml.classifier import SklearnClassifier
from skactiveml.stream import Split, StreamDensityBasedAL

MISSING = -1


@pytest.fixture(scope="module", autouse=True)
def _one_blas_thread() -> Iterator[None]:
    with threadpool_limits(limits=1):  # tiny refits: BLAS threads only add contention
        yield


@cache
def data() -> SimulatedStream:
    return make_stream(n=400, pc=0.2, random_state=3)


def clf_on(y_train: np.ndarray) -> SklearnClassifier:
    clf = SklearnClassifier(
        LogisticRegression(solver="liblinear"), classes=[0, 1], missing_label=MISSING
    )
    return clf.fit(data().X_stream, y_train)


def initial_labels() -> np.ndarray:
    y = data().y_stream
    return np.where(np.arange(y.shape[0]) < 10, y, MISSING)


def skactiveml_loop(qs: Any, *, late: bool = False, n: int = 250) -> dict[str, Any]:
    """scikit-activeml's stream loop: query, update, label, refit the user's classifier."""
    X, y = data().X_stream, data().y_stream
    y_train = np.full(y.shape, MISSING)
    y_train[:10] = y[:10]
    clf = clf_on(y_train)
    out: dict[str, Any] = {"queried": [], "expected_rewards": []}
    for t in range(10, n):
        idx = qs.query(X[[t]], clf=clf)
        wrong = clf.predict(X[[t]])[0] != y[t]  # what the reward must say
        if late or not isinstance(qs, CbealStreamStrategy):
            qs.update(X[[t]], idx)
        else:
            qs.update(X[[t]], idx, y=y[[t]][idx])
        if len(idx):
            out["queried"].append(t)
            out["expected_rewards"].append(1.0 if wrong else -0.5)
            if late and isinstance(qs, CbealStreamStrategy):
                assert qs.label(X[t], y[t]) == out["expected_rewards"][-1]
            y_train[t] = y[t]
            clf = clf_on(y_train)
    return out


def test_cbeal_in_a_skactiveml_loop_within_budget_with_rewards_computed() -> None:
    qs = CbealStreamStrategy(budget=0.1, random_state=0)
    out = skactiveml_loop(qs)
    n_seen = 240
    assert 5 <= len(out["queried"]) <= 0.1 * n_seen + RATE_BURST  # the rate's token bucket
    assert qs.rewards_ == out["expected_rewards"]  # ρ+ exactly where clf was wrong
    assert qs.pending_ == ()
    assert qs.engine_.t == n_seen
    assert len(qs.decisions_) == 1 and qs.decisions_[0].agent_names[0] == "LD1"


def test_late_labels_give_the_same_run_as_immediate_ones() -> None:
    now = skactiveml_loop(CbealStreamStrategy(budget=0.1, random_state=0))
    late_qs = CbealStreamStrategy(budget=0.1, random_state=0)
    late = skactiveml_loop(late_qs, late=True)
    assert late["queried"] == now["queried"]
    assert late_qs.rewards_ == now["expected_rewards"]


def test_seeded_and_comparable_with_skactiveml_own_strategy() -> None:
    a = skactiveml_loop(CbealStreamStrategy(budget=0.1, random_state=1), n=150)
    b = skactiveml_loop(CbealStreamStrategy(budget=0.1, random_state=1), n=150)
    c = skactiveml_loop(CbealStreamStrategy(budget=0.1, random_state=2), n=150)
    theirs = skactiveml_loop(StreamDensityBasedAL(budget=0.1, random_state=1), n=150)
    assert a["queried"] == b["queried"] != c["queried"]
    assert len(theirs["queried"]) > 0  # the same loop drives their strategy


def test_query_does_not_change_the_strategy_and_update_commits() -> None:
    X = data().X_stream
    clf = clf_on(initial_labels())
    qs = CbealStreamStrategy(budget=0.5, random_state=0)
    first = qs.query(X[[10, 11, 12]], clf=clf, return_utilities=True)
    again = qs.query(X[[10, 11, 12]], clf=clf, return_utilities=True)
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[1], again[1])  # utilities: P(acquire) per candidate
    assert "engine_" not in vars(qs)
    qs.update(X[[10, 11, 12]], first[0])
    assert qs.engine_.t == 3 and len(qs.pending_) == len(first[0])
    twin = pickle.loads(pickle.dumps(qs))
    np.testing.assert_array_equal(twin.query(X[[13]], clf=clf), qs.query(X[[13]], clf=clf))


def test_update_refuses_what_cbeal_did_not_choose_and_drops_what_was_not_asked() -> None:
    X, y = data().X_stream, data().y_stream
    clf = clf_on(initial_labels())
    # a strict rate (no burst): the first parts are skipped, so an update commits first
    qs = CbealStreamStrategy(budget=LabelRate(rate=0.5), random_state=0)
    with pytest.raises(DecisionError, match="must follow query"):
        qs.update(X[[10]], [0])
    t = 10
    while len(qs.query(X[[t]], clf=clf)) == 0:
        qs.update(X[[t]], [])
        t += 1
    with pytest.raises(DecisionError, match="must follow query"):
        qs.update(X[[t + 1]], [0])  # other candidates than the query's
    spent = qs.engine_.budget.spent_
    qs.update(X[[t]], [])  # asked for after all: no
    assert qs.engine_.budget.spent_ == spent  # refunded: the label was never bought
    assert qs.pending_ == ()
    with pytest.raises(DecisionError, match="not a queried sample"):
        qs.label(X[t], y[t])
    while True:
        t += 1
        skipped = qs.query(X[[t]], clf=clf)
        if len(skipped) == 0:
            break
        qs.update(X[[t]], skipped, y=y[[t]])
    with pytest.raises(DecisionError, match="did not choose"):
        qs.update(X[[t]], [0])
    while len(asked := qs.query(X[[t + 1]], clf=clf)) == 0:
        qs.update(X[[t + 1]], asked)
        t += 1
    before = (qs.engine_.t, len(qs.rewards_))
    with pytest.raises(UnknownLabelError):
        qs.update(X[[t + 1]], asked, y=["scrap"])
    assert (qs.engine_.t, len(qs.rewards_)) == before  # nothing was committed


# ---------------------------------------------------------------- strategies as agents
def ensemble(*extra: Any) -> CbeAL:
    agents = [("LD", LowDensityAgent(window_size=50)), ("RAL", ReinforcedAgent()), *extra]
    return CbeAL.from_agents(
        agents, estimator=LogisticRegression(solver="liblinear"), budget=30, random_state=0
    )


def test_skactiveml_strategies_join_a_cbeal_ensemble() -> None:
    d = data()
    extra = [
        ("DBAL", SkactivemlAgent(strategy="DBALStream", budget_fraction=0.1)),
        ("Split", SkactivemlAgent(strategy=Split(budget=0.2))),
    ]
    runs = [ensemble(*extra).fit(d.X0, d.y0) for _ in range(2)]
    traces = [simulate(m, d.X_stream[:200], d.y_stream[:200]) for m in runs]
    model = runs[0]
    assert model.agent_names == ("LD", "RAL", "DBAL", "Split")
    np.testing.assert_array_equal(traces[0].advice, traces[1].advice)  # seeded by the model
    for j in (2, 3):
        assert set(np.unique(traces[0].advice[:, j])) == {0.0, 1.0}
    assert 0 < model.budget_used_ <= 30
    split = model.policy_.named_agents[3][1]
    assert split.strategy_ is not split.strategy  # the template stays unfitted
    assert "budget_manager_" not in vars(split.strategy)


def test_model_files_refuse_a_fitted_skactiveml_agent(tmp_path: Path) -> None:
    d = data()
    model = ensemble(("US", SkactivemlAgent(strategy="US"))).fit(d.X0, d.y0)
    model.query_one(d.X_stream[0])
    path = tmp_path / "model.cbeal"
    with pytest.raises(ModelFileError, match=r"US \(skactiveml\).*not plain data"):
        model.save(path)
    assert not path.exists() and list(tmp_path.iterdir()) == []
    pickle.loads(pickle.dumps(model))  # pickle, the user's choice, still works


def test_strategies_that_need_more_than_probabilities_are_refused() -> None:
    from skactiveml.stream import StreamProbabilisticAL

    d = data()
    model = ensemble(("PAL", SkactivemlAgent(strategy=StreamProbabilisticAL()))).fit(d.X0, d.y0)
    with pytest.raises(ValueError, match="predict_freq"):
        model.query_one(d.X_stream[0])
