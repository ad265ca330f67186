"""A single agent on its own, with ε-greedy and no bandit (spec §3.5)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cbeal.core.agent import Agent, Context
from cbeal.core.exceptions import ParameterError
from cbeal.core.policy import Policy, Proposal

__all__ = ["SingleAgentPolicy"]

_ONE = np.ones(1)


class SingleAgentPolicy(Policy):
    """Acquire with probability ``(1 − ε) p + ε`` where ``p`` is the agent's advice.

    Used for the paper's single-agent rows. A reward-learning agent (RAL) still learns
    from the labels of the samples it asked for.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import Context, ReinforcedAgent, SingleAgentPolicy
    >>> pol = SingleAgentPolicy(agent=ReinforcedAgent(theta0=0.9), epsilon=0.01)
    >>> pol = pol.start(np.zeros((3, 2)))
    >>> pol.propose(Context(np.zeros(2), np.array([0.6, 0.4]))).p_acquire
    1.0
    >>> round(pol.propose(Context(np.zeros(2), np.array([0.95, 0.05]))).p_acquire, 6)
    0.01
    """

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        from cbeal.core.reinforced import ReinforcedAgent

        return [{"agent": ReinforcedAgent(), "epsilon": 0.01}]

    def __init__(self, *, agent: Agent, name: str | None = None, epsilon: float = 0.0) -> None:
        self.agent = agent
        self.name = name
        self.epsilon = epsilon

    @property
    def named_agents(self) -> list[tuple[str, Agent]]:
        return [(self.name_, self.agent_)]

    def start(
        self,
        X0: np.ndarray,
        rng: np.random.Generator | None = None,
        y0: np.ndarray | None = None,
    ) -> SingleAgentPolicy:
        if not isinstance(self.agent, Agent):
            raise ParameterError(f"agent must be a cbeal Agent, got {type(self.agent).__name__}")
        if not 0.0 <= float(self.epsilon) <= 1.0:
            raise ParameterError(f"epsilon must be in [0, 1], got {self.epsilon}")
        self.agent_ = self.agent.clone().fit(X0, rng, y0)
        self.name_ = self.name or type(self.agent).__name__
        return self

    def propose(self, ctx: Context) -> Proposal:
        p = self.agent_.advise_one(ctx)
        eps = float(self.epsilon)
        return Proposal(p_acquire=(1.0 - eps) * p + eps, advice=np.array([p]), weights=_ONE)

    def on_decision(self, proposal: Proposal, acquired: bool) -> None:
        self.agent_.decided_one(float(proposal.advice[0]), acquired)

    def on_label(
        self, proposal: Proposal, reward: float, penalty: float, x: np.ndarray, y_index: int
    ) -> None:
        self.agent_.reward_one(float(proposal.advice[0]), reward, penalty)
        self.agent_.label_one(x, y_index)
