"""Regression streams (issue 20): learners with a spread, agents, reward, refusals, metrics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.linear_model import BayesianRidge, LinearRegression, LogisticRegression
from sklearn.tree import DecisionTreeRegressor

from cbeal import CbeAL, SingleAgentLearner, TaskError, simulate
from cbeal.baselines import RandomAgent
from cbeal.catalog import agent
from cbeal.core import Context, ReinforcedSpreadAgent, ScoreFusion, SpaceFillingAgent
from cbeal.core.exceptions import InvalidInputError, ParameterError
from cbeal.core.regression import in_band_probability, regression_reward
from cbeal.evaluation.regression import labels_to_reach
from cbeal.learners import BootstrapRegressor, QuantilePairRegressor


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.normal(size=400)
    return X, y


def _single(agent_: object, **kw: object) -> SingleAgentLearner:
    params = {"estimator": BayesianRidge(), "budget": 0.1, "tolerance": 0.15, "random_state": 0}
    params.update(kw)
    return SingleAgentLearner(agent=agent_, **params)  # type: ignore[arg-type]


def test_reward_is_the_tolerance_band_or_the_graded_normalized_error() -> None:
    assert regression_reward(1.2, 1.0, 0.1, "band", 1.0, -0.5) == 1.0  # off by 2 tol
    assert regression_reward(1.05, 1.0, 0.1, "band", 1.0, -0.5) == -0.5
    graded = [regression_reward(1.0 + e * 0.1, 1.0, 0.1, "normalized", 1.0, -0.5)
              for e in (0.0, 0.5, 1.0, 1.5, 2.0, 5.0)]  # fmt: skip
    assert graded == pytest.approx([-0.5, -0.25, 0.0, 0.5, 1.0, 1.0])
    assert in_band_probability(0.0, 1.0, 1.0) == pytest.approx(0.682689, abs=1e-6)


@pytest.mark.parametrize(
    "estimator",
    [
        BayesianRidge(),
        GaussianProcessRegressor(),
        BootstrapRegressor(LinearRegression()),
        QuantilePairRegressor(),
    ],
    ids=["bayesridge", "gp", "bootstrap", "quantile-pair"],
)
def test_every_spread_learner_runs_a_stream_within_budget(
    data: tuple[np.ndarray, np.ndarray], estimator: object
) -> None:
    X, y = data
    model = _single(ReinforcedSpreadAgent(theta0=0.9), estimator=estimator, budget=15)
    trace = simulate(model.fit(X[:20], y[:20]), X[20:150], y[20:150])
    assert 0 < trace.n_acquired <= 15 and model.n_labels_ == trace.n_acquired
    mean, std = model.predict_spread(X[:5])
    assert mean.shape == std.shape == (5,) and (std > 0).all()
    np.testing.assert_array_equal(model.predict(X[:5]), mean)
    pool_X, pool_y = model.labelled_pool
    assert pool_y.dtype == np.float64 and pool_X.shape[0] == 20 + trace.n_acquired
    s = trace.summary()
    assert s["prequential_rmse"] > 0 and 0 <= s["prequential_in_band"] <= 1


def test_reward_and_decision_follow_the_band(data: tuple[np.ndarray, np.ndarray]) -> None:
    X, y = data
    model = _single(RandomAgent(rate=1.0), budget=50).fit(X[:20], y[:20])
    d = model.query_one(X[30])
    assert d.acquire and d.classes == ("within tolerance", "outside tolerance")
    mean, std = model.predict_spread(X[30:31])
    assert d.y_pred == pytest.approx(mean[0])
    assert d.certainty == pytest.approx(math.erf(0.15 / (std[0] * math.sqrt(2))))
    far = d.y_pred + 1.0
    assert model.reward_of(d, far) == 1.0 and model.reward_of(d, d.y_pred) == -0.5
    model.learn_one(None, far, decision=d)
    assert model.labelled_pool[1][-1] == far


def test_ral_for_regression_reinforces_its_threshold(data: tuple[np.ndarray, np.ndarray]) -> None:
    X, y = data
    agent_ = ReinforcedSpreadAgent(theta0=0.95, eta=0.05)
    model = _single(agent_, budget=100, tolerance=0.01).fit(X[:20], y[:20])
    simulate(model, X[20:60], y[20:60])  # noise 0.1 ≫ tol: every part is a miss
    assert model.policy_.agent_.theta_ > 0.95


def test_fusion_and_voting_work_with_regression_agents(
    data: tuple[np.ndarray, np.ndarray],
) -> None:
    X, y = data
    agents = [("RALR1", agent("RALR1")), ("QBCR", agent("QBCR")), ("EMCM", agent("EMCM")),
              ("SPF1", SpaceFillingAgent(window_size=30))]  # fmt: skip
    common = {"estimator": BayesianRidge(), "tolerance": 0.15, "random_state": 1}
    fused = CbeAL(agents=agents, budget=0.1, fusion=ScoreFusion(), epsilon=0.0, **common)
    voted = CbeAL(agents=agents, budget=20, **common)
    for model in (fused, voted):
        trace = simulate(model.fit(X[:20], y[:20]), X[20:300], y[20:300])
        assert 0 < trace.n_acquired <= 28
        assert trace.advice.min() >= 0 and trace.advice.max() <= 1


def test_classifier_only_options_are_refused_with_a_typed_error(
    data: tuple[np.ndarray, np.ndarray],
) -> None:
    X, y = data
    with pytest.raises(TaskError, match="ENT, RAL1 need a classifier's class probabilities"):
        CbeAL.from_agents(["RAL1", "ENT"], estimator=BayesianRidge(), budget=0.1,
                          tolerance=0.1).fit(X[:20], y[:20])  # fmt: skip
    with pytest.raises(TaskError, match="leave classes unset"):
        _single(RandomAgent(), classes=[0, 1]).fit(X[:20], y[:20])
    with pytest.raises(TaskError, match="BootstrapRegressor"):
        _single(RandomAgent(), estimator=DecisionTreeRegressor()).fit(X[:20], y[:20])
    suggested = f"e.g. tolerance={0.25 * np.std(y[:20], ddof=1):.3g} "  # on the data's scale
    with pytest.raises(ParameterError, match=suggested.replace(".", r"\.")):
        _single(RandomAgent(), tolerance=None).fit(X[:20], y[:20])
    labels = (y[:20] > 0).astype(int)
    with pytest.raises(TaskError, match="leave tolerance unset"):
        _single(RandomAgent(), estimator=LogisticRegression()).fit(X[:20], labels)
    with pytest.raises(TaskError, match="RALR1 score a regressor's predictive spread"):
        CbeAL.from_agents(["RALR1", "SPF1"], estimator=LogisticRegression(),
                          budget=0.1).fit(X[:20], labels)  # fmt: skip
    model = _single(ReinforcedSpreadAgent()).fit(X[:20], y[:20])
    with pytest.raises(TaskError, match="predict_spread"):
        model.predict_proba(X[:2])
    asking = _single(RandomAgent(rate=1.0), budget=5).fit(X[:20], y[:20])
    with pytest.raises(InvalidInputError, match="measured value"):
        asking.learn_one(None, "high", decision=asking.query_one(X[0]))
    assert isinstance(TaskError("x"), ParameterError)
    with pytest.raises(TaskError):
        ReinforcedSpreadAgent().fit(X[:5]).advise_one(Context(X[0], np.array([0.5, 0.5])))


def test_same_seed_same_regression_run(data: tuple[np.ndarray, np.ndarray]) -> None:
    X, y = data
    runs = [
        simulate(
            CbeAL.from_agents(["RALR1", "QBCR", "LD1"], estimator=BayesianRidge(), budget=15,
                              tolerance=0.15, random_state=3).fit(X[:20], y[:20]),
            X[20:200], y[20:200],
        ).acquired
        for _ in range(2)
    ]  # fmt: skip
    np.testing.assert_array_equal(*runs)


def test_labels_to_reach_needs_the_curve_to_stay_below_the_target() -> None:
    assert labels_to_reach([0, 5, 10], [1.0, 0.4, 0.6], 0.5) is None
    assert labels_to_reach([0, 5, 10], [1.0, 0.4, 0.45], 0.5) == 5


def test_normalized_reward_reaches_the_model(data: tuple[np.ndarray, np.ndarray]) -> None:
    X, y = data
    model = _single(RandomAgent(rate=1.0), budget=5, regression_reward="normalized")
    d = model.fit(X[:20], y[:20]).query_one(X[0])
    assert model.reward_of(d, d.y_pred + 0.15 * 1.5) == pytest.approx(0.5)
    assert model.reward_of(d, d.y_pred) == pytest.approx(-0.5)
    with pytest.raises(ParameterError, match="regression_reward"):
        _single(RandomAgent(), regression_reward="squared").fit(X[:20], y[:20])


def test_plot_band_draws_the_band_and_refuses_a_classifier_trace(
    data: tuple[np.ndarray, np.ndarray],
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from cbeal.plotting import plot_band

    X, y = data
    model = _single(RandomAgent(rate=0.2), budget=20).fit(X[:20], y[:20])
    trace = simulate(model, X[20:120], y[20:120])
    fig, ax = plt.subplots()
    plot_band(trace, ax)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert ax.patches and labels[0] == "tolerance ± 0.15" and "within tolerance" in ax.get_title()
    assert labels[-1] == f"asked for ({trace.n_acquired})"
    plt.close(fig)
    trace.metadata.pop("tolerance")
    with pytest.raises(ValueError, match="regressor"):
        plot_band(trace)


@pytest.mark.parametrize("estimator", [BayesianRidge(), BootstrapRegressor(LinearRegression())])
def test_a_saved_regression_model_continues_exactly(
    data: tuple[np.ndarray, np.ndarray], estimator: object, tmp_path: object
) -> None:
    X, y = data
    model = CbeAL.from_agents(["RALR1", "QBCR", "SPF1"], estimator=estimator, budget=25,
                              tolerance=0.15, random_state=2).fit(X[:20], y[:20])  # fmt: skip
    simulate(model, X[20:150], y[20:150], delay=5)
    path = model.save(tmp_path / "r.cbeal")  # type: ignore[operator]
    twin = CbeAL.load(path)
    a, b = simulate(model, X[150:], y[150:]), simulate(twin, X[150:], y[150:])
    np.testing.assert_array_equal(a.acquired, b.acquired)
    np.testing.assert_array_equal(model.predict(X[:10]), twin.predict(X[:10]))
    assert twin.tolerance == 0.15 and model.n_labels_ == twin.n_labels_


def test_query_many_decides_like_query_one_for_a_regressor(
    data: tuple[np.ndarray, np.ndarray],
) -> None:
    X, y = data
    make = lambda: CbeAL.from_agents(  # noqa: E731
        ["RALR1", "EMCM", "LD1"], estimator=BayesianRidge(), budget=30, tolerance=0.15,
        random_state=4, id_prefix="line",
    ).fit(X[:20], y[:20])  # fmt: skip
    a, b = make(), make()
    many = a.query_many(X[20:120])
    one = [b.query_one(x) for x in X[20:120]]
    assert [d.to_dict() for d in many] == [d.to_dict() for d in one]
    assert any(d.acquire for d in many) and isinstance(many[0].y_pred, float)
    with pytest.raises(TaskError, match="without it"):
        a.query_one(X[0], proba=[0.5, 0.5])
