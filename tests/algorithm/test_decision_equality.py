"""The compiled kernels (numba) decide exactly as the numpy reference, bit for bit.

Each case streams a few thousand seeded samples through the same model twice, once with
each kernel, delivering labels as the acquisitions come (the bandit, RAL's threshold and the
pacer all move), and compares every decision's acquisition, probability, advice, weights,
fused score and threshold with ``==``, then the agents' whole window state at the end.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from itertools import product
from typing import Any

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import CbeAL, SingleAgentLearner, kernels, make_stream
from cbeal.core import (
    EvidenceWeights,
    Exp4P,
    LowDensityAgent,
    QuantilePacer,
    ScoreFusion,
    SpaceFillingAgent,
)
from cbeal.core.window import KERNELS
from cbeal.models.fusion_presets import fusion_pool

pytest.importorskip("numba")

from cbeal.kernels import distances  # after the skip: it needs numba

N = 3000  # samples per stream


def _paper(preset: str) -> Any:
    return CbeAL.from_preset(preset, estimator=LogisticRegression(), budget=N // 8)


def _fused(members: tuple[str, ...]) -> Any:
    return CbeAL(
        estimator=LogisticRegression(),
        agents=fusion_pool(members, 0.1),
        fusion=ScoreFusion(),
        budget=0.1,
    )


# name -> (a fresh unfitted model, stream options)
CASES: dict[str, tuple[Any, dict[str, Any]]] = {
    "CBEAL-6": (lambda: _paper("CBEAL-6"), {}),
    "CBEAL-8 with duplicates": (lambda: _paper("CBEAL-8"), {"duplicates": True}),
    "CBEAL-4* in 2 features": (lambda: _paper("CBEAL-4*"), {"p": 2}),
    "CBEAL-2 (one LD: no group)": (lambda: _paper("CBEAL-2"), {}),
    "CBEAL-5F": (lambda: CbeAL.from_preset(estimator=LogisticRegression(), budget=0.1), {}),
    "CBEAL-4U (no chart, step 0.2)": (
        lambda: CbeAL.from_preset("CBEAL-4U", estimator=LogisticRegression(), budget=0.1),
        {},
    ),
    "CBEAL-4 under a chart that flips all, no reset": (
        lambda: _paper("CBEAL-4").set_params(
            solver=Exp4P(
                limits="shewhart",
                flip_scope="all",
                reset_after_flip=False,
                h=0.5,
                gamma=0.0,
                eta=0.2,
            )
        ),
        {},
    ),
    "fusion of LDS, SPF1, LD1 and RAL1": (lambda: _fused(("LDS", "SPF1", "LD1", "RAL1")), {}),
    "CBEAL-5F's members under evidence weights, a horizon": (
        lambda: CbeAL(
            estimator=LogisticRegression(),
            agents=fusion_pool(("RAL1", "RAL2", "ENT", "VU", "MIN"), 0.1),
            fusion=ScoreFusion(
                weights=EvidenceWeights(gain=2.0, threshold=0.5, memory=50), horizon=N
            ),
            budget=0.1,
        ),
        {},
    ),
    "paper's listing (exact_window=False), manhattan": (
        lambda: CbeAL.from_agents(
            [
                LowDensityAgent(window_size=40, exact_window=False, metric="manhattan"),
                SpaceFillingAgent(window_size=30, exact_window=False, metric="manhattan"),
                LowDensityAgent(window_size=25, sparsity_fraction=1, metric="manhattan"),
            ],
            estimator=LogisticRegression(),
            budget=N // 8,
        ),
        {"duplicates": True},
    ),
    "single SPF agent": (
        lambda: SingleAgentLearner(
            agent=SpaceFillingAgent(window_size=50), estimator=LogisticRegression(), budget=N // 8
        ),
        {},
    ),
}


def _stream(p: int = 15, duplicates: bool = False) -> tuple[Any, np.ndarray, np.ndarray]:
    s = make_stream(n=N + 20, p=p, pc=0.1, random_state=7)
    X = s.X_stream[:N].copy()
    if duplicates:  # exact repeats make ties in the windows' distances and statistics
        rng = np.random.default_rng(3)
        rows = rng.integers(0, N, size=N // 3)
        X[rows] = X[rng.integers(0, 40, size=rows.shape[0])]
    proba1 = np.random.default_rng(1).uniform(0.5, 1.0, size=N)
    return s, X, np.c_[proba1, 1.0 - proba1]


def _run(kernel: str, name: str) -> tuple[list[tuple[Any, ...]], Any]:
    make, options = CASES[name]
    kernels.use(kernel)
    s, X, P = _stream(**options)
    model = make().set_params(random_state=0, refit_every=None).fit(s.X0, s.y0)
    trail = []
    for i, (x, proba) in enumerate(zip(X, P, strict=True)):
        d = model.query_one(x, proba=proba)
        if d.acquire:
            model.learn_one(None, s.y_stream[i], decision=d)
        step = model.flush()  # the chart's step (None for score fusion)
        flips = None if step is None else step.flipped.tobytes()
        advice, weights = d.advice.tobytes(), d.weights.tobytes()
        trail.append((d.acquire, d.p_acquire, advice, weights, d.score, d.threshold, flips))
    return trail, model


@pytest.fixture
def decision_streams() -> Iterator[Any]:
    """Run a case's stream with a kernel; the process's kernels are restored afterwards."""
    before = kernels.active()
    yield _run
    kernels.use(before)


def _window_state(model: Any) -> list[bytes]:
    out = []
    for _, agent in model.policy_.named_agents:
        if hasattr(agent, "stat_"):
            w = agent.window_
            out += [agent.stat_.tobytes(), w.dist.tobytes(), w.points.tobytes()]
            out.append(bytes([w.size % 256, w.next % 256]))
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_numba_decides_as_numpy_bit_for_bit(decision_streams, name: str) -> None:
    reference, model_np = decision_streams("numpy", name)
    compiled, model_nb = decision_streams("numba", name)
    assert kernels.active() == "numba"
    if distances.matches_numpy():  # the window kernels computed the distances themselves
        assert "euclidean" in KERNELS
    assert sum(a for a, *_ in reference) >= 20  # labels were asked for and learned from
    pairs = enumerate(zip(reference, compiled, strict=True))
    first = next((i for i, (a, b) in pairs if a != b), None)
    assert first is None, f"decision {first} differs: {reference[first]} vs {compiled[first]}"
    assert _window_state(model_np) == _window_state(model_nb)
    if "flips" in name:  # the chart did flip weights
        assert sum(f is not None and any(f) for *_, f in reference) >= 10


@pytest.mark.parametrize("name", ["CBEAL-6", "fusion of LDS, SPF1, LD1 and RAL1", "CBEAL-5F"])
def test_query_many_decides_as_query_one(decision_streams, name: str) -> None:
    # batches of 250 (under the kernels: the window groups' advice on a whole batch in one
    # compiled call), labels delivered between the batches, against numpy's batches; one by
    # one too. (A learner's batched probabilities may differ in the last bits from its
    # row-by-row ones, which moves graded scores: only CBEAL-6's advice, RAL's 0 or 1, is
    # compared across the two.)
    make, options = CASES[name]
    s, X, _ = _stream(**options)
    out = {}
    calls: list[int] = []
    for kernel, batched in product(("numpy", "numba"), (True, False)):
        kernels.use(kernel)
        if "group_many" in KERNELS:  # count the batches the kernel advised on at once
            many = KERNELS["group_many"]
            KERNELS["group_many"] = lambda *args, many=many: calls.append(1) or many(*args)
        model = make().set_params(random_state=0, refit_every=None).fit(s.X0, s.y0)
        ds = []
        for start in range(0, 1500, 250):
            rows = X[start : start + 250]
            got = model.query_many(rows) if batched else [model.query_one(x) for x in rows]
            for k, d in enumerate(got):
                if d.acquire:
                    model.learn_one(None, s.y_stream[start + k], decision=d)
            ds += got
        out[kernel, batched] = [
            (d.acquire, d.p_acquire, d.advice.tobytes(), d.weights.tobytes()) for d in ds
        ]
        assert model.policy_.__dict__.get("_ahead") is None  # nothing left over
    assert out["numpy", True] == out["numba", True]
    assert out["numpy", False] == out["numba", False]
    if name == "CBEAL-6":
        assert out["numpy", False] == out["numba", True]
    ahead = name != "CBEAL-5F" and distances.matches_numpy()  # CBEAL-5F: no window agents
    assert len(calls) == (6 if ahead else 0)
    assert sum(a for a, *_ in out["numpy", True]) >= 20


def test_a_batch_that_fails_part_way_leaves_nothing_ahead(decision_streams) -> None:
    from cbeal.core import MinorityAgent

    class Fails(MinorityAgent):  # a member whose score breaks at the 7th sample
        def advise_one(self, ctx: Any) -> float:
            self.__dict__["n"] = self.__dict__.get("n", 0) + 1
            return 2.0 if self.__dict__["n"] == 7 else 0.5

    kernels.use("numba")
    s, X, _ = _stream()
    model = CbeAL(
        estimator=LogisticRegression(),
        agents=[("LD1", LowDensityAgent()), ("SPF", SpaceFillingAgent()), ("F", Fails())],
        fusion=ScoreFusion(),
        budget=0.1,
        random_state=0,
    ).fit(s.X0, s.y0)
    with pytest.raises(Exception, match="outside"):
        model.query_many(X[:20])
    assert model.policy_.__dict__.get("_ahead") is None
    assert len(model.query_many(X[20:40])) == 20  # the model goes on deciding


_LONG_STREAM = (
    "from sklearn.linear_model import LogisticRegression\n"
    "from cbeal import CbeAL, kernels, make_stream\n"
    "s = make_stream(n=1500, random_state=0)\n"
    "m = CbeAL.from_preset('CBEAL-6', estimator=LogisticRegression(), budget=20,"
    " random_state=0, refit_every=None).fit(s.X0, s.y0)\n"
    "seen = [kernels.active() for x in s.X_stream[: kernels.AFTER + 1] if m.query_one(x)]\n"
    "print(seen[0], seen[kernels.AFTER - 1], seen[kernels.AFTER], kernels.available())\n"
)


def _long_stream(prefix: str = "") -> list[str]:
    run = [sys.executable, "-c", prefix + _LONG_STREAM]
    env = {k: v for k, v in os.environ.items() if k != kernels.ENV}
    return subprocess.run(run, capture_output=True, text=True, check=True, env=env).stdout.split()


def test_a_long_stream_switches_to_the_compiled_kernels() -> None:
    # the first AFTER decisions with numpy (a short run never pays for importing numba)
    assert _long_stream() == ["numpy", "numpy", "numba", "True"]


def test_without_numba_the_numpy_path_decides() -> None:
    blocked = "import sys; sys.modules['numba'] = None\n"  # as if the extra were missing
    assert _long_stream(blocked) == ["numpy", "numpy", "numpy", "False"]


@pytest.mark.parametrize("after", ["numpy", "numba"])
@pytest.mark.parametrize("name", ["CBEAL-6", "CBEAL-5F", "fusion of LDS, SPF1, LD1 and RAL1"])
def test_a_model_saved_under_the_kernels_continues_alike(decision_streams, name, after) -> None:
    # saved mid-stream from the compiled state (its arrays slices of the packed ones) and
    # continued under either kernel: the same decisions as numpy's uninterrupted stream
    reference, _ = decision_streams("numpy", name)
    make, options = CASES[name]
    kernels.use("numba")
    s, X, P = _stream(**options)
    model = make().set_params(random_state=0, refit_every=None).fit(s.X0, s.y0)
    trail = []
    for i, (x, proba) in enumerate(zip(X, P, strict=True)):
        if i == N // 2:
            kernels.use(after)
            model = CbeAL.from_bytes(model.to_bytes())
        d = model.query_one(x, proba=proba)
        if d.acquire:
            model.learn_one(None, s.y_stream[i], decision=d)
        step = model.flush()
        flips = None if step is None else step.flipped.tobytes()
        advice, weights = d.advice.tobytes(), d.weights.tobytes()
        trail.append((d.acquire, d.p_acquire, advice, weights, d.score, d.threshold, flips))
    assert trail == reference


def test_the_hot_paths_compute_their_reference_formulas_exactly() -> None:
    import math

    from cbeal.baselines import EntropyAgent
    from cbeal.core import Context, Decision, MinorityAgent, Proposal
    from cbeal.core.pacer import _quantile

    rng = np.random.default_rng(5)
    probas = np.r_[rng.uniform(0, 1, size=2000), [0.0, 1.0, 1e-300, 0.5]]
    ent = EntropyAgent(budget_fraction=0.1, discount0=1.0, gain=0.0).fit(np.zeros((1, 1)))
    for a in probas:
        p = np.array([a, 1.0 - a])
        q = p[p > 0.0]
        want = 0.0 if q.size < 2 else float(-(q * np.log(q)).sum() / math.log(2))
        assert ent.advise_one(Context(np.zeros(1), p)) == min(1.0, max(0.0, want))
    agent = MinorityAgent(prior=0.7).fit(np.zeros((5, 1)), y0=np.array([0, 0, 0, 1, 2]))
    for _ in range(300):
        p = rng.dirichlet(np.ones(3))
        inverse = 1.0 / (agent.counts_[:3] + 0.7)
        want = min(1.0, max(0.0, float(p @ (inverse / inverse.max()))))
        assert agent.advise_one(Context(np.zeros(1), p)) == want
        agent.label_one(np.zeros(1), int(rng.integers(3)))
    for n in (2, 3, 50, 200):
        v = rng.random(n)
        for level in np.r_[rng.random(50), 0.0, 1.0]:
            assert _quantile(v, float(level)) == np.quantile(v, float(level))
    edges = [[0.5, 0.5], [0.0, -0.0], [-0.0, 0.0], [np.nan, 1.0], [1.0, np.nan], [np.inf, 0.0]]
    probas_k = [np.array(e) for e in edges] + [rng.dirichlet(np.ones(k)) for k in range(1, 12)]
    probas_k += [np.round(rng.dirichlet(np.ones(4)), 1) for _ in range(200)]  # ties
    for p in probas_k:
        ctx, i = Context(np.zeros(1), p), int(p.argmax())
        assert ctx.y_index == i and repr(ctx.certainty) == repr(float(p[i]))
    fields = dict(p_acquire=0.3, advice=np.ones(2), weights=np.full(2, 0.5), score=0.2)
    assert vars(Proposal(**fields)) == {**fields, "threshold": None}
    arrays = dict(advice=np.ones(2), weights=np.ones(2), proba=np.array([0.4, 0.6]))
    d = Decision(id="a-0", t=0, acquire=True, p_acquire=0.5, agent_names=("A", "B"),
                 agent_kinds=("x", "y"), y_pred=1, classes=(0, 1), certainty=0.6, budget_left=3,
                 **arrays)  # fmt: skip
    same = Decision._of(**vars(d))
    assert vars(same) == vars(d) and not same.proba.flags.writeable


@pytest.mark.parametrize("eta", [None, 0.2, 50.0, 1e6])
def test_the_compiled_bandit_follows_exp4p_through_overflow_and_underflow(eta) -> None:
    before = kernels.active()
    try:
        runs = []
        for kernel in ("numpy", "numba"):
            kernels.use(kernel)
            rng = np.random.default_rng(11)
            solver = Exp4P(eta=eta, horizon=500, limits="shewhart", h=0.3).start(5)
            seen = []
            for i in range(400):
                if i % 40 == 0:  # weights at the edge, where exp(e) < e^700 still overflows
                    solver.alpha_ = np.full(5, 1e99 if i % 80 else 1e-99)
                advice = rng.choice([0.0, 1.0, 1e-9, 0.5], size=5)
                p = float(rng.choice([0.5, 1e-12, 1.0 - 1e-12, 0.3, 0.003]))
                seen.append(solver.distribution(advice))
                solver.update_decision(advice, p)
                if rng.random() < 0.3:
                    solver.update_reward(advice, p, float(rng.choice([1.0, -0.5, 1e6])))
                step = solver.chart_step()
                seen += [solver.alpha_.tobytes(), solver.weights().tobytes()]
                seen += [step.weights_after.tobytes(), step.flipped.tobytes()]
            runs.append(seen)
        assert runs[0] == runs[1]
    finally:
        kernels.use(before)


def test_the_compiled_distances_are_numpy_s_on_fresh_data() -> None:
    from cbeal.core.window import euclidean_into as reference

    if not distances.matches_numpy():
        pytest.skip("numpy sums in another order on this build: numpy computes the distances")
    rng = np.random.default_rng(99)
    for p in (1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 100, 257):
        points = rng.standard_t(3, size=(300, p)) * rng.choice([1e-8, 1.0, 1e8])
        x = rng.normal(size=p)
        want = np.empty(300)
        reference(points, x, np.empty_like(points), want)
        got = np.empty(300)
        distances.euclidean_into(points, 300, x, got)
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("name", ["CBEAL-6", "fusion of LDS, SPF1, LD1 and RAL1"])
def test_the_kernels_decide_alike_with_numpy_s_distances(
    decision_streams, monkeypatch, name: str
) -> None:
    # a build whose numpy sums in another order: the kernels get numpy's distances
    reference, model_np = decision_streams("numpy", name)
    use = kernels.use

    def without_distances(kernel: str) -> str:
        use(kernel)
        KERNELS.pop("euclidean", None)
        return kernels.active()

    monkeypatch.setattr(kernels, "use", without_distances)
    compiled, model_nb = decision_streams("numba", name)
    assert "euclidean" not in KERNELS and "group" in KERNELS
    assert compiled == reference
    assert _window_state(model_np) == _window_state(model_nb)


def test_the_compiled_dot_product_is_numpy_s_on_fresh_data() -> None:
    from cbeal.kernels import pacer

    if not pacer.dot_matches_numpy():
        pytest.skip("OpenBLAS sums in another order here: numpy fuses the pacer's scores")
    rng = np.random.default_rng(98)
    for n in range(1, pacer.MAX_MEMBERS + 1):
        for _ in range(300):
            a, b = rng.random(n), rng.dirichlet(np.ones(n))
            assert pacer.dot(a, b) == a @ b


@pytest.mark.parametrize(
    "options",
    [
        {"budget_fraction": 0.1, "window": 50},
        {"budget_fraction": 0.03, "window": 200, "head_start": 1.0, "head_start_over": 1.0},
        {"budget_fraction": 0.2, "window": 7, "tolerance": 3.0, "horizon": 900},
    ],
)
def test_the_compiled_pacer_decides_as_numpy(options) -> None:
    # weights that change now and then (the window is fused again) and ties in the scores
    before = kernels.active()
    try:
        runs = []
        for kernel in ("numpy", "numba"):
            kernels.use(kernel)
            rng = np.random.default_rng(4)
            pacer = QuantilePacer(**options).start(5)
            w = np.full(5, 0.2)
            seen = []
            for _ in range(1000):
                if rng.random() < 0.02:
                    w = rng.dirichlet(np.ones(5))
                scores = rng.choice([0.0, 0.25, 1.0, rng.random()], size=5)
                if rng.random() < 0.003:  # a NaN fused score now and then: numpy's quantile
                    scores[0] = np.nan
                fused, threshold, ask = pacer.decide(scores, w.copy())
                if ask or rng.random() < 0.01:
                    pacer.acquired_one()
                seen.append((repr(fused), repr(threshold), ask))  # NaN equals itself so
            runs.append((seen, pacer.fused_.tobytes(), pacer.scores_.tobytes()))
        assert kernels.active() == "numba"
        assert "pace" in KERNELS or not pacer_dot_matches()
        assert runs[0] == runs[1]
        assert sum(ask for *_, ask in runs[0][0]) >= 10  # the pacer asked, and more than once
    finally:
        kernels.use(before)


def pacer_dot_matches() -> bool:
    from cbeal.kernels import pacer

    return pacer.dot_matches_numpy()
