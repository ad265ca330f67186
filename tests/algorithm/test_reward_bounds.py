"""Reward and penalty are bounded, the bandit's arithmetic is total, and a label whose
update fails stays pending (issue 21, finding 15: ``reward=1e308, penalty=-1e308`` was
accepted, and a later ``learn_one`` raised ZeroDivisionError after the decision had left
the pending ones, so the label was lost)."""

from __future__ import annotations

import math
import sys
from typing import Any, ClassVar

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import CbeAL, ParameterError, SimulatedStream, SingleAgentLearner, simulate
from cbeal.baselines import UncertaintyAgent
from cbeal.core import Agent, Context, Exp4P
from cbeal.core.validation import MAX_REWARD, check_rewards


@pytest.mark.parametrize(
    ("reward", "penalty", "match"),
    [
        (1e308, -1e308, r"reward ρ\+ must be a number in \(0, 100\], got 1e\+308"),
        (100.5, -0.5, r"reward ρ\+ .* got 100.5"),
        (1.0, -1e308, r"penalty ρ− must be a number in \[-100, 0\), got -1e\+308"),
        (1.0, 0.0, r"penalty ρ− .* got 0.0"),
        (True, -0.5, r"reward ρ\+ .* got True"),
        ("1", -0.5, r"reward ρ\+ .* got '1'"),
        (float("nan"), -0.5, r"reward ρ\+ .* got nan"),
    ],
)
def test_rewards_out_of_bounds_are_refused_at_fit(
    stream: SimulatedStream, reward: Any, penalty: Any, match: str
) -> None:
    for model in (
        CbeAL.from_preset(
            "CBEAL-6", estimator=LogisticRegression(), budget=20, reward=reward, penalty=penalty
        ),
        SingleAgentLearner(
            agent=UncertaintyAgent(),
            estimator=LogisticRegression(),
            budget=20,
            reward=reward,
            penalty=penalty,
        ),
    ):
        with pytest.raises(ParameterError, match=match) as info:
            model.fit(stream.X0, stream.y0)
        assert "raise the solver's step eta" in str(info.value)  # says what to do
        assert "policy_" not in model.__dict__


def test_the_bounds_themselves_run_a_whole_stream(stream: SimulatedStream) -> None:
    assert check_rewards(np.float32(2), -MAX_REWARD) == (2.0, -100.0)
    model = CbeAL.from_preset(
        "CBEAL-6", estimator=LogisticRegression(), budget=80, random_state=1,
        reward=MAX_REWARD, penalty=-MAX_REWARD, solver=Exp4P(eta=1.0),
    ).fit(stream.X0, stream.y0)  # fmt: skip
    simulate(model, stream.X_stream, stream.y_stream)
    w = model.weights_
    assert np.isfinite(w).all() and (w > 0).all() and abs(w.sum() - 1) < 1e-9
    assert 0 < model.n_labels_ <= 80 and not model.pending


def test_exp4p_weights_stay_positive_at_any_reward() -> None:
    """The solver is a public component without the models' bounds: its weights must
    neither all underflow (the ZeroDivisionError of finding 15) nor overflow."""
    rng = np.random.default_rng(3)
    for trial in range(400):
        reward = 10 ** rng.uniform(-6, 308)
        penalty = -(10 ** rng.uniform(-6, 308))
        solver = Exp4P(horizon=int(10 ** rng.uniform(1, 6)), eta=[None, 1.0, 10.0][trial % 3])
        solver.start(int(rng.integers(2, 8)))
        for _ in range(150):
            advice = rng.integers(0, 2, solver.n_agents_).astype(float)
            p = solver.distribution(advice)
            solver.update_decision(advice, p)
            if rng.random() < p:
                solver.update_reward(advice, p, reward if rng.random() < 0.5 else penalty)
            solver.chart_step()
        alpha = solver.alpha_
        assert np.isfinite(alpha).all() and (alpha > 0).all(), (trial, alpha)
        assert math.isfinite(solver.distribution(advice))


class FlakyAgent(Agent):
    """Asks for everything; fails to learn from rewards while ``broken`` is set."""

    kind: ClassVar[str] = "exploration"
    broken: ClassVar[bool] = False

    def __init__(self) -> None:
        pass

    def _start(self, X0: np.ndarray) -> None:
        self.rewards_: list[float] = []

    def advise_one(self, ctx: Context) -> float:
        return 1.0

    def reward_one(self, advice: float, reward: float, penalty: float) -> None:
        if FlakyAgent.broken:
            raise RuntimeError("the agent's store is unavailable")
        self.rewards_.append(reward)


def test_a_label_whose_update_fails_stays_pending(stream: SimulatedStream) -> None:
    model = CbeAL.from_agents(
        [("flaky", FlakyAgent()), ("ral", UncertaintyAgent())],
        estimator=LogisticRegression(), budget=10, random_state=0,
    ).fit(stream.X0, stream.y0)  # fmt: skip
    i, d = next((i, d) for i, x in enumerate(stream.X_stream) if (d := model.query_one(x)).acquire)
    FlakyAgent.broken = True
    try:
        with pytest.raises(RuntimeError, match="unavailable") as info:
            model.learn_one(None, stream.y_stream[i], decision=d.id)
    finally:
        FlakyAgent.broken = False
    if sys.version_info >= (3, 11):  # the error says so
        assert f"decision {d.id} is still pending" in "".join(info.value.__notes__)
    assert [p.id for p in model.pending] == [d.id] and model.n_labels_ == 0
    assert len(model.labelled_pool[1]) == len(stream.y0)
    model.learn_one(None, stream.y_stream[i], decision=d.id)  # the retry delivers it
    assert not model.pending and model.n_labels_ == 1
    assert len(model.labelled_pool[1]) == len(stream.y0) + 1


def test_rewards_set_on_a_fitted_model_are_checked_where_used(stream: SimulatedStream) -> None:
    model = CbeAL.from_preset(
        "CBEAL-6", estimator=LogisticRegression(), budget=10, random_state=0
    ).fit(stream.X0, stream.y0)
    i, d = next((i, d) for i, x in enumerate(stream.X_stream) if (d := model.query_one(x)).acquire)
    model.set_params(reward=1e308, penalty=-1e308)  # live parameters, read at every label
    with pytest.raises(ParameterError, match=r"\(0, 100\]"):
        model.reward_of(d, stream.y_stream[i])
    with pytest.raises(ParameterError, match=r"\(0, 100\]"):
        model.learn_one(None, stream.y_stream[i], decision=d)
    assert [p.id for p in model.pending] == [d.id]
    model.set_params(reward=2.0, penalty=-1.0)
    assert model.reward_of(d, stream.y_stream[i]) in (2.0, -1.0)
    model.learn_one(None, stream.y_stream[i], decision=d)
    assert model.n_labels_ == 1
