"""cbeal's conventions as checks you run on your own agent, policy, budget or model.

>>> from cbeal.checks import check_component
>>> from cbeal.core import ReinforcedAgent
>>> check_component(ReinforcedAgent(theta0=0.8))  # silent: every convention holds

A broken component raises a :class:`ConventionError` (an ``AssertionError``) that names
the convention, e.g. ``MyAgent breaks the convention 'fit resets all state': advice after
a second fit differs at sample 3``. The checks build further instances from the class's
``_unit_test_params()`` (a class method returning parameter dicts, as in river; the
default is ``[{}]``, the defaults), so give one when your parameters have no defaults.

The checks (see :func:`yield_checks`):

* every component — keyword-only constructor parameters stored unchanged; ``get_params``
  (deep), ``set_params``, ``clone`` and ``repr`` as in scikit-learn; unfitted pickling; a
  doctested Examples section;
* agents — a valid ``kind``; advice in [0, 1]; seeded (the same generator, the same
  advice); ``fit`` resets all state; a pickled agent continues identically;
* policies — one advice and one weight per named agent, weights summing to 1; seeded;
  ``start`` resets; pickling;
* budgets — never more labels than left, refunds restore;
* stream models — ``NotFittedError`` before ``fit``; seeded; ``fit`` resets; pickled and
  saved (model file) copies continue identically.

In a test suite, one test per convention::

    @pytest.mark.parametrize("check", yield_checks(MyAgent()), ids=lambda c: c.convention)
    def test_my_agent(check):
        check(MyAgent())
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cbeal.checks._agents import AGENT_CHECKS, POLICY_CHECKS
from cbeal.checks._base import ConventionError, instances
from cbeal.checks._models import BUDGET_CHECKS, MODEL_CHECKS
from cbeal.checks._params import PARAMS_CHECKS
from cbeal.core.agent import Agent
from cbeal.core.budget import Budget
from cbeal.core.params import Params
from cbeal.core.policy import Policy

__all__ = [
    "ConventionError",
    "check_agent",
    "check_component",
    "check_policy",
    "instances",
    "yield_checks",
]


def _is_stream_model(obj: Any) -> bool:
    return all(hasattr(obj, m) for m in ("fit", "query_one", "learn_one", "to_bytes"))


def yield_checks(obj: Any) -> list[Callable[[Any], None]]:
    """The checks that apply to `obj`; each takes the component and has a ``convention``."""
    if not isinstance(obj, Params):
        raise TypeError(
            f"{type(obj).__name__} is not a cbeal component; derive it from cbeal.Agent, "
            "cbeal.core.Policy or cbeal.core.Budget"
        )
    found = list(PARAMS_CHECKS)
    if isinstance(obj, Agent):
        found += AGENT_CHECKS
    if isinstance(obj, Policy):
        found += POLICY_CHECKS
    if isinstance(obj, Budget):
        found += BUDGET_CHECKS
    if _is_stream_model(obj):
        found += MODEL_CHECKS
    return found


def check_component(obj: Any) -> None:
    """Run every check that applies to `obj`; raise :class:`ConventionError` at the first."""
    for run in yield_checks(obj):
        run(obj)


def check_agent(agent: Any) -> None:
    """:func:`check_component` for an agent (a :class:`~cbeal.Agent` subclass)."""
    if not isinstance(agent, Agent):
        raise TypeError(f"{type(agent).__name__} is not a cbeal Agent")
    check_component(agent)


def check_policy(policy: Any) -> None:
    """:func:`check_component` for a policy (a :class:`~cbeal.core.Policy` subclass)."""
    if not isinstance(policy, Policy):
        raise TypeError(f"{type(policy).__name__} is not a cbeal Policy")
    check_component(policy)
