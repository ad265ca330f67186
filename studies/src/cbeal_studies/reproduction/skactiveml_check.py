"""Outside cross-check of the baselines: scikit-activeml's own stream strategies in cbeal.

:class:`~cbeal.adapters.skactiveml_agent.SkactivemlAgent` wraps a stream query strategy of
scikit-activeml as a cbeal :class:`~cbeal.core.Agent`. Run through
:class:`~cbeal.SingleAgentLearner` with ε = 0, such a strategy gets exactly what our
own baselines get: the same learner and refits, the same labelled pool, the same hard
budget ``B`` and the same seed. Differences between "RS" and "RS (skactiveml)" and so on
therefore come from the strategies alone. ``benchmarks/crosscheck_baselines.py`` runs the
comparison.

scikit-activeml is an optional dependency (``pip install -e '.[skactiveml]'``); it is imported
only when an agent is fitted, so this module imports without it.
"""

from __future__ import annotations

from typing import Any

from cbeal.adapters.skactiveml_agent import STRATEGIES, SkactivemlAgent, _stream_module
from cbeal.models import SingleAgentLearner, StreamLearner
from cbeal_studies.reproduction.method import Builder, Method

__all__ = ["STRATEGIES", "SkactivemlAgent", "skactiveml_methods"]


def _crosscheck(name: str, strategy: str) -> Builder:
    def build(est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        _stream_module()  # fail early, with the install hint
        agent = SkactivemlAgent(strategy=strategy, budget_fraction=budget / n_stream)
        return SingleAgentLearner(
            agent=agent, name=name, epsilon=0.0, estimator=est, budget=budget, random_state=seed
        )

    return build


def skactiveml_methods() -> dict[str, Method]:
    """scikit-activeml's counterparts of the benchmarks RS, US, VariableUncertainty and
    DBALStream, as methods of the ``"crosscheck"`` family.

    Built like the baselines of :data:`~cbeal_studies.reproduction.METHODS` (one agent, ε = 0,
    budget fraction ``B / n``, the model's seed). Listing them does not need
    scikit-activeml; building one without it raises an ImportError.

    >>> sorted(skactiveml_methods())  # doctest: +NORMALIZE_WHITESPACE
    ['DBALStream (skactiveml)', 'RS (skactiveml)', 'US (skactiveml)',
     'VariableUncertainty (skactiveml)']
    """
    methods = [
        Method(f"{s} (skactiveml)", "crosscheck", _crosscheck(f"{s} (skactiveml)", s))
        for s in ("RS", "US", "VariableUncertainty", "DBALStream")
    ]
    return {m.name: m for m in methods}
