"""The deficit pacer (issue 32): it waits, catches up and runs ahead; the model's budget is
the hard cap; a rate budget's token bucket bounds how far ahead it may run."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import CbeAL, make_stream, simulate
from cbeal.core import DeficitPacer, LabelCount, LabelRate, ParameterError
from cbeal.models.fusion_presets import fusion_of


def run(scores: np.ndarray, b: float = 0.1, cap: int | None = None) -> list[int]:
    pacer = DeficitPacer(budget_fraction=b, window=100).start()
    asked: list[int] = []
    for t, s in enumerate(scores):
        if pacer.decide(float(s))[2] and (cap is None or len(asked) < cap):
            pacer.acquired_one()
            asked.append(t)
    return asked


def test_it_catches_up_after_a_quiet_stretch() -> None:
    rng = np.random.default_rng(0)
    # 300 high scores, then 300 low ones the window has never seen as high, then mixed
    scores = np.concatenate([0.8 + 0.2 * rng.random(300), 0.2 * rng.random(300), rng.random(400)])
    asked = np.array(run(scores))
    quiet = ((asked >= 300) & (asked < 400)).sum()
    assert quiet <= 3  # low scores after high ones: it waits ...
    assert abs(len(asked) - 100) <= 6  # ... and has caught up by the end: b · 1000 = 100


def test_it_runs_ahead_when_the_samples_score_high_and_falls_back() -> None:
    rng = np.random.default_rng(1)
    scores = rng.random(1000)
    scores[200:220] = 1.0  # a burst of top scores
    asked = np.array(run(scores))
    lead = np.arange(1, 1001) * 0.1
    spent = np.cumsum(np.isin(np.arange(1000), asked))
    assert (spent - lead).max() >= 3  # ahead of the even schedule by several labels
    assert abs(spent[-1] - 100) <= 6  # and back on it later


def test_its_asks_are_the_high_scores_not_a_schedule() -> None:
    scores = np.random.default_rng(2).random(2000)
    asked = run(scores, b=0.05)
    assert scores[asked].mean() > 0.9
    assert len(set(np.diff(asked).tolist())) > 20


def test_parameters_are_checked() -> None:
    for bad in ({"budget_fraction": 0.0}, {"window": 1}, {"catch_up": 0}, {"floor": 1.0}):
        with pytest.raises(ParameterError):
            DeficitPacer(**bad).start()  # type: ignore[arg-type]


@pytest.mark.parametrize("burst", [0.0, 2.0, 5.0])
def test_a_rate_budgets_token_bucket_bounds_the_lead(burst: float) -> None:
    s = make_stream(n=1520, random_state=4)
    model = CbeAL.from_preset(
        "CBEAL-5F",
        estimator=LogisticRegression(),
        budget=LabelRate(rate=0.05, burst=burst),
        fusion=fusion_of("equal", pacer="deficit"),
        random_state=4,
    ).fit(s.X0, s.y0)
    trace = simulate(model, s.X_stream, s.y_stream)
    spent = np.cumsum(trace.acquired)
    allowed = np.floor(0.05 * np.arange(1, len(spent) + 1) + burst + 1e-9)
    assert (spent <= allowed).all()
    if burst:  # the pacer does use the room it is given
        assert (spent - 0.05 * np.arange(1, len(spent) + 1)).max() > 1.0


def test_a_count_is_the_hard_cap() -> None:
    s = make_stream(n=800, random_state=5)
    model = CbeAL.from_preset(
        "CBEAL-5F",
        estimator=LogisticRegression(),
        budget=LabelCount(total=12, pace=0.1),
        fusion=fusion_of("equal", pacer="deficit"),
        random_state=5,
    ).fit(s.X0, s.y0)
    trace = simulate(model, s.X_stream, s.y_stream)
    assert trace.n_acquired == 12
    assert np.flatnonzero(trace.acquired)[-1] < 400  # spent at 10 %, not spread over 800
