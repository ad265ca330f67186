"""Bad input raises a typed error that says what to do, and leaves the model unchanged."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC

from cbeal import (
    BudgetError,
    CbeAL,
    DecisionError,
    InvalidInputError,
    NotFittedError,
    SimulatedStream,
    UnknownLabelError,
    make_stream,
    simulate,
)


def fitted(stream: SimulatedStream, seed: int = 0) -> CbeAL:
    model = CbeAL.from_preset(
        "CBEAL-6", estimator=LogisticRegression(), budget=stream.budget, random_state=seed
    ).fit(stream.X0, stream.y0)
    simulate(model, stream.X_stream[:50], stream.y_stream[:50])
    return model


def snapshot(model: CbeAL) -> bytes:
    return pickle.dumps(model)


def assert_unchanged(model: CbeAL, call: Callable[[], Any], error: type, match: str) -> None:
    before = snapshot(model)
    with pytest.raises(error, match=match):
        call()
    assert snapshot(model) == before


@pytest.mark.parametrize(
    ("x", "match"),
    [
        ("nan", "NaN or infinite"),
        ("inf", "NaN or infinite"),
        ("short", "features, but cbeal is expecting 15 features"),
        ("matrix", "one sample"),
        ("strings", "must be numeric"),
    ],
)
def test_query_one_bad_sample(stream: SimulatedStream, x: str, match: str) -> None:
    model = fitted(stream)
    bad = {
        "nan": np.r_[np.nan, stream.X_test[0, 1:]],
        "inf": np.r_[np.inf, stream.X_test[0, 1:]],
        "short": stream.X_test[0, :14],
        "matrix": stream.X_test[:2],
        "strings": np.array(["a"] * 15),
    }[x]
    assert_unchanged(model, lambda: model.query_one(bad), InvalidInputError, match)


def _acquire(model: CbeAL, stream: SimulatedStream) -> tuple[np.ndarray, Any, Any]:
    for x, y in zip(stream.X_stream[50:], stream.y_stream[50:], strict=True):
        d = model.query_one(x)
        if d.acquire:
            return x, y, d
    raise AssertionError("no acquisition")


def test_learn_unknown_label(stream: SimulatedStream) -> None:
    model = fitted(stream)
    x, _, d = _acquire(model, stream)
    assert_unchanged(
        model,
        lambda: model.learn_one(x, 7, decision=d),
        UnknownLabelError,
        "not one of the model's classes",
    )
    assert_unchanged(
        model, lambda: model.learn_one(x, "1", decision=d), UnknownLabelError, "classes="
    )


def test_learn_not_an_acquisition(stream: SimulatedStream) -> None:
    model = fitted(stream)
    for x in stream.X_stream[50:]:
        d = model.query_one(x)
        if not d.acquire:
            break
    assert_unchanged(
        model, lambda: model.learn_one(x, 0, decision=d), DecisionError, "did not acquire"
    )


def test_learn_twice(stream: SimulatedStream) -> None:
    model = fitted(stream)
    x, y, d = _acquire(model, stream)
    model.learn_one(x, y, decision=d)
    assert_unchanged(
        model, lambda: model.learn_one(x, y, decision=d), DecisionError, "already labelled"
    )


def test_learn_foreign_decision(stream: SimulatedStream) -> None:
    model, other = fitted(stream, 0), fitted(stream, 1)
    x, y, d = _acquire(other, stream)
    assert_unchanged(
        model, lambda: model.learn_one(x, y, decision=d), DecisionError, "another model"
    )
    assert_unchanged(
        model, lambda: model.learn_one(x, y, decision="#3"), DecisionError, "not a decision id"
    )
    assert_unchanged(
        model,
        lambda: model.learn_one(x, y, decision=3),
        DecisionError,
        "Decision returned by query_one, its to_dict\\(\\) or its id",
    )


def test_learn_wrong_sample(stream: SimulatedStream) -> None:
    model = fitted(stream)
    x, y, d = _acquire(model, stream)
    assert_unchanged(
        model,
        lambda: model.learn_one(x + 1, y, decision=d),
        InvalidInputError,
        "not the sample of decision",
    )


def test_refit_invalidates_old_decisions(stream: SimulatedStream) -> None:
    model = fitted(stream)
    x, y, d = _acquire(model, stream)
    model.fit(stream.X0, stream.y0)
    with pytest.raises(DecisionError, match="another model"):
        model.learn_one(x, y, decision=d)


@pytest.mark.parametrize("budget", [0, -3, 2.5, "ten", True, "150%", None, float("nan")])
def test_bad_budget(stream: SimulatedStream, budget: Any) -> None:
    model = CbeAL.from_preset("CBEAL-6", estimator=LogisticRegression(), budget=budget)
    with pytest.raises(BudgetError, match="at least 1|cannot read|number of labels|percent"):
        model.fit(stream.X0, stream.y0)
    assert not hasattr(model, "policy_")


def test_fit_errors_leave_fitted_model_unchanged(stream: SimulatedStream) -> None:
    model = fitted(stream)
    X0, y0 = stream.X0, stream.y0
    cases = [
        (lambda: model.fit(X0[:0], y0[:0]), InvalidInputError, "D0 is empty"),
        (lambda: model.fit(X0, y0[:-1]), InvalidInputError, "mismatched lengths"),
        (lambda: model.fit(np.where(X0 > 1, np.nan, X0), y0), InvalidInputError, "NaN"),
        (lambda: model.fit(X0[:, 0], y0), InvalidInputError, "2-D"),
        (lambda: model.fit(X0.astype(str).astype(object) + "x", y0), InvalidInputError, "numeric"),
    ]
    for call, error, match in cases:
        assert_unchanged(model, call, error, match)


def test_d0_label_outside_declared_classes(stream: SimulatedStream) -> None:
    model = CbeAL.from_preset(
        "CBEAL-2", estimator=LogisticRegression(), budget=5, classes=["ok", "bad"]
    )
    with pytest.raises(UnknownLabelError):
        model.fit(stream.X0, stream.y0)


def test_not_fitted() -> None:
    model = CbeAL.from_preset("CBEAL-2", estimator=LogisticRegression(), budget=5)
    with pytest.raises(NotFittedError, match="call fit"):
        model.query_one(np.zeros(3))
    with pytest.raises(NotFittedError):
        model.predict(np.zeros((1, 3)))


def test_estimator_without_predict_proba(stream: SimulatedStream) -> None:
    model = CbeAL.from_preset("CBEAL-2", estimator=SVC(), budget=5)
    with pytest.raises(TypeError, match="PlattSVC"):
        model.fit(stream.X0, stream.y0)


def test_bad_options(stream: SimulatedStream) -> None:
    for kw, match in [
        ({"penalty": 0.5}, "negative"),
        ({"refit_every": 0}, "refit_every"),
        ({"epsilon": 1.0}, "epsilon"),
    ]:
        model = CbeAL.from_preset("CBEAL-2", estimator=LogisticRegression(), budget=5, **kw)
        with pytest.raises(ValueError, match=match):
            model.fit(stream.X0, stream.y0)
    with pytest.raises(ValueError, match="unknown preset"):
        CbeAL.from_preset("CBEAL-5", estimator=LogisticRegression(), budget=5)
    with pytest.raises(TypeError, match="not a cbeal Agent"):
        CbeAL.from_agents([object(), "RAL1"], estimator=LogisticRegression(), budget=5).fit(
            stream.X0, stream.y0
        )
    with pytest.raises(ValueError, match="unknown agent 'LD9'; did you mean"):
        CbeAL.from_agents(["LD9", "RAL1"], estimator=LogisticRegression(), budget=5)


def test_simulate_validates_before_touching_the_model(stream: SimulatedStream) -> None:
    model = fitted(stream)
    X, y = stream.X_stream[50:80], stream.y_stream[50:80].copy()
    y[-1] = 5
    assert_unchanged(model, lambda: simulate(model, X, y), UnknownLabelError, "5")
    assert_unchanged(model, lambda: simulate(model, X, y[:-2]), InvalidInputError, "mismatched")
    y[-1] = 0
    assert_unchanged(model, lambda: simulate(model, X, y, delay=-1), ValueError, "delay")


def test_predict_bad_shape(stream: SimulatedStream) -> None:
    model = fitted(stream)
    with pytest.raises(InvalidInputError, match=r"Reshape your data with X.reshape\(1, -1\)"):
        model.predict(stream.X_test[0])
    s2 = make_stream(n=100, p=4, sp=0.0, random_state=0)
    with pytest.raises(InvalidInputError, match="4 features"):
        model.predict_proba(s2.X_test)
