"""cbeal.checks on components that break a convention: each failure names the convention."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pytest

from cbeal.checks import ConventionError, check_agent, check_component, check_policy
from cbeal.core import Agent, Context, LabelCount, ReinforcedAgent, SingleAgentPolicy


class CountingAgent(Agent):
    """Asks for every k-th sample.

    Examples
    --------
    >>> CountingAgent(every=2).fit(np.zeros((1, 2))).advise_one(None)
    0.0
    """

    kind: ClassVar[str] = "exploration"

    def __init__(self, *, every: int = 3) -> None:
        self.every = every

    def _start(self, X0: np.ndarray) -> None:
        self.seen_ = 0

    def advise_one(self, ctx: Any) -> float:
        self.seen_ += 1
        return 1.0 if self.seen_ % self.every == 0 else 0.0


class Forgetful(CountingAgent):
    """fit does not reset the count (a typical bug).

    >>> Forgetful()
    Forgetful()
    """

    def _start(self, X0: np.ndarray) -> None:
        self.__dict__.setdefault("seen_", 0)


class Converting(CountingAgent):
    """Stores a converted parameter.

    >>> Converting(every=2).every
    2.0
    """

    def __init__(self, *, every: int = 3) -> None:
        self.every = float(every)  # type: ignore[assignment]


class Positional(CountingAgent):
    """A positional parameter.

    >>> Positional(2).every
    2
    """

    def __init__(self, every: int = 3) -> None:
        self.every = every


class Unseeded(CountingAgent):
    """Draws from a generator of its own instead of the model's.

    >>> 0 <= Unseeded().fit(np.zeros((1, 2))).advise_one(None) <= 1
    True
    """

    def advise_one(self, ctx: Any) -> float:
        return float(np.random.default_rng().random())


class OutOfRange(CountingAgent):
    """Advice above 1.

    >>> OutOfRange().fit(np.zeros((1, 2))).advise_one(None)
    2.0
    """

    def advise_one(self, ctx: Any) -> float:
        return 2.0


class Undocumented(CountingAgent):
    pass


def test_a_good_agent_and_good_components_pass() -> None:
    check_agent(CountingAgent(every=2))
    check_policy(SingleAgentPolicy(agent=CountingAgent(), epsilon=0.1))
    check_component(LabelCount(total=5))
    check_component(ReinforcedAgent())


@pytest.mark.parametrize(
    ("agent", "convention"),
    [
        (Forgetful(), "fit resets all state"),
        (Converting(every=2), "parameters are stored unchanged"),
        (Positional(), "constructor parameters are keyword-only"),
        (Unseeded(), "the same generator gives the same advice"),
        (OutOfRange(), r"advise_one returns a probability in \[0, 1\]"),
        (Undocumented(), "the class docstring has an Examples section"),
    ],
)
def test_a_broken_agent_fails_naming_the_convention(agent: Agent, convention: str) -> None:
    with pytest.raises(
        ConventionError, match=f"{type(agent).__name__} breaks the convention '{convention}"
    ):
        check_agent(agent)


class Crashing(CountingAgent):
    """Fails on its first sample.

    >>> Crashing()
    Crashing()
    """

    def advise_one(self, ctx: Context) -> float:
        raise KeyError("window")


def test_an_exception_inside_a_check_is_reported_with_its_convention() -> None:
    with pytest.raises(ConventionError, match=r"convention 'advise_one .*KeyError: 'window'"):
        check_agent(Crashing())


def test_only_components_are_checked() -> None:
    with pytest.raises(TypeError, match="not a cbeal component"):
        check_component(object())
    with pytest.raises(TypeError, match="not a cbeal Agent"):
        check_agent(LabelCount())
