"""One agent on its own as a stream model (the paper's single-agent rows and the baselines)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cbeal.core import SingleAgentPolicy
from cbeal.core.agent import Agent
from cbeal.models.stream import StreamLearner

__all__ = ["SingleAgentLearner"]


class SingleAgentLearner(StreamLearner):
    """One agent on its own (no bandit): acquire with probability ``(1 − ε) p + ε``.

    The paper's single-agent rows (LD, SPF, RAL alone) and the baselines (RS, US,
    DBALStream, …) use this; parameters as :class:`~cbeal.CbeAL`, with one ``agent`` and an
    optional display ``name``.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from cbeal import SingleAgentLearner, ReinforcedAgent, make_stream, simulate
    >>> s = make_stream(n=200, random_state=1)
    >>> model = SingleAgentLearner(agent=ReinforcedAgent(theta0=0.9), epsilon=0.01,
    ...                            estimator=LogisticRegression(), budget=18, random_state=1)
    >>> trace = simulate(model.fit(s.X0, s.y0), s.X_stream, s.y_stream)
    >>> int(trace.acquired.sum()) <= 18
    True
    """

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        from cbeal.catalog import learner
        from cbeal.core import SpaceFillingAgent

        return [
            {
                "agent": SpaceFillingAgent(),
                "estimator": learner("logreg"),
                "budget": 9,
                "random_state": 3,
            }
        ]

    def __init__(
        self,
        *,
        agent: Agent,
        estimator: Any,
        budget: Any,
        epsilon: float = 0.0,
        name: str | None = None,
        reward: float = 1.0,
        penalty: float = -0.5,
        classes: Sequence[Any] | None = None,
        refit_every: int | None = 1,
        preprocessor: Any = None,
        id_prefix: str | None = None,
        random_state: Any = None,
        tolerance: float | None = None,
        regression_reward: str = "band",
    ) -> None:
        self.agent = agent
        self.estimator = estimator
        self.budget = budget
        self.epsilon = epsilon
        self.name = name
        self.reward = reward
        self.penalty = penalty
        self.classes = classes
        self.refit_every = refit_every
        self.preprocessor = preprocessor
        self.id_prefix = id_prefix
        self.random_state = random_state
        self.tolerance = tolerance
        self.regression_reward = regression_reward

    def _make_policy(self) -> SingleAgentPolicy:
        return SingleAgentPolicy(agent=self.agent, name=self.name, epsilon=self.epsilon)
