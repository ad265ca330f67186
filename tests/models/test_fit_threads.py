"""Fits run with BLAS/OpenMP pinned to one thread unless CBEAL_FIT_THREADS says otherwise."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_info, threadpool_limits

from cbeal import CbeAL, ParameterError, make_stream
from cbeal.learners.adapter import FIT_THREADS_ENV, LearnerAdapter

SEEN: list[list[int]] = []


class Recording(LogisticRegression):
    """A logistic regression that records the thread pools' sizes while it fits."""

    def fit(self, X, y, sample_weight=None):  # type: ignore[no-untyped-def]
        SEEN.append([pool["num_threads"] for pool in threadpool_info()])
        return super().fit(X, y, sample_weight=sample_weight)


def _fit_once() -> list[int]:
    SEEN.clear()
    s = make_stream(n=40, random_state=0)
    LearnerAdapter(Recording(), np.array([0, 1]), 0).fit(s.X0, s.y0)
    return SEEN[-1]


@pytest.fixture
def two_threads():  # the libraries' pools at two threads outside the fit, whatever the machine
    with threadpool_limits(limits=2):
        before = [pool["num_threads"] for pool in threadpool_info()]
        yield before


def test_a_fit_runs_on_one_thread_and_restores_the_pools(two_threads, monkeypatch) -> None:
    monkeypatch.delenv(FIT_THREADS_ENV, raising=False)
    assert two_threads and max(two_threads) == 2
    assert _fit_once() == [1] * len(two_threads)
    assert [pool["num_threads"] for pool in threadpool_info()] == two_threads


def test_the_environment_asks_for_more_threads_or_the_default(two_threads, monkeypatch) -> None:
    monkeypatch.setenv(FIT_THREADS_ENV, "3")
    assert _fit_once() == [3] * len(two_threads)
    monkeypatch.setenv(FIT_THREADS_ENV, "all")
    assert _fit_once() == two_threads


@pytest.mark.parametrize("bad", ["0", "-1", "two"])
def test_a_bad_setting_is_refused_naming_the_variable(bad, monkeypatch) -> None:
    monkeypatch.setenv(FIT_THREADS_ENV, bad)
    with pytest.raises(ParameterError, match=FIT_THREADS_ENV):
        _fit_once()


def test_overlapping_fits_in_threads_leave_the_pools_as_they_were(two_threads, monkeypatch) -> None:
    monkeypatch.delenv(FIT_THREADS_ENV, raising=False)
    s = make_stream(n=300, random_state=1)
    model = CbeAL.from_preset(estimator=Recording(), budget=0.2, random_state=0)
    model.fit(s.X0, s.y0)
    for x, y in zip(s.X_stream[:100], s.y_stream[:100], strict=True):
        d = model.query_one(x)
        if d.acquire:
            model.learn_one(None, y, decision=d)
    SEEN.clear()
    errors: list[BaseException] = []

    def refit() -> None:
        try:
            for _ in range(5):
                model.train_learner()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    workers = [threading.Thread(target=refit) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors
    assert len(SEEN) == 15 and all(seen == [1] * len(two_threads) for seen in SEEN)
    assert [pool["num_threads"] for pool in threadpool_info()] == two_threads
