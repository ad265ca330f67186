"""Conventions of agents and policies: the stream protocol, seeding, resets and pickling."""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np

from cbeal.checks._base import check, contexts, features
from cbeal.core.agent import Agent
from cbeal.core.policy import Policy, Proposal

__all__ = ["AGENT_CHECKS", "POLICY_CHECKS"]

_KINDS = ("exploration", "exploitation", "hybrid")
_N0 = 20  # rows of D0


def _data(agent: Any = None) -> tuple[np.ndarray, np.ndarray]:
    X = features()
    if _regression(agent):  # measured values
        return X, X[:_N0] @ np.array([1.0, -0.5, 0.2, 0.0])
    return X, np.arange(_N0) % 2


def _regression(agent: Any) -> bool:
    """An agent for regressors only is checked on a regressor's contexts and labels."""
    return "classification" not in getattr(type(agent), "tasks", ("classification",))


def _feed(agent: Agent, X: np.ndarray, seed: int = 0) -> list[float]:
    """Advice on every row, with decisions and rewards as a stream model would give them."""
    rng = np.random.default_rng(seed)
    out = []
    regression = _regression(agent)
    for ctx in contexts(X, seed, regression=regression):
        p = agent.advise_one(ctx)
        out.append(p)
        agent.decided_one(p, bool(rng.random() < p))
        if rng.random() < 0.5:
            agent.reward_one(p, 1.0 if rng.random() < 0.3 else -0.5, -0.5)
            label = float(getattr(ctx, "mean", 0.0)) if regression else ctx.y_index
            agent.label_one(ctx.x, label)
    return out


def _fitted_agent(agent: Agent) -> Agent:
    X, y0 = _data(agent)
    fitted = agent.clone().fit(X[:_N0], np.random.default_rng(0), y0)
    assert isinstance(fitted, type(agent)), "fit(X0, rng, y0) must return self"
    return fitted


@check("an agent's kind is exploration, exploitation or hybrid")
def check_agent_kind(agent: Agent) -> None:
    assert agent.kind in _KINDS, f"kind is {agent.kind!r}, not one of {_KINDS}"
    assert isinstance(agent.name, str) and agent.name, "name must be a non-empty string"


@check("advise_one returns a probability in [0, 1] for every sample")
def check_advice_is_probability(agent: Agent) -> None:
    X, _ = _data()
    for i, p in enumerate(_feed(_fitted_agent(agent), X[_N0:])):
        ok = isinstance(p, float) and not math.isnan(p) and 0.0 <= p <= 1.0
        assert ok, f"sample {i}: advice {p!r} is not a float in [0, 1]"


@check("the same generator gives the same advice (seeded)")
def check_agent_seeded(agent: Agent) -> None:
    X, _ = _data()
    a = _feed(_fitted_agent(agent), X[_N0:])
    b = _feed(_fitted_agent(agent), X[_N0:])
    assert a == b, f"two runs from the same rng differ first at sample {_first_diff(a, b)}"


@check("fit resets all state")
def check_agent_refit_resets(agent: Agent) -> None:
    X, y0 = _data(agent)
    fitted = _fitted_agent(agent)
    head = _feed(fitted, X[_N0:120])
    again = fitted.fit(X[:_N0], np.random.default_rng(0), y0)
    redo = _feed(again, X[_N0:120])
    assert redo == head, f"advice after a second fit differs at sample {_first_diff(head, redo)}"


@check("a pickled agent continues exactly where it stopped")
def check_agent_pickle(agent: Agent) -> None:
    X, _ = _data()
    fitted = _fitted_agent(agent)
    _feed(fitted, X[_N0:100])
    twin = pickle.loads(pickle.dumps(fitted))
    a, b = _feed(fitted, X[100:], seed=1), _feed(twin, X[100:], seed=1)
    assert a == b, f"the copy's advice differs at sample {_first_diff(a, b)}"


# ---------------------------------------------------------------- policies
def _run(policy: Policy, X: np.ndarray, seed: int = 0) -> list[float]:
    rng = np.random.default_rng(seed)
    out = []
    for ctx in contexts(X, seed):
        prop = policy.propose(ctx)
        assert isinstance(prop, Proposal), "propose must return a Proposal"
        out.append(prop.p_acquire)
        acquired = bool(rng.random() < prop.p_acquire)
        policy.on_decision(prop, acquired)
        if acquired:
            policy.on_label(prop, 1.0 if rng.random() < 0.3 else -0.5, -0.5, ctx.x, ctx.y_index)
        policy.end_step()
    return out


def _started(policy: Policy) -> Policy:
    X, y0 = _data()
    started = policy.clone().start(X[:_N0], np.random.default_rng(0), y0)
    assert isinstance(started, type(policy)), "start(X0, rng, y0) must return self"
    return started


@check("a policy's proposals explain themselves: one advice and weight per named agent")
def check_policy_proposals(policy: Policy) -> None:
    X, _ = _data()
    started = _started(policy)
    named = started.named_agents
    assert named and all(isinstance(n, str) and isinstance(a, Agent) for n, a in named), (
        "named_agents must list (name, Agent) pairs"
    )
    prop = started.propose(contexts(X[_N0 : _N0 + 1])[0])
    assert 0.0 <= prop.p_acquire <= 1.0, f"p_acquire {prop.p_acquire} is not in [0, 1]"
    assert prop.advice.shape == prop.weights.shape == (len(named),), "one value per agent"
    assert abs(float(prop.weights.sum()) - 1.0) < 1e-9, "standardized weights sum to 1"


@check("the same generator gives the same proposals, and start resets all state")
def check_policy_seeded_and_reset(policy: Policy) -> None:
    X, y0 = _data()
    started = _started(policy)
    head = _run(started, X[_N0:120])
    assert _run(_started(policy), X[_N0:120]) == head, "two runs from the same rng differ"
    again = started.start(X[:_N0], np.random.default_rng(0), y0)
    assert _run(again, X[_N0:120]) == head, "proposals after a second start differ"


@check("a pickled policy continues exactly where it stopped")
def check_policy_pickle(policy: Policy) -> None:
    X, _ = _data()
    started = _started(policy)
    _run(started, X[_N0:100])
    twin = pickle.loads(pickle.dumps(started))
    assert _run(started, X[100:], seed=1) == _run(twin, X[100:], seed=1)


def _first_diff(a: list[Any], b: list[Any]) -> int:
    return next(
        (i for i, (u, v) in enumerate(zip(a, b, strict=False)) if u != v), min(len(a), len(b))
    )


AGENT_CHECKS = [
    check_agent_kind,
    check_advice_is_probability,
    check_agent_seeded,
    check_agent_refit_resets,
    check_agent_pickle,
]
POLICY_CHECKS = [check_policy_proposals, check_policy_seeded_and_reset, check_policy_pickle]
