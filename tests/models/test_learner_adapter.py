"""The learner adapter's fast path for logistic regression gives scikit-learn's probabilities
bit for bit, and is used only where it was checked."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import CbeAL, make_stream
from cbeal.learners import LearnerAdapter, PlattSVC
from cbeal.learners import adapter as adapter_module


class MyLogistic(LogisticRegression):
    """A subclass may compute its probabilities differently: never the fast path."""


def _pool(n_classes: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 5))
    y = np.argmax(X[:, :n_classes] + rng.normal(scale=0.5, size=(300, n_classes)), axis=1)
    return X, y


@pytest.mark.parametrize("n_classes", [2, 3])
def test_fast_path_equals_sklearn_on_new_rows(n_classes: int) -> None:
    X, y = _pool(n_classes)
    adapter = LearnerAdapter(LogisticRegression(), np.arange(n_classes), seed=0).fit(X, y)
    assert adapter.linear_
    fresh = np.random.default_rng(1).normal(scale=3.0, size=(200, 5))
    expected = adapter.estimator_.predict_proba(fresh)
    assert np.array_equal(adapter.predict_proba(fresh), expected)
    for i in range(0, 200, 7):  # one row at a time, as a stream decides
        row = fresh[i : i + 1]
        assert np.array_equal(adapter.predict_proba(row), adapter.estimator_.predict_proba(row))


def test_fast_path_only_for_plain_logistic_regression_on_float64() -> None:
    X, y = _pool(2)
    assert not LearnerAdapter(MyLogistic(), np.arange(2), seed=0).fit(X, y).linear_
    assert not LearnerAdapter(PlattSVC(), np.arange(2), seed=0).fit(X, y).linear_
    adapter = LearnerAdapter(LogisticRegression(), np.arange(2), seed=0).fit(X, y)
    rows = X[:5].astype(np.float32)  # scikit-learn's own path takes other dtypes
    assert np.array_equal(adapter.predict_proba(rows), adapter.estimator_.predict_proba(rows))


def test_stream_decisions_unchanged_by_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    s = make_stream(n=400, pc=0.1, p=5, sp=0.0, random_state=3)

    def run() -> list[bool]:
        model = CbeAL.from_preset(
            "CBEAL-6", estimator=LogisticRegression(), budget=30, random_state=0
        )
        model.fit(s.X0, s.y0)
        out = []
        for x, y in zip(s.X_stream, s.y_stream, strict=True):
            d = model.query_one(x)
            out.append(d.acquire)
            if d.acquire:
                model.learn_one(x, y, decision=d)
        return out

    fast = run()
    monkeypatch.setattr(adapter_module, "_linear_path_matches", lambda est, X: False)
    slow = run()
    assert fast == slow
    assert 5 < sum(fast) <= 30
