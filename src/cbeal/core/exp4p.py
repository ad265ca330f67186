"""Exp4.P contextual-bandit solver over agent advice, with the EWMA flipping chart (spec §4, §9)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cbeal.core.ewma import ChartStep, EWMAChart
from cbeal.core.exceptions import ParameterError
from cbeal.core.params import Params
from cbeal.core.window import KERNELS

__all__ = ["Exp4P"]

K_ARMS = 2  # acquire, skip
_MAX_EXP = 700.0  # math.exp overflows just above 709
_FLOOR = 1e-300  # the smallest weight: far from underflow, so that no weight becomes 0


class Exp4P(Params):
    """Exp4.P-EWMA: weighs N agents' advice on the two arms (acquire, skip).

    Agent ``i`` advises ``ξ_i = [p_i, 1 − p_i]``. The action distribution is
    ``P_a = (1 − K p_min) Σ_i α_i ξ_{i,a} / Σ_i α_i + p_min``. After the draw the weights
    are updated by ``α_i ← α_i exp(η (ĝ_i + v̂_i sqrt(c/(KT))))`` with the paper's step
    ``η = p_min/2`` unless ``eta`` is given; the update is
    split into the ``v̂`` factor (applied at decision time, :meth:`update_decision`) and the
    ``ĝ`` factor (applied when the label arrives, :meth:`update_reward`) so that late labels
    are served exactly. :meth:`chart_step` then runs the EWMA chart (step 2).

    Parameters
    ----------
    horizon
        ``T``, sets ``p_min``, the confidence term and ``γ_t = t/T``.
    p_min
        Minimum probability of each arm; ``None`` means ``sqrt(ln N / (K T))``.
    delta
        ``δ``, used by ``confidence="beygelzimer"``.
    confidence
        ``"paper"``: ``c = ln N``; ``"beygelzimer"``: ``c = ln(N/δ)``.
    ewma
        ``False`` gives plain Exp4.P (the paper's ablation).
    eta
        Step size of the weight update; ``None`` means the paper's ``p_min / 2``. With six
        agents and ``T = 2000`` that is ≈ 0.01, so the weights barely move within a stream
        of a thousand samples; a larger step (e.g. 0.2) lets them follow the rewards.
    lam, h, gamma, limits, flip_scope, reset_after_flip
        The EWMA chart: weighting ``λ``, initial limit factor ``h``, growth ``γ`` (``None``
        means ``γ_t = t/T``), ``"paper"`` or ``"shewhart"`` limits, flip each agent out of
        control (``"agent"``) or all agents when any is (``"all"``), and restart a flipped
        agent's EWMA at ``μ``.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Exp4P
    >>> solver = Exp4P().start(2)
    >>> advice = np.array([1.0, 0.0])          # agent 1 says acquire, agent 2 skip
    >>> p = solver.distribution(advice)
    >>> round(p, 4)                            # (1 - 2 p_min) * 0.5 + p_min
    0.5
    >>> solver.update_decision(advice, p)
    >>> solver.update_reward(advice, p, reward=1.0)   # acquiring paid off
    >>> w = solver.weights()
    >>> bool(w[0] > w[1])
    True
    """

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"horizon": 500, "limits": "shewhart"}]

    def __init__(
        self,
        *,
        horizon: int = 2000,
        p_min: float | None = None,
        delta: float = 0.1,
        confidence: str = "paper",
        ewma: bool = True,
        lam: float = 0.3,
        h: float = 5.0,
        gamma: float | None = None,
        limits: str = "paper",
        flip_scope: str = "agent",
        reset_after_flip: bool = True,
        eta: float | None = None,
    ) -> None:
        self.horizon = horizon
        self.p_min = p_min
        self.delta = delta
        self.confidence = confidence
        self.ewma = ewma
        self.lam = lam
        self.h = h
        self.gamma = gamma
        self.limits = limits
        self.flip_scope = flip_scope
        self.reset_after_flip = reset_after_flip
        self.eta = eta

    def start(self, n_agents: int) -> Exp4P:
        """Reset the weights for `n_agents` agents (N ≥ 2)."""
        if n_agents < 2:
            raise ParameterError(
                f"Exp4.P needs at least 2 agents, got {n_agents}: with one agent p_min = 0 "
                "and the variance term divides by zero. Run a single agent with "
                "SingleAgentLearner instead."
            )
        if int(self.horizon) < 1:
            raise ParameterError(f"horizon T must be ≥ 1, got {self.horizon}")
        if self.confidence not in ("paper", "beygelzimer"):
            raise ParameterError(
                f"confidence must be 'paper' or 'beygelzimer', got {self.confidence!r}"
            )
        T = int(self.horizon)
        if self.p_min is None:
            p_min = math.sqrt(math.log(n_agents) / (K_ARMS * T))
        else:
            p_min = float(self.p_min)
        if not 0.0 < p_min <= 1.0 / K_ARMS:
            # p_min = 0 makes the step size p_min/2 vanish and the propensities reach 0.
            raise ParameterError(f"p_min must be in (0, 1/K] = (0, 0.5], got {p_min}")
        c = math.log(n_agents) if self.confidence == "paper" else math.log(n_agents / self.delta)
        step = 0.5 * p_min if self.eta is None else float(self.eta)
        if not step > 0.0:
            raise ParameterError(f"eta must be > 0 (or None for p_min / 2), got {self.eta}")
        self.n_agents_ = n_agents
        self.p_min_ = p_min
        self.step_ = step
        self.bonus_ = math.sqrt(c / (K_ARMS * T))
        self._alpha: Any = [1.0] * n_agents  # a float array once the compiled kernels ran
        self.t_ = 0
        self.chart_: EWMAChart | None = None
        if self.ewma:
            self.chart_ = EWMAChart(
                n_agents,
                lam=float(self.lam),
                h=float(self.h),
                horizon=T,
                gamma=self.gamma,
                limits=self.limits,
                flip_scope=self.flip_scope,
                reset_after_flip=bool(self.reset_after_flip),
            )
        return self

    # The weights live in a list of floats: with a handful of agents, plain float
    # arithmetic is several times faster than numpy calls on tiny arrays.
    @property
    def alpha_(self) -> np.ndarray:
        """The raw decision powers ``α`` (a copy)."""
        return np.array(self._alpha)

    @alpha_.setter
    def alpha_(self, value: np.ndarray) -> None:
        self._alpha = [float(v) for v in value]

    def _array(self) -> np.ndarray:
        """The weights as the compiled kernels keep them: a float array (the numpy code
        keeps a list; either works for both)."""
        alpha = self._alpha
        if type(alpha) is not np.ndarray:
            alpha = self._alpha = np.array(alpha, dtype=np.float64)
        return alpha

    def weights(self) -> np.ndarray:
        """Standardized weights ``α^s = α / Σα``."""
        kernel = KERNELS.get("weights")
        if kernel is not None:
            return kernel(self._array())
        total = sum(self._alpha)
        return np.array([a / total for a in self._alpha])

    def distribution(self, advice: np.ndarray) -> float:
        """Probability of the acquire arm, ``P_1`` (the skip arm has ``1 − P_1``)."""
        kernel = KERNELS.get("distribution")
        if kernel is not None:
            return float(kernel(self._array(), advice, self.p_min_))
        alpha = self._alpha
        mix = sum(a * x for a, x in zip(alpha, advice.tolist(), strict=True)) / sum(alpha)
        return (1.0 - K_ARMS * self.p_min_) * mix + self.p_min_

    def mix(self, advice: np.ndarray, epsilon: float) -> tuple[float, np.ndarray]:
        """``(1 − ε) · distribution(advice) + ε`` and the :meth:`weights`, at once (one
        compiled call when the kernels are registered)."""
        kernel = KERNELS.get("mix")
        if kernel is None:
            p = self.distribution(advice)
            return (1.0 - epsilon) * p + epsilon, self.weights()
        w = np.empty(self.n_agents_)
        return float(kernel(self._array(), advice, self.p_min_, epsilon, w)), w

    def update_decision(self, advice: np.ndarray, p_acquire: float) -> None:
        """Apply the ``v̂`` factor with the propensities ``[p_acquire, 1 − p_acquire]`` used."""
        k = self.step_ * self.bonus_
        kernel = KERNELS.get("update_decision")
        if kernel is not None:
            kernel(self._array(), advice, float(p_acquire), k)
            return
        p1, p2 = p_acquire, 1.0 - p_acquire
        self._multiply([k * (x / p1 + (1.0 - x) / p2) for x in advice.tolist()])

    def update_reward(self, advice: np.ndarray, p_acquire: float, reward: float) -> None:
        """Apply the ``ĝ`` factor for reward `reward` of the acquire arm drawn with `p_acquire`."""
        if reward == 0.0:
            return
        kernel = KERNELS.get("update_reward")
        if kernel is not None:
            kernel(self._array(), advice, self.step_, float(reward), float(p_acquire))
            return
        k = self.step_ * reward / p_acquire
        xs = advice.tolist()
        exponents = [k * x for x in xs]
        if not all(-_MAX_EXP < e < _MAX_EXP for e in exponents):
            # a huge reward: this order of multiplication never gives inf · 0 = NaN
            scale = self.step_ / p_acquire
            exponents = [(scale * x) * reward for x in xs]
        self._multiply(exponents)

    def _multiply(self, exponents: list[float]) -> None:
        """``α_i ← α_i · exp(e_i)`` without overflow (a common factor leaves decisions alone)."""
        if all(-_MAX_EXP < e < _MAX_EXP for e in exponents):
            # Python floats: an overflow gives inf quietly (numpy scalars, which the chart
            # may hand back, would warn), caught by the check below
            alpha = [float(a) * math.exp(e) for a, e in zip(self._alpha, exponents, strict=True)]
            if 0.0 < sum(alpha) < math.inf:  # else every weight under- or one overflowed
                self._alpha = alpha
                self._keep_finite()
                return
        clamped = [min(max(e, -1e300), 1e300) for e in exponents]
        top = max(clamped)
        self._alpha = [
            a * math.exp(max(e - top, -_MAX_EXP)) for a, e in zip(self._alpha, clamped, strict=True)
        ]
        self._keep_finite()

    def chart_step(self) -> ChartStep:
        """End the step: run the EWMA chart (if enabled) and return the weights it saw and left."""
        self.t_ += 1
        if self.chart_ is None:
            w = self.weights()
            return ChartStep(w, w.copy(), np.zeros(self.n_agents_, dtype=bool))
        alpha = self._array() if "chart_step" in KERNELS else self._alpha
        step, self._alpha = self.chart_.step(alpha)
        return step

    def _keep_finite(self) -> None:
        # Decisions depend only on weight ratios; rescale before over/underflow. The floor
        # keeps every weight positive (a weight 1e-250 times the total has no influence on
        # any float64 decision, but 0 could never recover).
        total = sum(self._alpha)
        if not 1e-100 <= total <= 1e100:
            self._alpha = [a / total for a in self._alpha]
            total = 1.0
        floor = max(total * 1e-250, _FLOOR)  # total * 1e-250 alone underflows below 1e-74
        if min(self._alpha) < floor:
            self._alpha = [max(a, floor) for a in self._alpha]
