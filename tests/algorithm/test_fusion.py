"""Score fusion (issue 23): the pacer, the weight rules, graded scores, and the stream model
with fusion — budgets, explanations, save/load, late labels, query_many."""

from __future__ import annotations

import json
import math
from typing import Any, ClassVar

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import CbeAL, make_stream, simulate
from cbeal.core import (
    DEFAULT_PACE,
    Agent,
    Context,
    Decision,
    EqualWeights,
    EvidenceWeights,
    FusionWeights,
    LabelRate,
    ParameterError,
    QuantilePacer,
    ReinforcedAgent,
    ScoreFusion,
    paper_agents,
)
from cbeal.models.fusion_presets import fusion_of, fusion_pool


class _Swinging(FusionWeights):
    """Weights that swing between two members every `period` samples (a moving rule)."""

    def __init__(self, *, period: int = 37) -> None:
        self.period = period

    def _start(self) -> None:
        self.seen_ = 0

    def observe_one(self, scores: np.ndarray) -> None:
        self.seen_ += 1
        heavy = (self.seen_ // self.period) % self.n_members_
        w = np.full(self.n_members_, 0.05 / max(1, self.n_members_ - 1))
        w[heavy] = 0.95
        self.weights_ = w / w.sum()

    def learn_one(self, scores: np.ndarray, useful: bool) -> None:
        return None


class _Always(Agent):
    """Advises "acquire" for every sample."""

    kind: ClassVar[str] = "exploitation"

    def __init__(self) -> None:
        pass

    def _start(self, X0: np.ndarray) -> None:
        pass

    def advise_one(self, ctx: Context) -> float:
        return 1.0


def _pace(scores: np.ndarray, weights: Any, b: float, **kw: Any) -> tuple[np.ndarray, Any]:
    """Run a pacer over a score matrix with a rate budget as the hard cap."""
    pacer = QuantilePacer(budget_fraction=b, **kw).start(scores.shape[1])
    budget = LabelRate(rate=b).start()
    rule = weights.start(scores.shape[1])
    asked = np.zeros(scores.shape[0], dtype=bool)
    for t, s in enumerate(scores, start=1):
        _, _, ask = pacer.decide(s, rule.weights())
        rule.observe_one(s)
        if ask and budget.allows(t):
            budget.spend(t)
            pacer.acquired_one()
            asked[t - 1] = True
    return asked, pacer


# ---------------------------------------------------------------------------- the pacer
@pytest.mark.parametrize("b", [0.05, 0.1])
@pytest.mark.parametrize("seed", range(5))
def test_pacer_spends_a_rate_budget_evenly_while_weights_move(b: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 1000
    # two members whose scale differs a lot and drifts: a re-fusion matters
    scores = np.column_stack([rng.random(n) * np.linspace(1.0, 0.05, n), rng.random(n) ** 3])
    asked, pacer = _pace(scores, _Swinging(), b)
    allowed = math.floor(b * n + 1e-9)
    assert asked.sum() <= allowed
    assert asked.sum() >= 0.97 * allowed, f"spent {asked.sum()} of {allowed}"
    assert 0.4 <= asked[: n // 2].sum() / asked.sum() <= 0.6
    # the window holds the members' scores: after the last change of weights it is
    # fused with the new ones
    size = pacer.size_
    assert np.allclose(pacer.fused_[:size], pacer.scores_[:size] @ pacer.fused_weights_)


def test_pacer_prefers_high_scores_and_never_owes_two_labels() -> None:
    rng = np.random.default_rng(0)
    scores = rng.random((2000, 1))
    pacer = QuantilePacer(budget_fraction=0.05).start(1)
    chosen = []
    for s in scores:
        _, _, ask = pacer.decide(s, np.ones(1))
        assert pacer.allowance < 2.0 + 1e-9
        if ask:
            pacer.acquired_one()
            chosen.append(float(s[0]))
    assert len(chosen) >= 99
    assert np.mean(chosen) > 0.8  # random sampling would average 0.5


def test_pacer_refuses_bad_parameters() -> None:
    for bad in ({"budget_fraction": 0.0}, {"window": 1}, {"tolerance": 0}):
        with pytest.raises(ParameterError):
            QuantilePacer(**bad).start(2)


# ---------------------------------------------------------------------------- weights
def _stream_of_labels(
    rule: FusionWeights, scores: np.ndarray, useful: np.ndarray, labelled: np.ndarray
) -> FusionWeights:
    rule.start(scores.shape[1])
    for s, u, lab in zip(scores, useful, labelled, strict=True):
        rule.observe_one(s)
        if lab:
            rule.learn_one(s, bool(u))
    return rule


@pytest.mark.parametrize("seed", range(5))
def test_an_agent_that_always_asks_gains_no_weight(seed: int) -> None:
    # a learner bad at everything: wrong on 90 % of the samples, more so where the
    # informative member scores high; the third member is noise
    rng = np.random.default_rng(seed)
    n = 3000
    informative = rng.random(n)
    always = np.ones(n)
    noise = rng.random(n)
    useful = rng.random(n) < 0.8 + 0.2 * informative
    labelled = rng.random(n) < 0.1
    rule = _stream_of_labels(
        EvidenceWeights(), np.column_stack([always, informative, noise]), useful, labelled
    )
    w = rule.weights()
    assert w[0] <= 1 / 3 + 1e-12, w
    assert w[0] <= w[1], w
    assert rule.evidence()[0] == 0.0  # no deviation from its mean: no evidence at all


@pytest.mark.parametrize("seed", range(8))
def test_weights_stay_near_even_when_the_learner_cannot_learn(seed: int) -> None:
    # a real stream model on labels that are coin flips: no member can tell which labels
    # are useful
    s = make_stream(n=800, random_state=seed)
    y = np.random.default_rng(seed).integers(0, 2, s.y_stream.size)
    model = CbeAL(
        agents=fusion_pool(("RAL1", "ENT", "H", "MIN", "SPF1"), 0.1),
        fusion=fusion_of("evidence"),
        estimator=LogisticRegression(),
        budget=0.1,
        random_state=seed,
    ).fit(s.X0, s.y0)
    simulate(model, s.X_stream, y)
    w = model.weights_
    assert np.abs(w - 1 / w.size).max() < 0.05, w


def test_evidence_weights_find_a_member_that_knows() -> None:
    rng = np.random.default_rng(1)
    n = 4000
    knows = rng.random(n)
    scores = np.column_stack([knows, rng.random(n), rng.random(n)])
    useful = rng.random(n) < knows
    rule = _stream_of_labels(EvidenceWeights(), scores, useful, rng.random(n) < 0.1)
    w = rule.weights()
    assert w[0] > 0.6 and w[0] == w.max(), w


def test_equal_weights_never_move() -> None:
    rng = np.random.default_rng(0)
    rule = _stream_of_labels(
        EqualWeights(), rng.random((100, 3)), rng.random(100) < 0.5, np.ones(100, bool)
    )
    assert rule.weights().tolist() == [1 / 3] * 3


# ---------------------------------------------------------------------------- graded RAL
def test_ral_graded_score_agrees_with_its_advice_and_learns_the_same() -> None:
    rng = np.random.default_rng(0)
    paper = ReinforcedAgent(theta0=0.9, eta=0.05).fit(np.zeros((1, 2)))
    graded = ReinforcedAgent(theta0=0.9, eta=0.05).fit(np.zeros((1, 2)))
    for _ in range(500):
        k = int(rng.integers(2, 5))
        ctx = Context(np.zeros(2), rng.dirichlet(np.full(k, 0.3)))
        advice, score = paper.advise_one(ctx), graded.score_one(ctx)
        assert 0.0 <= score <= 1.0
        assert (score >= 0.5) == (advice == 1.0)
        reward = 1.0 if rng.random() < 0.3 else -0.5
        paper.reward_one(advice, reward, -0.5)
        graded.reward_one(score, reward, -0.5)
        assert graded.theta_ == paper.theta_
    # monotone: less certain, higher score
    c = [graded.score_one(Context(np.zeros(2), np.array([p, 1 - p]))) for p in (0.5, 0.7, 0.99)]
    assert c[0] > c[1] > c[2]


# ---------------------------------------------------------------------------- the model
def _fused(seed: int = 0, **kw: Any) -> CbeAL:
    params: dict[str, Any] = {
        "agents": fusion_pool(("RAL1", "ENT", "QBC", "MIN", "SPF1"), 0.05),
        "fusion": fusion_of("evidence"),
        "estimator": LogisticRegression(),
        "budget": 0.05,
        "random_state": seed,
        "epsilon": 0.0,
    }
    params.update(kw)
    return CbeAL(**params)


@pytest.mark.parametrize("seed", range(3))
def test_model_spends_a_rate_budget_evenly_and_never_exceeds_it(seed: int) -> None:
    s = make_stream(n=1500, random_state=seed)
    model = _fused(seed).fit(s.X0, s.y0)
    trace = simulate(model, s.X_stream, s.y_stream)
    n = len(trace)
    spent = np.cumsum(trace.acquired)
    assert (spent <= np.floor(0.05 * np.arange(1, n + 1) + 1e-9)).all()
    assert trace.n_acquired >= 0.97 * math.floor(0.05 * n + 1e-9)
    assert 0.4 <= trace.acquired[: n // 2].sum() / trace.n_acquired <= 0.6
    # same seed, same decisions
    again = simulate(_fused(seed).fit(s.X0, s.y0), s.X_stream, s.y_stream)
    assert np.array_equal(trace.acquired, again.acquired)


def test_fused_decisions_explain_which_members_drove_them() -> None:
    s = make_stream(n=600, random_state=2)
    model = _fused(2).fit(s.X0, s.y0)
    decisions = [model.query_one(x) for x in s.X_stream[:400]]
    asked = [d for d in decisions if d.acquire]
    assert asked and all(d.fused and d.score is not None for d in decisions)
    for d in asked:
        assert d.threshold is not None and d.score >= d.threshold
        assert d.led_by in ("exploration", "exploitation")
        assert d.wanted, "a fused score above the threshold has a member above it"
        assert all(d.advice[d.agent_names.index(n)] >= d.threshold for n in d.wanted)
        shares = dict(d.drivers)
        assert sum(shares.values()) == pytest.approx(1.0)
        assert d.drivers[0][1] == max(shares.values())
        assert "fused score" in d.explain()
        back = Decision.from_dict(json.loads(json.dumps(d.to_dict())))
        assert (back.score, back.threshold, back.drivers) == (d.score, d.threshold, d.drivers)
        model.learn_one(None, s.y_stream[d.t], decision=d.id)
    # a dictionary written before score fusion existed still reads back
    old = asked[0].to_dict()
    del old["score"], old["threshold"]
    assert Decision.from_dict(old).score is None


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {  # round 2's pacer: no head start, a horizon resolved from the budget
            "fusion": fusion_of("evidence", head_start=0.0, horizon="auto"),
            "budget": LabelRate(rate=0.05, total=40),
        },
    ],
)
def test_late_labels_by_id_and_save_load_continue_exactly(
    tmp_path: Any, kw: dict[str, Any]
) -> None:
    s = make_stream(n=900, random_state=4)
    a = _fused(4, **kw).fit(s.X0, s.y0)
    pending: list[tuple[int, str]] = []
    for i, x in enumerate(s.X_stream[:500]):
        d = a.query_one(x)
        if d.acquire:
            pending.append((i, d.id))
        if len(pending) > 2:  # labels arrive three acquisitions late, by id
            j, did = pending.pop(0)
            a.learn_one(None, s.y_stream[j], decision=did)
    path = a.save(tmp_path / "fused.cbeal")
    b = CbeAL.load(path)
    for i in range(500, s.X_stream.shape[0]):
        da, db = a.query_one(s.X_stream[i]), b.query_one(s.X_stream[i])
        assert (da.id, da.acquire, da.score, da.threshold) == (
            db.id,
            db.acquire,
            db.score,
            db.threshold,
        )
        assert np.array_equal(da.weights, db.weights)
        if da.acquire:
            pending.append((i, da.id))
        if len(pending) > 2:
            j, did = pending.pop(0)
            for m in (a, b):
                m.learn_one(None, s.y_stream[j], decision=did)
    assert a.n_labels_ == b.n_labels_ > 0
    assert np.array_equal(a.weights_, b.weights_)


def test_query_many_decides_as_query_one() -> None:
    s = make_stream(n=400, random_state=5)
    one = _fused(5).fit(s.X0, s.y0)
    many = _fused(5).fit(s.X0, s.y0)
    d1 = [one.query_one(x) for x in s.X_stream[:300]]
    d2 = many.query_many(s.X_stream[:300])
    assert [d.acquire for d in d1] == [d.acquire for d in d2]
    # a batched predict_proba may differ from one row's in the last bits
    assert [d.score for d in d1] == pytest.approx([d.score for d in d2], rel=1e-12)
    assert sum(d.acquire for d in d2) >= 10


def test_fusion_parameters_are_checked() -> None:
    s = make_stream(n=100, random_state=0)
    # a count alone is paced at the default pace; a share given is the pace
    assert _fused(budget=10).fit(s.X0, s.y0).policy_.pacer_.budget_fraction == DEFAULT_PACE
    given = _fused(budget=10, fusion=fusion_of(budget_fraction=0.1)).fit(s.X0, s.y0)
    assert given.policy_.pacer_.budget_fraction == 0.1
    with pytest.raises(ParameterError, match="pacer must be"):
        _fused(fusion=fusion_of(pacer="strict")).fit(s.X0, s.y0)
    with pytest.raises(ParameterError, match="one of them"):
        from cbeal.core import Exp4P

        _fused(solver=Exp4P()).fit(s.X0, s.y0)
    with pytest.raises(ParameterError, match="agents to CbeAL"):
        _fused(fusion=ScoreFusion(agents=paper_agents("CBEAL-2"))).fit(s.X0, s.y0)


def test_an_always_asking_member_alone_is_paced() -> None:
    s = make_stream(n=1000, random_state=6)
    model = CbeAL(
        agents=[("ALWAYS", _Always())],
        fusion=ScoreFusion(),
        estimator=LogisticRegression(),
        budget=0.1,
        random_state=6,
    ).fit(s.X0, s.y0)
    trace = simulate(model, s.X_stream, s.y_stream)
    assert math.floor(0.1 * len(trace)) - 1 <= trace.n_acquired <= math.floor(0.1 * len(trace))


@pytest.mark.parametrize("seed", range(3))
def test_a_count_budget_is_spent_whole_and_evenly(seed: int) -> None:
    # the head start makes the first label available at once and the last one due
    # 1/b samples before the end
    s = make_stream(n=1020, random_state=seed)
    n = s.y_stream.size
    model = _fused(seed, budget=50, fusion=fusion_of(budget_fraction=50 / n)).fit(s.X0, s.y0)
    trace = simulate(model, s.X_stream, s.y_stream)
    assert trace.n_acquired == 50
    assert 0.4 <= trace.acquired[: n // 2].sum() / 50 <= 0.6


# ------------------------------------------------ round 2: horizon and delayed head start
def _pace_to_total(scores: np.ndarray, weights: Any, b: float, total: int, **kw: Any) -> Any:
    """Like `_pace`, with the rate budget's total and the pacer's horizon ``total / b``."""
    pacer = QuantilePacer(budget_fraction=b, **kw).start(scores.shape[1])
    budget = LabelRate(rate=b, total=total).start()
    rule = weights.start(scores.shape[1])
    asked = np.zeros(scores.shape[0], dtype=bool)
    for t, s in enumerate(scores, start=1):
        _, _, ask = pacer.decide(s, rule.weights())
        rule.observe_one(s)
        if ask and budget.allows(t):
            budget.spend(t)
            pacer.acquired_one()
            asked[t - 1] = True
    return asked


@pytest.mark.parametrize("n", [100, 140, 200, 280])
@pytest.mark.parametrize("seed", range(8))
def test_a_small_rate_budget_with_a_horizon_is_spent_whole_while_weights_move(
    n: int, seed: int
) -> None:
    # 5-14 labels: one label short would be 7-20 % of the budget (round 1: 151 of 160 runs)
    rng = np.random.default_rng(seed)
    scores = np.column_stack([rng.random(n) * np.linspace(1.0, 0.05, n), rng.random(n) ** 3])
    for b in (0.05, 0.1):
        total = math.floor(b * n + 1e-9)
        asked = _pace_to_total(scores, _Swinging(period=7), b, total, horizon=total / b)
        assert asked.sum() == total, f"b={b}: spent {asked.sum()} of {total}"
        # still paced: never ahead of the accrual, and no label before one has accrued
        assert (np.cumsum(asked) <= np.floor(b * np.arange(1, n + 1) + 1e-9)).all()


def test_without_a_horizon_a_small_rate_budget_can_end_a_label_short() -> None:
    # the case the horizon is for: the last label is allowed only at the last sample
    short = 0
    for seed in range(8):
        rng = np.random.default_rng(seed)
        scores = np.column_stack([rng.random(140), rng.random(140) ** 3])
        short += int(_pace_to_total(scores, _Swinging(period=7), 0.05, 7).sum() < 7)
    assert short >= 4


def test_the_horizon_only_hurries_the_last_labels() -> None:
    rng = np.random.default_rng(3)
    scores = rng.random((2000, 1))
    b = 0.05
    free = _pace_to_total(scores, EqualWeights(), b, 100)
    hurried = _pace_to_total(scores, EqualWeights(), b, 100, horizon=2000)
    # the same decisions until the last label's ramp (1 / b = 20 samples before the end)
    assert np.array_equal(free[:1900], hurried[:1900])
    assert hurried.sum() == 100


@pytest.mark.parametrize("b", [0.05, 0.1, 0.2])
def test_a_delayed_head_start_is_granted_over_the_first_window(b: float) -> None:
    n = 400
    at_once = QuantilePacer(budget_fraction=b, head_start=1.0).start(1)
    delayed = QuantilePacer(budget_fraction=b, head_start=1.0, head_start_over=1.0).start(1)
    first = {}
    for name, pacer in (("at once", at_once), ("delayed", delayed)):
        for t in range(1, n + 1):
            _, _, ask = pacer.decide(np.array([0.5]), np.ones(1))  # every score alike
            if ask:
                pacer.acquired_one()
                first.setdefault(name, t)
        assert pacer.n_acquired_ == math.floor(b * n + 1.0 + 1e-9)  # B + the head start
    assert first["at once"] == 1  # round 1: the very first sample
    # delayed: due after half a label's worth of samples, never before
    assert first["delayed"] == math.ceil(0.5 / b - 1e-9)
    assert delayed.allowance == pytest.approx(at_once.allowance)


def test_delayed_head_start_never_owes_two_labels_at_once() -> None:
    rng = np.random.default_rng(1)
    pacer = QuantilePacer(budget_fraction=0.05, head_start=1.0, head_start_over=1.0).start(1)
    for s in rng.random((600, 1)):
        _, _, ask = pacer.decide(s, np.ones(1))
        assert pacer.allowance < 2.0 + 1e-9
        if ask:
            pacer.acquired_one()


@pytest.mark.parametrize("seed", range(3))
def test_a_model_with_horizon_auto_spends_a_small_rate_budget_whole(seed: int) -> None:
    s = make_stream(n=260, random_state=seed)
    n = s.y_stream.size
    b, total = 0.05, math.floor(0.05 * n + 1e-9)
    fusion = fusion_of("evidence", head_start=0.0, horizon="auto")
    model = _fused(seed, budget=LabelRate(rate=b, total=total), fusion=fusion).fit(s.X0, s.y0)
    assert model.policy_.pacer_.horizon == pytest.approx(total / b)
    trace = simulate(model, s.X_stream, s.y_stream)
    spent = np.cumsum(trace.acquired)
    assert (spent <= np.floor(b * np.arange(1, n + 1) + 1e-9)).all()
    assert trace.n_acquired == total
    # a count budget: the horizon is B / b, and no label goes to the first sample
    model = _fused(
        seed,
        budget=total,
        fusion=fusion_of(budget_fraction=total / n, **{"head_start": 0.0, "horizon": "auto"}),
    ).fit(s.X0, s.y0)
    trace = simulate(model, s.X_stream, s.y_stream)
    assert trace.n_acquired == total and not trace.acquired[0]


def test_horizon_and_head_start_over_are_checked() -> None:
    for bad in ({"horizon": 0}, {"horizon": "soon"}, {"head_start_over": -1.0}):
        with pytest.raises(ParameterError):
            ScoreFusion(agents=[("R", ReinforcedAgent())], budget_fraction=0.1, **bad).start(
                np.zeros((5, 2))
            )
