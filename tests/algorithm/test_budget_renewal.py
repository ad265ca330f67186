"""A fitted model continues with a new budget (``renew_budget``, ``set_params(budget=…)``):
counted from the next sample, never exceeded, pending labels accounted for, pacing agents
re-paced, and no parameter silently ignored."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import CbeAL, SimulatedStream, simulate
from cbeal.checks import yield_checks
from cbeal.core import RATE_BURST, BudgetError, LabelRate, ParameterError
from cbeal.models.renewal import RenewedBudget


def model_after(stream: SimulatedStream, budget: object, n: int, preset: str = "CBEAL-6") -> CbeAL:
    """A model that has streamed the first `n` samples (labels delivered at once)."""
    model = CbeAL.from_preset(preset, estimator=LogisticRegression(), budget=budget, random_state=2)
    model.fit(stream.X0, stream.y0)
    simulate(model, stream.X_stream[:n], stream.y_stream[:n])
    return model


def paced(model: CbeAL) -> dict[str, float]:
    return {
        n: a.budget_fraction for n, a in model.policy_.named_agents if hasattr(a, "budget_fraction")
    }


def test_a_count_gives_that_many_more_labels_from_the_next_sample(
    stream: SimulatedStream,
) -> None:
    model = model_after(stream, 12, 200)
    assert model.budget_left == 0 and model.budget_used_ == 12
    model.renew_budget(7)
    assert model.budget_left == 7 and model.budget_used_ == 0
    trace = simulate(model, stream.X_stream[200:], stream.y_stream[200:])
    assert trace.n_acquired == 7 and model.budget_left == 0  # spent, and not one more
    assert model.n_labels_ == 19


def test_a_rate_is_paced_from_the_renewal_not_from_the_start(stream: SimulatedStream) -> None:
    model = model_after(stream, 10, 300)
    # a strict rate: from the start, 5 % of 300 samples would allow 15 at once
    model.renew_budget(LabelRate(rate=0.05))
    trace = simulate(model, stream.X_stream[300:], stream.y_stream[300:])
    t = np.arange(1, len(trace) + 1)
    assert np.all(np.cumsum(trace.acquired) <= np.floor(0.05 * t + 1e-9))
    assert not trace.acquired[:19].any() and trace.n_acquired >= 3
    # "5%": the same, at most RATE_BURST labels ahead
    model = model_after(stream, 10, 300)
    model.renew_budget("5%")
    trace = simulate(model, stream.X_stream[300:], stream.y_stream[300:])
    spent = np.cumsum(trace.acquired)
    assert np.all(spent <= np.floor(0.05 * t + RATE_BURST + 1e-9)) and spent[18] <= RATE_BURST


def test_pending_labels_stay_with_the_budget_that_ends(stream: SimulatedStream) -> None:
    model = CbeAL.from_preset(
        "CBEAL-6", estimator=LogisticRegression(), budget=3, random_state=2
    ).fit(stream.X0, stream.y0)
    asked = [
        (i, d) for i, x in enumerate(stream.X_stream[:200]) if (d := model.query_one(x)).acquire
    ]
    assert len(asked) == 3 and model.budget_left == 0  # three labels pending
    model.renew_budget(2)
    (i, first), (_, second), _ = asked
    model.learn_one(None, stream.y_stream[i], decision=first)  # an old label still arrives
    model.cancel(second)  # and a cancelled one refunds nothing to the new budget
    assert model.budget_left == 2 and model.budget_used_ == 0
    after = [model.query_one(x) for x in stream.X_stream[200:]]
    assert sum(d.acquire for d in after) == 2 and len(model.pending) == 3


def test_pacing_agents_follow_the_new_share(stream: SimulatedStream) -> None:
    model = model_after(stream, 0.1, 100, preset="CBEAL-4U")
    assert paced(model) == {"ENT": 0.1, "VU": 0.1}
    model.renew_budget("2%")
    assert paced(model) == {"ENT": 0.02, "VU": 0.02}
    templates = {n: a.budget_fraction for n, a in model.agents if hasattr(a, "budget_fraction")}
    assert templates == {"ENT": 0.02, "VU": 0.02}  # a later fit starts with the same pace
    model.renew_budget(40)  # a count over an unknown number of parts: the pace stays
    assert paced(model) == {"ENT": 0.02, "VU": 0.02}
    model.renew_budget(40, budget_fraction=0.05)
    assert paced(model) == {"ENT": 0.05, "VU": 0.05}
    with pytest.raises(ParameterError, match="budget_fraction must be the share"):
        model.renew_budget(40, budget_fraction=2.0)


def test_set_params_budget_on_a_fitted_model_renews_it(stream: SimulatedStream) -> None:
    model = model_after(stream, 12, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: a budget applies at once
        assert model.set_params(budget=4) is model
    assert model.budget_left == 4 and model.budget == 4
    before = pickle.dumps(model)
    with pytest.raises(BudgetError, match="cannot read the budget"):
        model.set_params(budget="lots", refit_every=3)
    assert pickle.dumps(model) == before  # a bad budget changes nothing


def test_a_parameter_fixed_at_fit_says_it_waits_for_the_next_fit(stream: SimulatedStream) -> None:
    model = model_after(stream, 12, 50)
    with pytest.warns(UserWarning, match="epsilon, estimator of this fitted CbeAL only take"):
        model.set_params(estimator__C=0.1, epsilon=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # read at every step: they apply at once
        model.set_params(refit_every=3, reward=2.0, penalty=-1.0)
        CbeAL.from_preset(budget=0.1, estimator=LogisticRegression()).set_params(epsilon=0.3)


def test_a_renewed_model_is_saved_and_continues_identically(
    stream: SimulatedStream, tmp_path: object
) -> None:
    model = model_after(stream, 12, 200)
    model.renew_budget("10%")
    copy = CbeAL.from_bytes(model.to_bytes())
    a = simulate(model, stream.X_stream[200:], stream.y_stream[200:])
    b = simulate(copy, stream.X_stream[200:], stream.y_stream[200:])
    np.testing.assert_array_equal(a.acquired, b.acquired)
    assert str(copy.budget_) == "10% of samples (up to 5 labels ahead) from sample 201 on"


@pytest.mark.parametrize(
    "check", yield_checks(RenewedBudget(budget=20, after=100)), ids=lambda c: c.convention
)
def test_the_renewed_budget_follows_the_conventions(check: object) -> None:
    check(RenewedBudget(budget=20, after=100))  # type: ignore[operator]


def _asks_after_renewal(how: str) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The recommended preset streams 1,000 parts at 5 %, is renewed (`how`), then sees
    1,000 more: the parts asked for after the renewal, and every part's fused score."""
    from cbeal import make_stream

    s = make_stream(n=2100, random_state=5)
    model = CbeAL.from_preset(estimator=LogisticRegression(), budget=0.05, random_state=5)
    model.fit(s.X0, s.y0)
    simulate(model, s.X_stream[:1000], s.y_stream[:1000])
    if how == "renew":
        model.renew_budget(0.05)
    elif how == "set_params":
        model.set_params(budget="5%")
    else:  # saved, loaded, then renewed
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory() as tmp:
            model.save(Path(tmp) / "m.cbeal")
            model = CbeAL.load(Path(tmp) / "m.cbeal")
        model.renew_budget("5%")
    asked, scores = [], []
    for i in range(1000, 2000):
        d = model.query_one(s.X_stream[i])
        scores.append(d.score)
        if d.acquire:
            asked.append(i)
            model.learn_one(s.X_stream[i], s.y_stream[i], decision=d)
    score = np.array(scores)
    return asked, score[np.array(asked) - 1000], score


@pytest.mark.parametrize("how", ["renew", "set_params", "loaded"])
def test_after_a_renewal_the_recommended_preset_still_chooses_by_the_scores(how: str) -> None:
    # issue 32: renew_budget(0.05) used to leave fusion's pacer on the old budget's account,
    # and the cap alone picked the parts: every 20th, all gaps equal
    asked, asked_scores, scores = _asks_after_renewal(how)
    assert 40 <= len(asked) <= 55
    gaps = np.diff(asked)
    assert len(set(gaps.tolist())) > 5, f"periodic asks: gaps {sorted(set(gaps.tolist()))}"
    assert asked_scores.mean() > scores.mean() + 0.1
    assert asked_scores.mean() > np.quantile(scores, 0.75)
