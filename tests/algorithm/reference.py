"""A deliberately plain re-implementation of the paper's Algorithms 1 and 2 (CbeAL with
Exp4.P-EWMA, labels arriving at once), used to check the factorised streaming code.

It shares only the agents and the learner adapter with the library (both tested on their
own); the bandit update is applied in one piece and the chart variance is recomputed from
the whole history with ``np.var`` instead of Welford's recursion.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cbeal.core import Context
from cbeal.learners.adapter import LearnerAdapter


def reference_cbeal(
    named_agents: list,
    estimator: Any,
    X0: np.ndarray,
    y0: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    *,
    budget: int,
    seed: int,
    epsilon: float = 0.01,
    rho_plus: float = 1.0,
    rho_minus: float = -0.5,
    T: int = 2000,
    lam: float = 0.3,
    h: float = 5.0,
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    classes = np.unique(y0)
    index = {c: i for i, c in enumerate(classes.tolist())}
    learner = LearnerAdapter(estimator, classes, int(rng.integers(2**31 - 1)))
    pool_X, pool_y = list(X0), [index[v] for v in y0.tolist()]
    learner.fit(np.asarray(pool_X), np.asarray(pool_y), warn=False)
    agents = [a.clone().fit(X0) for _, a in named_agents]
    N = len(agents)
    p_min = math.sqrt(math.log(N) / (2 * T))
    bonus = math.sqrt(math.log(N) / (2 * T))
    mu = 1.0 / N
    alpha = np.ones(N)
    z = np.full(N, mu)
    history: list[np.ndarray] = []
    h_t = h
    used = 0
    acquired, rewards, w_after = [], [], []
    for x, yt in zip(X, y, strict=True):
        proba = learner.predict_proba(x[None, :])[0]
        ctx = Context(x, proba)
        xi = np.array([a.advise_one(ctx) for a in agents])
        if used >= budget:  # Algorithm 1 stops acquiring: no solver step any more
            acquired.append(False)
            rewards.append(0.0)
            w_after.append(alpha / alpha.sum())
            continue
        P1 = (1 - 2 * p_min) * float(alpha @ xi) / alpha.sum() + p_min
        P1 = (1 - epsilon) * P1 + epsilon
        acq = bool(rng.random() < P1)
        r = 0.0
        if acq:
            used += 1
            yi = index[yt.item() if hasattr(yt, "item") else yt]
            r = rho_plus if yi != ctx.y_index else rho_minus
        q = np.array([r / P1, 0.0]) if acq else np.array([0.0, 0.0])
        g = xi * q[0] + (1 - xi) * q[1]
        v = xi / P1 + (1 - xi) / (1 - P1)
        alpha = alpha * np.exp(p_min / 2 * (g + v * bonus))
        if acq:
            for a, adv in zip(agents, xi, strict=True):
                a.reward_one(float(adv), r, rho_minus)
            pool_X.append(x)
            pool_y.append(index[yt.item() if hasattr(yt, "item") else yt])
            learner.fit(np.asarray(pool_X), np.asarray(pool_y), warn=False)
        # Step 2: EWMA chart with flipping
        ws = alpha / alpha.sum()
        history.append(ws.copy())
        z = lam * ws + (1 - lam) * z
        if len(history) >= 2:
            var = np.var(np.array(history), axis=0, ddof=1)
            half = h_t * lam / (2 - lam) * var
            out = (np.abs(z - mu) > half) & (var > 0)
            if out.any():
                total = alpha.sum()
                ws[out] = np.maximum(2 * mu - ws[out], 1e-6 * mu)
                ws = ws / ws.sum()
                alpha = total * ws
                z[out] = mu
        h_t *= math.exp(len(history) / T)
        acquired.append(acq)
        rewards.append(r)
        w_after.append(alpha / alpha.sum())
    return {
        "acquired": np.array(acquired),
        "reward": np.array(rewards),
        "weights_after": np.array(w_after),
        "proba_test": learner.predict_proba,  # type: ignore[dict-item]
    }
