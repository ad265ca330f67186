"""The paper's appendix "Characterization of Agents", checked by Monte Carlo with the real agents.

Setting of the appendix: the window ``W`` holds ``L`` samples of ``N_q(μ1, σ1² I)`` and the
arriving sample ``x_t`` comes from ``N_q(μ2, σ2² I)``; ``q = 15``.

* :func:`ld_analytic` evaluates the appendix's expected LD acquisition probability
  (its eq. ``ld_prob``): squared distances approximated by normals, the ``L − 1`` distances
  of a member treated as independent, ``E[p] = P(Z_i < Y_i) / δ_L`` — *without* the agent's
  cap ``min(1, ·)``, which is why the appendix's expectation can exceed 1. We integrate the
  normal density with its ``1/s`` factor (the printed formula omits it). A second curve
  applies the cap under the same independence assumption (``lsf ~ Binomial(L, P)``).
* :func:`ld_monte_carlo` fits a real :class:`~cbeal.core.LowDensityAgent` on a drawn window
  and asks it about a drawn ``x_t``: the capped probability it acts on, and the uncapped
  ``lsf / (L δ_L)``.
* :func:`ral_monte_carlo` does the same for a :class:`~cbeal.core.ReinforcedAgent` on a
  logistic regression trained on the window (labels from a hyperplane through ``μ1``), for
  the appendix's LD-versus-RAL comparison over window size and cluster distance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cbeal.core import Context, LowDensityAgent, ReinforcedAgent

__all__ = ["ld_analytic", "ld_monte_carlo", "ral_monte_carlo"]


def _moments(m2: float, s_a: float, s_b: float, q: int) -> tuple[float, float]:
    """Mean and s.d. of the normal approximation of a squared distance (appendix)."""
    v = s_a**2 + s_b**2
    return m2 + v * q, float(np.sqrt(4 * v * m2 + 2 * q * v**2))


def ld_analytic(
    L: int, m2: float, *, s1: float = 1.0, s2: float = 1.0, q: int = 15, delta: float = 0.05
) -> tuple[float, float]:
    """Expected LD acquisition probability: (the appendix's uncapped value, capped at 1).

    `m2` is ``‖μ1 − μ2‖²``. Both use the appendix's independence approximation.

    >>> raw, capped = ld_analytic(50, 0.0)
    >>> round(raw * 0.05 * 50, 3) == round(50 * raw * 0.05, 3) and 0.0 <= capped <= 1.0
    True
    """
    from scipy.special import ndtr
    from scipy.stats import binom

    mx, sx = _moments(0.0, s1, s1, q)  # member-to-member distances inside the window
    my, sy = _moments(m2, s1, s2, q)  # member-to-x_t distances
    y = np.linspace(max(0.0, my - 10 * sy), my + 10 * sy, 20001)
    dens = np.exp(-0.5 * ((y - my) / sy) ** 2) / (sy * np.sqrt(2 * np.pi))
    p_far = float(np.trapezoid(ndtr((y - mx) / sx) ** (L - 1) * dens, y))
    raw = p_far / delta
    k = np.arange(L + 1)
    capped = float(np.sum(binom.pmf(k, L, p_far) * np.minimum(1.0, k / (L * delta))))
    return raw, capped


def _cluster(rng: np.random.Generator, n: int, mu: np.ndarray, s: float) -> np.ndarray:
    return mu + s * rng.standard_normal((n, mu.size))


def _far(rng: np.random.Generator, m2: float, q: int) -> np.ndarray:
    u = rng.standard_normal(q)
    return np.sqrt(m2) * u / np.linalg.norm(u)


def ld_monte_carlo(
    L: int,
    m2: float,
    *,
    s1: float = 1.0,
    s2: float = 1.0,
    q: int = 15,
    delta: float = 0.05,
    reps: int = 300,
    seed: int = 0,
) -> tuple[float, float]:
    """Mean (capped advice, uncapped ``lsf/(L δ_L)``) of a real LD agent over `reps` draws.

    >>> capped, raw = ld_monte_carlo(20, 400.0, reps=5)
    >>> capped, raw                    # a remote cluster: every member's farthest point
    (1.0, 20.0)
    """
    rng = np.random.default_rng(seed)
    capped, raw = np.empty(reps), np.empty(reps)
    proba = np.array([0.5, 0.5])
    for r in range(reps):
        W = _cluster(rng, L, np.zeros(q), s1)
        x = _cluster(rng, 1, _far(rng, m2, q), s2)[0]
        agent = LowDensityAgent(window_size=L, sparsity_fraction=delta)
        agent.fit(W)
        raw[r] = agent.lsf(agent.window_.distances(x)) / (L * delta)
        capped[r] = agent.advise_one(Context(x, proba))
    return float(capped.mean()), float(raw.mean())


def ral_monte_carlo(
    L: int, m2: float, *, theta: float = 0.95, q: int = 15, reps: int = 100, seed: int = 0
) -> float:
    """Mean advice of a real RAL agent (threshold `theta`) on ``x_t`` from the far cluster.

    The learner is a logistic regression trained on the ``L`` window samples, labelled by
    a random hyperplane through ``μ1`` (the appendix's base learner; ``D_t = W``).
    """
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(seed)
    out = np.empty(reps)
    for r in range(reps):
        W = _cluster(rng, L, np.zeros(q), 1.0)
        w = rng.standard_normal(q)
        y = (W @ w > 0).astype(int)
        if y.min() == y.max():
            y[0] = 1 - y[0]
        clf = LogisticRegression(max_iter=1000).fit(W, y)
        x = _cluster(rng, 1, _far(rng, m2, q), 1.0)[0]
        agent = ReinforcedAgent(theta0=theta).fit(W)
        out[r] = agent.advise_one(Context(x, clf.predict_proba(x[None, :])[0]))
    return float(out.mean())


def characterize(
    windows: Sequence[int] = (10, 20, 50, 100, 150),
    distances: Sequence[float] = (0, 5, 10, 20, 40, 80, 160),
    ratios: Sequence[float] = (0.5, 1.0, 1.5, 2.0, 3.0),
    reps: int = 300,
) -> dict[str, Any]:
    """Every curve of the two appendix figures, analytic and Monte Carlo, as plain lists."""
    ld: dict[str, Any] = {
        "windows": list(windows),
        "distances": list(distances),
        "ratios": list(ratios),
    }
    grid = [[ld_analytic(L, m) for m in distances] for L in windows]
    mc = [
        [ld_monte_carlo(L, m, reps=reps, seed=L * 1000 + i) for i, m in enumerate(distances)]
        for L in windows
    ]
    ld["analytic_raw"] = [[g[0] for g in row] for row in grid]
    ld["analytic_capped"] = [[g[1] for g in row] for row in grid]
    ld["mc_capped"] = [[g[0] for g in row] for row in mc]
    ld["mc_raw"] = [[g[1] for g in row] for row in mc]
    by_ratio = [[ld_analytic(L, 4.0, s2=s) for s in ratios] for L in windows]
    ld["ratio_analytic_raw"] = [[g[0] for g in row] for row in by_ratio]
    ld["ratio_analytic_capped"] = [[g[1] for g in row] for row in by_ratio]
    ld["ratio_mc_capped"] = [
        [ld_monte_carlo(L, 4.0, s2=s, reps=reps, seed=7 + L)[0] for s in ratios] for L in windows
    ]
    # LD versus RAL (appendix "Numerical Comparison": δ_L = 0.5)
    comp = {
        "ld_analytic": [[ld_analytic(L, m, delta=0.5)[0] for m in distances] for L in windows],
        "ld_mc": [
            [ld_monte_carlo(L, m, delta=0.5, reps=reps, seed=3 + L)[0] for m in distances]
            for L in windows
        ],
        "ral_mc": [
            [ral_monte_carlo(L, m, reps=max(50, reps // 3), seed=5 + L) for m in distances]
            for L in windows
        ],
    }
    return {"ld": ld, "comparison": comp}
