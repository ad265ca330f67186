"""EWMA control chart on the standardized agent weights, with weight flipping (spec §4 step 2)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from cbeal.core.exceptions import ParameterError
from cbeal.core.window import KERNELS

__all__ = ["ChartStep", "EWMAChart"]


@dataclass(frozen=True, init=False)
class ChartStep:
    """What one chart step did: weights before/after flipping and which agents flipped."""

    weights_exp4p: np.ndarray
    weights_after: np.ndarray
    flipped: np.ndarray

    def __init__(
        self, weights_exp4p: np.ndarray, weights_after: np.ndarray, flipped: np.ndarray
    ) -> None:
        # the fields at once: a third of the generated frozen __init__'s time, every step
        self.__dict__.update(
            weights_exp4p=weights_exp4p, weights_after=weights_after, flipped=flipped
        )


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
            raise ParameterError(f"lam (λ) must be in (0, 1], got {lam}")
        if limits not in ("paper", "shewhart"):
            raise ParameterError(f"limits must be 'paper' or 'shewhart', got {limits!r}")
        if flip_scope not in ("agent", "all"):
            raise ParameterError(f"flip_scope must be 'agent' or 'all', got {flip_scope!r}")
        self.lam = float(lam)
        self.horizon = int(horizon)
        self.gamma = gamma
        self.limits = limits
        self.flip_scope = flip_scope
        self.reset_after_flip = reset_after_flip
        self.mu = 1.0 / n_agents
        self.h = float(h)
        self.t = 0
        # Plain floats: with a handful of agents this is several times faster than numpy.
        # (float arrays once the compiled kernels ran: same values, either works for both)
        self.z: Any = [self.mu] * n_agents
        self.mean: Any = [0.0] * n_agents
        self.m2: Any = [0.0] * n_agents

    def limit_halfwidth(self) -> np.ndarray:
        """Current half-width of the control limits around ``μ``, per agent."""
        return np.array(self._halfwidth())

    def _halfwidth(self) -> list[float]:
        if self.t < 2:
            return [0.0] * len(self.z)
        lam, n1 = self.lam, self.t - 1
        if self.limits == "paper":
            k = self.h * lam / (2.0 - lam)
            return [k * m2 / n1 for m2 in self.m2]
        k = self.h * math.sqrt(lam / (2.0 - lam))
        return [k * math.sqrt(m2 / n1) for m2 in self.m2]

    def step(self, alpha: Any) -> tuple[ChartStep, Any]:
        """One chart step on the raw weights `alpha`; returns the step and the new weights."""
        kernel = KERNELS.get("chart_step")
        if kernel is not None and type(alpha) is np.ndarray:
            return self._compiled(kernel, alpha)
        total = sum(alpha)
        ws = [a / total for a in alpha]
        self.t += 1
        t, lam, mu = self.t, self.lam, self.mu
        z, mean, m2 = self.z, self.mean, self.m2
        for i, w in enumerate(ws):
            delta = w - mean[i]
            mean[i] += delta / t
            m2[i] += delta * (w - mean[i])
            z[i] = lam * w + (1.0 - lam) * z[i]
        half = self._halfwidth()
        out = [abs(z[i] - mu) > half[i] and m2[i] > 0.0 for i in range(len(ws))]
        if self.flip_scope == "all" and any(out):
            out = [True] * len(ws)
        after = ws
        if any(out):
            floor = 1e-6 * mu
            after = [max(2.0 * mu - w, floor) if o else w for w, o in zip(ws, out, strict=True)]
            norm = sum(after)
            after = [w / norm for w in after]
            alpha = [total * w for w in after]
            if self.reset_after_flip:
                for i, o in enumerate(out):
                    if o:
                        z[i] = mu
        gamma_t = t / self.horizon if self.gamma is None else float(self.gamma)
        self.h *= math.exp(min(gamma_t, 700.0))
        if not math.isfinite(self.h):
            self.h = math.inf  # limits are then infinitely wide: no more flips
        step = ChartStep(
            weights_exp4p=np.array(ws), weights_after=np.array(after), flipped=np.array(out)
        )
        return step, alpha

    def _compiled(self, kernel: Any, alpha: np.ndarray) -> tuple[ChartStep, Any]:
        """:meth:`step` by the compiled kernel (:mod:`cbeal.kernels`): the same arithmetic;
        the chart's state becomes the rows of one float array (``z``, ``mean`` and ``m2``
        stay attributes, as views), `alpha` is flipped in place."""
        packed = self.__dict__.get("_packed")
        if packed is None or type(self.z) is not np.ndarray or self.z.base is not packed[0]:
            state = np.array([self.z, self.mean, self.m2], dtype=np.float64)
            self.z, self.mean, self.m2 = state[0], state[1], state[2]
            flags = (
                (self.limits == "paper")
                | (self.flip_scope == "all") << 1
                | bool(self.reset_after_flip) << 2
            )
            packed = self.__dict__["_packed"] = (state, flags)
        out = np.empty((2, alpha.shape[0]))
        flipped = np.empty(alpha.shape[0], dtype=bool)
        self.t += 1
        gamma_t = self.t / self.horizon if self.gamma is None else float(self.gamma)
        self.h = kernel(
            alpha, packed[0], out, flipped, self.t, self.lam, self.mu, self.h, packed[1], gamma_t
        )
        return ChartStep(out[0], out[1], flipped), alpha

    def _modelfile_state(self) -> dict[str, Any]:
        """What a model file keeps: all but the compiled kernel's packed state."""
        return {k: v for k, v in self.__dict__.items() if k != "_packed"}
