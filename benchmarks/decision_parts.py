"""Parts of bench_decision.py: where a preset's decision time goes, and a committee member
timed apart (CPU per sample under the compiled kernels)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

from bench_decision import WARM, Workload
from cbeal import CbeAL, kernels
from cbeal.core import Context


def committee_cost(work: Workload) -> tuple[float, float]:
    """CPU µs per sample of a QBC member's score_one (3 logistic regressions), and of the
    whole fused decision with RAL1, ENT and QBC (numba kernels)."""
    from cbeal.models.fusion_presets import fusion_of, fusion_pool

    kernels.use("numba")
    m = CbeAL(
        estimator=LogisticRegression(),
        agents=fusion_pool(("RAL1", "ENT", "QBC"), 0.1, LogisticRegression()),
        fusion=fusion_of("equal"),
        budget=0.1,
        random_state=0,
        refit_every=None,
    ).fit(work.s.X0, work.s.y0)
    qbc = dict(m.policy_.named_agents)["QBC"]
    n = min(work.n, 1000)
    ctx = [Context(work.X[i], work.P[i]) for i in range(n)]
    qbc.score_one(ctx[0])  # the committee's first fit, outside the timing
    c0 = time.process_time()
    for c in ctx:
        qbc.score_one(c)
    member = (time.process_time() - c0) / n
    m.query_one(work.X[n], proba=work.P[n])  # the member's first committee fit, untimed
    c0 = time.process_time()
    for i in range(n):
        m.query_one(work.X[i], proba=work.P[i])
    return 1e6 * member, 1e6 * (time.process_time() - c0) / n


def _cpu(fn: Any, items: Any) -> float:
    c0 = time.process_time()
    for item in items:
        fn(item)
    return time.process_time() - c0


def breakdown(work: Workload, preset: str) -> dict[str, float]:
    """CPU µs per sample of a preset's parts under the compiled kernels, each on a copy of
    the same steady-state model: the policy's parts (CBEAL-6: the window group, with numpy's
    distances alone for scale, and the bandit; CBEAL-5F: the members' scores and the
    pacer), the stream model's own share of ``query_one`` (validation, the context, budget,
    draw and the ``Decision``: the policy stubbed out), and ``query_one`` in all."""
    import copy

    from cbeal.core.policy import Proposal
    from cbeal.core.window import euclidean_into

    kernels.use("numba")
    model = work.model(preset)
    policy = model.policy_
    X, P = work.X[WARM : WARM + work.n], work.P[WARM : WARM + work.n]
    contexts = [Context(x, p) for x, p in zip(X, P, strict=True)]
    out: dict[str, float] = {}
    if preset == "CBEAL-6":
        where, group = copy.deepcopy(policy._groups[0])
        buf = group.buffer
        diff, d = np.empty_like(buf.points), np.empty(buf.capacity)
        out["numpy's distances alone (einsum, 150 × 15), for scale"] = _cpu(
            lambda x: euclidean_into(buf.points, x, diff, d), X
        )
        advice = np.empty(len(policy.agents_))
        out["window group (LD1, LD2, SPF1): one compiled call, distances included"] = _cpu(
            lambda x: group.advise_into(x, advice, where), X
        )
        solver = copy.deepcopy(policy.solver_)

        def bandit(_: Any) -> None:
            p, _w = solver.mix(advice, 0.01)
            solver.update_decision(advice, p)
            solver.chart_step()

        out["bandit: probability and weights, update, chart step"] = _cpu(bandit, X)
    else:
        for name, agent in copy.deepcopy(policy.named_agents):
            out[f"member {name}: score_one"] = _cpu(agent.score_one, contexts)
        pacer, weights = copy.deepcopy(policy.pacer_), policy._weights()
        scores = [np.array([a.score_one(c) for _, a in policy.named_agents]) for c in contexts]

        def pace(sc: np.ndarray) -> None:
            if pacer.decide(sc, weights)[2] and pacer.allowance >= 1.0:
                pacer.acquired_one()  # as the model does (its budget allowing)

        out["pacer: decide (and acquired_one when it asks)"] = _cpu(pace, scores)
    stub = copy.deepcopy(model)
    canned = Proposal(0.05, np.zeros(len(policy.agents_)), np.zeros(len(policy.agents_)))
    stub.policy_.propose = lambda ctx: canned
    stub.policy_.on_decision = lambda prop, acquired: None
    stub.policy_.end_step = lambda: None
    pairs = list(zip(X, P, strict=True))
    out["the stream model's own share (policy stubbed out)"] = _cpu(
        lambda xp: stub.query_one(xp[0], proba=xp[1]), pairs
    )
    c0 = time.process_time()
    labels, _ = work.one(model)
    out["query_one in all (labels excluded)"] = time.process_time() - c0 - labels
    return {k: 1e6 * v / work.n for k, v in out.items()}
