"""EWMA control chart on the standardized agent weights, with weight flipping (spec §4 step 2)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["ChartStep", "EWMAChart"]


@dataclass(frozen=True)
class ChartStep:
    """What one chart step did: weights before/after flipping and which agents flipped."""

    weights_exp4p: np.ndarray
    weights_after: np.ndarray
    flipped: np.ndarray


class EWMAChart:
    """One EWMA chart per agent on its standardized weight ``α^s_i``.

    ``z_i ← λ α^s_i + (1 − λ) z_i`` (from ``μ = 1/N``); the variance ``s²_i`` is the
    running (Welford) sample variance of the pre-flip ``α^s_i`` over the steps so far, the
    current one included. The chart judges an agent only once its variance is positive
    (two or more distinct observations), since zero spread gives no evidence of drift.
    Limits are ``μ ± h_t λ/(2−λ) s²_i`` (``"paper"``) or ``μ ± h_t s_i sqrt(λ/(2−λ))``
    (``"shewhart"``); after each step ``h_{t+1} = h_t · exp(γ_t)``.
    """

    def __init__(
        self,
        n_agents: int,
        *,
        lam: float,
        h: float,
        horizon: int,
        gamma: float | None,
        limits: str,
        flip_scope: str,
        reset_after_flip: bool,
    ) -> None:
        if not 0.0 < lam <= 1.0:
            raise ValueError(f"lam (λ) must be in (0, 1], got {lam}")
        if limits not in ("paper", "shewhart"):
            raise ValueError(f"limits must be 'paper' or 'shewhart', got {limits!r}")
        if flip_scope not in ("agent", "all"):
            raise ValueError(f"flip_scope must be 'agent' or 'all', got {flip_scope!r}")
        self.lam = float(lam)
        self.horizon = int(horizon)
        self.gamma = gamma
        self.limits = limits
        self.flip_scope = flip_scope
        self.reset_after_flip = reset_after_flip
        self.mu = 1.0 / n_agents
        self.h = float(h)
        self.t = 0
        self.z = np.full(n_agents, self.mu)
        self.mean = np.zeros(n_agents)
        self.m2 = np.zeros(n_agents)

    def limit_halfwidth(self) -> np.ndarray:
        """Current half-width of the control limits around ``μ``, per agent."""
        if self.t < 2:
            return np.zeros_like(self.z)
        var = self.m2 / (self.t - 1)
        lam = self.lam
        if self.limits == "paper":
            return self.h * lam / (2.0 - lam) * var
        return self.h * np.sqrt(var) * math.sqrt(lam / (2.0 - lam))

    def step(self, alpha: np.ndarray) -> ChartStep:
        """Run one chart step on the raw weights `alpha` (modified in place when flipping)."""
        total = alpha.sum()
        ws = alpha / total
        before = ws.copy()
        self.t += 1
        delta = ws - self.mean
        self.mean += delta / self.t
        self.m2 += delta * (ws - self.mean)
        self.z = self.lam * ws + (1.0 - self.lam) * self.z
        half = self.limit_halfwidth()
        out = (np.abs(self.z - self.mu) > half) & (self.m2 > 0.0)
        if self.flip_scope == "all" and out.any():
            out[:] = True
        if out.any():
            ws[out] = np.maximum(2.0 * self.mu - ws[out], 1e-6 * self.mu)
            ws /= ws.sum()
            alpha[:] = total * ws
            if self.reset_after_flip:
                self.z[out] = self.mu
        gamma_t = self.t / self.horizon if self.gamma is None else float(self.gamma)
        self.h *= math.exp(gamma_t)
        if not math.isfinite(self.h):
            self.h = math.inf  # limits are then infinitely wide: no more flips
        return ChartStep(weights_exp4p=before, weights_after=ws.copy(), flipped=out)
