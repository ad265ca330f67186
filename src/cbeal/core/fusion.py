"""Score fusion: one decision from many members' graded scores and one budget pacer.

Beside the paper's voting policy (:class:`~cbeal.core.AgentEnsemble`, where every agent
paces itself and Exp4.P-EWMA weighs the votes), score fusion asks each member for a graded
score in [0, 1] (:meth:`~cbeal.core.Agent.score_one`), fuses them as a weighted mean
(:mod:`cbeal.core.fusion_weights`) and lets one :class:`~cbeal.core.QuantilePacer` spend
the budget on the samples whose fused score is high among the recent ones: the
:class:`~cbeal.core.DeficitPacer` (``pacer="deficit"``: it may wait, catch up and run ahead)
or the strict :class:`~cbeal.core.QuantilePacer` (``pacer="accrual"``: a label only once it
has accrued).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.deficit_pacer import DeficitPacer
from cbeal.core.ensemble import EnsembleAgents, name_agents
from cbeal.core.exceptions import ParameterError
from cbeal.core.fusion_weights import EqualWeights, FusionWeights
from cbeal.core.pacer import QuantilePacer
from cbeal.core.policy import Policy, Proposal
from cbeal.core.window_agent import WindowAgent, WindowGroup

__all__ = ["ScoreFusion", "share_windows"]


def share_windows(
    agents: list[Agent], X0: np.ndarray
) -> tuple[list[tuple[list[int], WindowGroup]], list[tuple[int, Agent]]]:
    """Window agents of one metric that score by their advice share one distance
    computation per sample: ``(groups by agent positions, the other agents)``."""
    by_metric: dict[str, list[int]] = {}
    for i, agent in enumerate(agents):
        if isinstance(agent, WindowAgent) and type(agent).score_one is Agent.score_one:
            by_metric.setdefault(agent.metric, []).append(i)
    groups = [
        (idx, WindowGroup([agents[i] for i in idx], X0))  # type: ignore[misc]
        for idx in by_metric.values()
        if len(idx) > 1
    ]
    grouped = {i for idx, _ in groups for i in idx}
    return groups, [(i, a) for i, a in enumerate(agents) if i not in grouped]


class ScoreFusion(EnsembleAgents, Policy):
    """Fuse the members' scores, then pace one budget over the fused score.

    Acquire with probability ``(1 − ε) · ask + ε``, where ``ask`` is the pacer's yes/no on
    the fused score ``Σ w_i s_i``. A member's reward learning (RAL's threshold) and
    pacing state see the ensemble's decisions, as in the voting policy.

    Parameters
    ----------
    agents
        The members: agents or (name, agent) pairs (one is allowed: a member alone,
        paced). Filled in by :class:`~cbeal.CbeAL` when it holds the fusion.
    weights
        A :class:`~cbeal.core.FusionWeights` rule; None = :class:`EqualWeights`.
    budget_fraction
        The share of samples the pacer spends (the rate of a rate budget, or ``B / n``);
        :class:`~cbeal.CbeAL` fills it in from its budget.
    pacer
        ``"accrual"``: :class:`~cbeal.core.QuantilePacer`, a label only once it has
        accrued; ``"deficit"``: :class:`~cbeal.core.DeficitPacer`, the share asked for
        follows the labels owed, so it may run ahead of the even schedule (its `window`
        is this one; `tolerance`, the head start and the horizon are the accrual pacer's).
    window, tolerance, head_start, head_start_over
        The pacer's window, tolerance and head start (see
        :class:`~cbeal.core.QuantilePacer`); :class:`~cbeal.CbeAL` sets no head start
        under a rate budget, whose cap accrues at the same rate.
    horizon
        The sample by which the pacer should have spent the budget (see
        :class:`~cbeal.core.QuantilePacer`): a number, None (unknown: no end in view) or
        ``"auto"``, which :class:`~cbeal.CbeAL` resolves from its budget (``total / rate``
        of a rate budget with a total, ``B / b`` of a count ``B``; otherwise unknown).
    epsilon
        ε of ε-greedy exploration on top of the pacer (:class:`~cbeal.CbeAL` passes its
        own).

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context, ReinforcedAgent, ScoreFusion, SpaceFillingAgent
    >>> fusion = ScoreFusion(agents=[("SPF", SpaceFillingAgent()), ("RAL", ReinforcedAgent())],
    ...                      budget_fraction=0.5)
    >>> fusion = fusion.start(np.random.default_rng(0).normal(size=(20, 3)))
    >>> prop = fusion.propose(Context(np.full(3, 9.0), np.array([0.99, 0.01])))
    >>> prop.advice.tolist(), prop.weights.tolist()   # SPF: far away; RAL: quite certain
    ([1.0, 0.1], [0.5, 0.5])
    >>> round(prop.score, 3), prop.p_acquire          # the head start's label: asked
    (0.55, 1.0)
    """

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        from cbeal.core.presets import paper_agents

        return [{"agents": paper_agents("CBEAL-4*"), "budget_fraction": 0.1, "epsilon": 0.05}]

    def __init__(
        self,
        *,
        agents: Sequence[Any] | None = None,
        weights: FusionWeights | None = None,
        budget_fraction: float | None = None,
        window: int = 200,
        tolerance: float = 1.0,
        head_start: float = 1.0,
        head_start_over: float = 0.0,
        horizon: float | str | None = None,
        epsilon: float = 0.0,
        pacer: str = "accrual",
    ) -> None:
        self.agents = agents
        self.weights = weights
        self.budget_fraction = budget_fraction
        self.pacer = pacer
        self.window = window
        self.tolerance = tolerance
        self.head_start = head_start
        self.head_start_over = head_start_over
        self.horizon = horizon
        self.epsilon = epsilon

    @property
    def named_agents(self) -> list[tuple[str, Agent]]:
        return self.agents_

    def start(
        self,
        X0: np.ndarray,
        rng: np.random.Generator | None = None,
        y0: np.ndarray | None = None,
    ) -> ScoreFusion:
        if not self.agents:
            raise ParameterError("score fusion needs at least one member agent")
        if self.budget_fraction is None:
            raise ParameterError(
                "score fusion paces the budget to a share of the samples: give "
                "budget_fraction (e.g. 0.05), or give the model its budget as a rate"
            )
        if not 0.0 <= float(self.epsilon) < 1.0:
            raise ParameterError(f"epsilon must be in [0, 1), got {self.epsilon}")
        rule = self.weights if self.weights is not None else EqualWeights()
        if not isinstance(rule, FusionWeights):
            raise ParameterError(
                f"weights must be a FusionWeights rule such as EqualWeights() or "
                f"EvidenceWeights(), got {type(rule).__name__}"
            )
        self.agents_ = [(n, a.clone().fit(X0, rng, y0)) for n, a in name_agents(self.agents)]
        self.__dict__.pop("_deciders", None)
        m = len(self.agents_)
        self.rule_ = rule.clone().start(m)
        self.__dict__.pop("_kept_weights", None)
        horizon = self.horizon
        if isinstance(horizon, str):
            if horizon != "auto":
                raise ParameterError(
                    f"horizon must be a number of samples, None or 'auto', got {horizon!r}"
                )
            horizon = None  # not resolved by a model: no end in view
        self.pacer_: QuantilePacer | DeficitPacer
        if self.pacer == "deficit":
            self.pacer_ = DeficitPacer(
                budget_fraction=self.budget_fraction, window=self.window
            ).start()
        elif self.pacer == "accrual":
            self.pacer_ = QuantilePacer(
                budget_fraction=self.budget_fraction,
                window=self.window,
                tolerance=self.tolerance,
                head_start=self.head_start,
                head_start_over=self.head_start_over,
                horizon=horizon,
            ).start(m)
        else:
            raise ParameterError(f"pacer must be 'deficit' or 'accrual', got {self.pacer!r}")
        self._plan(X0)
        return self

    @property
    def budget_fraction_now(self) -> float:
        """The share of the samples the pacer spends now."""
        return float(self.pacer_.budget_fraction)

    def repace(self, budget_fraction: float) -> None:
        """A new budget from the next sample on: the pacer spends `budget_fraction` of the
        coming samples, owing nothing yet (a renewal; the recent scores stay)."""
        self.budget_fraction = budget_fraction
        self.pacer_.repace(budget_fraction)

    def _plan(self, X0: np.ndarray) -> None:
        self._groups, self._solo = share_windows([a for _, a in self.agents_], X0)
        self.__dict__.pop("_scorers", None)

    def weights_now(self) -> np.ndarray:
        """The members' current weights."""
        return self.rule_.weights()

    def _modelfile_state(self) -> dict[str, Any]:
        """What a model file keeps: all but the caches of the hot path (rebuilt at once)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_kept_weights", "_scorers")}

    def _weights(self) -> np.ndarray:
        """The rule's current weights as a read-only array of their own, the same object
        while they stay the same (decisions share it; the pacer then knows at once that
        they did not change). A rule with its own ``weights()`` is asked every time."""
        rule = self.rule_
        if type(rule).weights is not FusionWeights.weights:
            return rule.weights()
        kept = self.__dict__.get("_kept_weights")
        source = rule.weights_
        if kept is not None and type(rule) is EqualWeights and kept[2] is source:
            return kept[1]  # equal weights never change (a new start makes a new array)
        now = source.tolist()
        if kept is None or kept[0] != now:
            w = np.array(source, dtype=np.float64)
            w.setflags(write=False)
            kept = (w.tolist(), w, source)
        self.__dict__["_kept_weights"] = (kept[0], kept[1], source)
        return kept[1]

    def prepare(self, X: np.ndarray | None) -> None:
        self._prepare_ahead(X, len(self.agents_))

    def propose(self, ctx: Context) -> Proposal:
        if self._groups:
            scores = self._group_advice(ctx.x, len(self.agents_))
            for i, agent in self._solo:
                scores[i] = agent.score_one(ctx)
            values = scores.tolist()
        else:  # every member scores alone, in order: one array from the list
            scorers = self.__dict__.get("_scorers")
            if scorers is None:  # the members' bound methods, looked up once (score_one
                # itself when overridden, else what it returns: advise_one, one call less)
                scorers = self.__dict__["_scorers"] = [
                    a.advise_one if type(a).score_one is Agent.score_one else a.score_one
                    for _, a in self._solo
                ]
            values = [score(ctx) for score in scorers]
            scores = np.array(values, dtype=np.float64)
        total = sum(values)  # plain floats: cheaper than numpy's reductions
        if not (min(values) >= 0.0 and max(values) <= 1.0 and total == total):  # NaN fails
            bad = [n for (n, _), s in zip(self.agents_, scores, strict=True) if not 0 <= s <= 1]
            raise ParameterError(f"members {bad} gave scores outside [0, 1]: {scores.tolist()}")
        w = self._weights()
        pacer = self.pacer_
        if isinstance(pacer, DeficitPacer):
            fused, threshold, ask = pacer.decide(float(scores @ w))
        else:
            fused, threshold, ask = pacer.decide(scores, w)
        rule = self.rule_
        if type(rule).observe_one is not FusionWeights.observe_one:  # else nothing to track
            rule.observe_one(scores)
        eps = float(self.epsilon)
        line = threshold if math.isfinite(threshold) else None
        return Proposal((1.0 - eps) * float(ask) + eps, scores, w, fused, line)

    def on_decision(self, proposal: Proposal, acquired: bool) -> None:
        if acquired:
            self.pacer_.acquired_one()
        advice = proposal.advice
        for i, agent in self._deciding():
            agent.decided_one(float(advice[i]), acquired)

    def on_label(
        self, proposal: Proposal, reward: float, penalty: float, x: np.ndarray, y_index: int
    ) -> None:
        self.rule_.learn_one(proposal.advice, reward > 0.0)
        for (_, agent), s in zip(self.agents_, proposal.advice, strict=True):
            agent.reward_one(float(s), reward, penalty)
            agent.label_one(x, y_index)
