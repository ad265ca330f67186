"""Conventions of budgets and stream models."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np

from cbeal.checks._base import check, features
from cbeal.core.budget import Budget
from cbeal.core.exceptions import NotFittedError

__all__ = ["BUDGET_CHECKS", "MODEL_CHECKS"]


@check("a budget never lets more labels be spent than it has left, and refunds restore it")
def check_budget_accounting(budget: Budget) -> None:
    b = budget.clone().start()
    assert b.spent_ == 0, "start() must reset the labels spent"
    for t in range(1, 400):
        left = b.left(t)
        assert isinstance(left, int) and left >= 0, f"left({t}) = {left!r}"
        assert b.allows(t) == (left >= 1), f"allows({t}) disagrees with left({t}) = {left}"
        if b.allows(t):
            b.spend(t)
            assert b.left(t) == left - 1, "spending one label must lower left() by one"
        else:
            assert isinstance(b.reason, str) and b.reason, "a refusal needs a reason"
    spent = b.spent_
    assert spent > 0, "the budget never allowed a label in 400 samples"
    b.refund(399)
    assert b.spent_ == spent - 1, "refund must give back one label"


# ---------------------------------------------------------------- stream models
def _data() -> tuple[np.ndarray, np.ndarray]:
    X = features(n=160)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0.3).astype(int)
    y[:2] = [0, 1]  # D0 holds both classes
    return X, y


def _stream(model: Any, X: np.ndarray, y: np.ndarray) -> list[tuple[bool, float]]:
    out = []
    for x, label in zip(X, y, strict=True):
        d = model.query_one(x)
        out.append((d.acquire, d.p_acquire))
        if d.acquire:
            model.learn_one(None, label, decision=d)
    return out


@check("a stream model refuses to decide before fit")
def check_model_not_fitted(model: Any) -> None:
    X, _ = _data()
    try:
        model.clone().query_one(X[0])
    except NotFittedError:
        return
    raise AssertionError("query_one before fit must raise cbeal.NotFittedError")


@check("the same seed gives the same decisions, and fit resets all state")
def check_model_seeded_and_reset(model: Any) -> None:
    X, y = _data()
    a = model.clone().fit(X[:10], y[:10])
    head = _stream(a, X[10:80], y[10:80])
    assert any(acq for acq, _ in head), "the model never acquired a label in 70 samples"
    b = model.clone().fit(X[:10], y[:10])
    assert _stream(b, X[10:80], y[10:80]) == head, "two runs with the same seed differ"
    assert _stream(a.fit(X[:10], y[:10]), X[10:80], y[10:80]) == head, "refit differs"


@check("a pickled or saved model continues exactly where it stopped")
def check_model_continues(model: Any) -> None:
    X, y = _data()
    m = model.clone().fit(X[:10], y[:10])
    _stream(m, X[10:80], y[10:80])
    copies = [pickle.loads(pickle.dumps(m)), type(m).from_bytes(m.to_bytes())]
    expected = _stream(m, X[80:], y[80:])
    for how, twin in zip(("pickle", "model file"), copies, strict=True):
        assert _stream(twin, X[80:], y[80:]) == expected, f"the {how} copy decides otherwise"


BUDGET_CHECKS = [check_budget_accounting]
MODEL_CHECKS = [check_model_not_fitted, check_model_seeded_and_reset, check_model_continues]
