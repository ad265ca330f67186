"""The CbeAL ensemble policy: agents as experts of an Exp4.P-EWMA bandit (paper Algorithm 1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.ewma import ChartStep
from cbeal.core.exceptions import ParameterError
from cbeal.core.exp4p import Exp4P
from cbeal.core.policy import Policy, Proposal
from cbeal.core.window import KERNELS
from cbeal.core.window_agent import WindowAgent, WindowGroup

__all__ = ["AgentEnsemble", "name_agents"]


def name_agents(agents: Sequence[Any]) -> list[tuple[str, Agent]]:
    """Normalise a list of agents or (name, agent) pairs to named pairs with unique names."""
    named: list[tuple[str, Agent]] = []
    for i, item in enumerate(agents):
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            name, agent = item
        else:
            name, agent = f"AG{i + 1}", item
        if not isinstance(agent, Agent):
            raise ParameterError(
                f"agent {i} is {type(agent).__name__}, not a cbeal Agent; build agents from "
                "LowDensityAgent, SpaceFillingAgent, ReinforcedAgent or an Agent subclass"
            )
        named.append((name, agent))
    names = [n for n, _ in named]
    if len(set(names)) != len(names):
        raise ParameterError(f"agent names must be unique, got {names}")
    return named


class EnsembleAgents:
    """What the ensemble policies (the vote, score fusion) share about their agents: the
    window groups' advice (``_groups``: the agents' positions and their
    :class:`~cbeal.core.window_agent.WindowGroup`), one sample at a time or a batch
    computed ahead, and the agents that track the drawn decisions."""

    agents_: list[tuple[str, Agent]]
    _groups: list[tuple[list[int], WindowGroup]]
    # a batch's advice computed ahead and the next row to hand out (None: none ahead)
    _ahead: list[Any] | None = None
    # the agents that track the decisions, by position (None: not looked up since start)
    _deciders: list[tuple[int, Agent]] | None = None

    def _deciding(self) -> list[tuple[int, Agent]]:
        """The agents that track the drawn decisions, by position (others inherit a no-op
        ``decided_one``): calling only them saves a call per agent per sample. Kept until
        the policy starts again."""
        found = self._deciders
        if found is None:
            found = self._deciders = [
                (i, a)
                for i, (_, a) in enumerate(self.agents_)
                if type(a).decided_one is not Agent.decided_one
            ]
        return found

    def _prepare_ahead(self, X: np.ndarray | None, n_agents: int) -> None:
        """Before a batch (``query_many``): the advice of the window groups on every row of
        `X`, computed at once, for :meth:`_group_advice` to hand out row by row; None ends
        the batch. Window agents advise on the samples alone, never on the decisions, so
        the advice is that of the rows one by one. Nothing is computed ahead when a group
        cannot run compiled (the rows are then advised one by one)."""
        self._ahead = None
        groups = self._groups
        if X is None or X.shape[0] < 2 or not groups:
            return
        if not all(g.metric == "euclidean" and g.pack(idx) is not None for idx, g in groups):
            return
        if "group_many" not in KERNELS or "euclidean" not in KERNELS:
            return
        block = np.empty((X.shape[0], n_agents))
        for idx, group in groups:
            group.advise_many(X, block, idx)
        self._ahead = [block, 0]

    def _group_advice(self, x: np.ndarray, n_agents: int) -> np.ndarray:
        """A fresh advice array with the window groups' advice on `x` filled in: the next
        row computed ahead by :meth:`_prepare_ahead`, or the groups advising now."""
        ahead = self._ahead
        if ahead is not None:
            block, k = ahead
            ahead[1] = k + 1
            if k + 1 == block.shape[0]:
                self._ahead = None
            return block[k]
        out = np.empty(n_agents)
        for idx, group in self._groups:
            group.advise_into(x, out, idx)
        return out


class AgentEnsemble(EnsembleAgents, Policy):
    """Weighted vote of agents, weights learned by Exp4.P-EWMA, with ε-greedy folded in.

    ``P' = (1 − ε) P + ε [1, 0]`` is both the probability the acquire arm is drawn with
    and the propensity used in the Exp4.P update (spec §3.4).

    Parameters
    ----------
    agents
        At least two agents, or (name, agent) pairs.
    solver
        The bandit solver; ``None`` means ``Exp4P()`` with the paper's defaults.
    epsilon
        ε of the ensemble-level ε-greedy exploration.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import AgentEnsemble, Context, LowDensityAgent, ReinforcedAgent
    >>> ens = AgentEnsemble(agents=[("LD", LowDensityAgent()), ("RAL", ReinforcedAgent())])
    >>> ens = ens.start(np.random.default_rng(0).normal(size=(20, 3)))
    >>> prop = ens.propose(Context(np.full(3, 9.0), np.array([0.99, 0.01])))
    >>> prop.advice.tolist()          # LD: far outside the window; RAL: certain
    [1.0, 0.0]
    >>> round(prop.p_acquire, 4)      # 0.99 * ((1 - 2 p_min) * 0.5 + p_min) + 0.01
    0.505
    """

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        from cbeal.core.presets import paper_agents

        return [{"agents": paper_agents("CBEAL-4*"), "epsilon": 0.05}]

    def __init__(
        self, *, agents: Sequence[Any], solver: Exp4P | None = None, epsilon: float = 0.01
    ) -> None:
        self.agents = agents
        self.solver = solver
        self.epsilon = epsilon

    @property
    def named_agents(self) -> list[tuple[str, Agent]]:
        return self.agents_

    def start(
        self,
        X0: np.ndarray,
        rng: np.random.Generator | None = None,
        y0: np.ndarray | None = None,
    ) -> AgentEnsemble:
        if not 0.0 <= float(self.epsilon) < 1.0:
            # ε = 1 leaves the skip arm a propensity of 0 in the Exp4.P update
            raise ParameterError(f"epsilon must be in [0, 1), got {self.epsilon}")
        self.agents_ = [(n, a.clone().fit(X0, rng, y0)) for n, a in name_agents(self.agents)]
        self._plan(X0)
        self.__dict__.pop("_deciders", None)
        self.solver_ = (self.solver.clone() if self.solver is not None else Exp4P()).start(
            len(self.agents_)
        )
        return self

    def _plan(self, X0: np.ndarray) -> None:
        # Window agents of the same metric share one distance computation per sample.
        by_metric: dict[str, list[int]] = {}
        for i, (_, agent) in enumerate(self.agents_):
            if isinstance(agent, WindowAgent):
                by_metric.setdefault(agent.metric, []).append(i)
        self._groups = [
            (idx, WindowGroup([self.agents_[i][1] for i in idx], X0))  # type: ignore[misc]
            for idx in by_metric.values()
            if len(idx) > 1
        ]
        grouped = {i for idx, _ in self._groups for i in idx}
        self._solo = [(i, a) for i, (_, a) in enumerate(self.agents_) if i not in grouped]

    def prepare(self, X: np.ndarray | None) -> None:
        self._prepare_ahead(X, len(self.agents_))

    def propose(self, ctx: Context) -> Proposal:
        advice = self._group_advice(ctx.x, len(self.agents_))
        for i, agent in self._solo:
            advice[i] = agent.advise_one(ctx)
        p, w = self.solver_.mix(advice, float(self.epsilon))
        return Proposal(p_acquire=p, advice=advice, weights=w)

    def on_decision(self, proposal: Proposal, acquired: bool) -> None:
        self.solver_.update_decision(proposal.advice, proposal.p_acquire)
        advice = proposal.advice
        for i, agent in self._deciding():
            agent.decided_one(float(advice[i]), acquired)

    def on_label(
        self, proposal: Proposal, reward: float, penalty: float, x: np.ndarray, y_index: int
    ) -> None:
        self.solver_.update_reward(proposal.advice, proposal.p_acquire, reward)
        for (_, agent), a in zip(self.agents_, proposal.advice, strict=True):
            agent.reward_one(float(a), reward, penalty)
            agent.label_one(x, y_index)

    def end_step(self) -> ChartStep:
        return self.solver_.chart_step()
