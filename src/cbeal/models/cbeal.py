"""CbeAL: the agent ensemble weighted by Exp4.P-EWMA, as a stream model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cbeal.catalog import agent_entry, preset_entry
from cbeal.core import (
    AgentEnsemble,
    Exp4P,
    LabelRate,
    ParameterError,
    ScoreFusion,
    as_budget,
    paced_share,
    paper_agents,
)
from cbeal.core.agent import Agent
from cbeal.models.fusion_presets import fusion_of
from cbeal.models.regression import committee_of
from cbeal.models.stream import StreamLearner

__all__ = ["CbeAL"]


class CbeAL(StreamLearner):
    """Ensemble active learning by contextual bandits (Zeng, Chen & Jin).

    Exploration agents (low density, space filling) and exploitation agents (reinforced
    certainty threshold) vote on "label it or not"; an Exp4.P solver with an EWMA
    weight-flipping chart weighs their votes by the rewards of past acquisitions
    (``ρ+`` when the learner would have been wrong, ``ρ−`` when it was right).

    Parameters
    ----------
    agents
        Agents or (name, agent) pairs, at least two (see :meth:`from_preset`).
    estimator
        Any scikit-learn classifier with ``predict_proba``; cloned, never modified. If it
        has a ``random_state`` left at None, cbeal seeds it from ``random_state``.
    budget
        A number of labels (``148``: the paper's ``B``), a share of the samples (``0.02``
        or ``"2%"``: at most 2 % of the samples seen so far, paced) or a
        :class:`~cbeal.core.Budget` such as ``LabelRate(rate=0.02, window=1000,
        max_in_window=30)``. Never exceeded; pending labels count.
    solver
        An :class:`~cbeal.core.Exp4P` carrying the bandit's options; None = paper defaults.
    fusion
        A :class:`~cbeal.core.ScoreFusion` (without agents) to fuse the agents' graded
        scores and pace the budget with one quantile filter instead of the paper's vote;
        None (default) = the paper's Exp4.P-EWMA vote. Its ``budget_fraction`` defaults to
        the rate of a rate budget; under a rate budget its pacer gets no head start. Its
        ``horizon="auto"`` becomes the sample by which the budget is spent (``total / rate``
        of a rate budget with a total, ``B / budget_fraction`` of a count). Not together
        with `solver`.
    epsilon
        Ensemble-level ε-greedy exploration.
    reward, penalty
        ``ρ+`` in (0, 100] and ``ρ−`` in [−100, 0); they enter Exp4.P unscaled.
    classes
        Every label that can occur; default: the labels of ``D0``.
    refit_every
        Retrain the learner after every label (``1``, the paper), every k labels, or never
        by itself (``None``: call :meth:`refit`, e.g. from a background job).
    preprocessor
        Optional scikit-learn transformer applied to every input (imputation, encoding,
        scaling): used as is when already fitted, else fitted on ``X0``. The agents and the
        learner then see its output; raw inputs may hold what it handles (NaN, text).
    id_prefix
        Prefix of the decision ids (``"<prefix>-<t>"``). Default: a random token drawn at
        each ``fit``, so that a decision is never taken for one of another model; give a
        fixed prefix (e.g. a line's name) to make ids reproducible across replays.
    random_state
        Seed of every random draw; same seed, same decisions.
    tolerance
        A regressor only (``estimator=BayesianRidge()``, …): the half-width of the band a
        measured value must fall in, in the target's unit. A part whose prediction is off
        by more is one the model got wrong (the reward); the agents see
        ``P(|y − ŷ| ≤ tolerance)`` as the model's certainty. See REGRESSION.md.
    regression_reward
        A regressor only: ``"band"`` (ρ+ when ``|y − ŷ| > tolerance``, else ρ−) or
        ``"normalized"`` (the error over the tolerance, graded within ``[ρ−, ρ+]``; see
        :func:`cbeal.core.regression.regression_reward`).

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from cbeal import CbeAL, make_stream, simulate
    >>> s = make_stream(n=300, random_state=0)
    >>> model = CbeAL.from_preset("CBEAL-6", estimator=LogisticRegression(), budget=28,
    ...                           random_state=0)
    >>> model = model.fit(s.X0, s.y0)
    >>> d = model.query_one(s.X_stream[0])
    >>> d.agent_names
    ('LD1', 'RAL1', 'LD2', 'RAL2', 'SPF1', 'RAL3')
    >>> trace = simulate(model, s.X_stream[1:], s.y_stream[1:])
    >>> model.budget_used_ <= 28
    True
    """

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        from cbeal.catalog import learner
        from cbeal.models.fusion_presets import fusion_pool

        return [
            {
                "agents": paper_agents("CBEAL-4"),
                "estimator": learner("logreg"),
                "budget": 9,
                "random_state": 3,
            },
            {  # score fusion with every kind of member, the committee's refits included
                "agents": fusion_pool(("RAL1", "ENT", "QBC", "DWU", "MIN", "SPF1"), 0.1),
                "fusion": fusion_of("evidence"),
                "estimator": learner("logreg"),
                "budget": 0.1,
                "random_state": 3,
            },
        ]

    def __init__(
        self,
        *,
        agents: Sequence[Any],
        estimator: Any,
        budget: Any,
        solver: Exp4P | None = None,
        fusion: ScoreFusion | None = None,
        epsilon: float = 0.01,
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
        self.agents = agents
        self.estimator = estimator
        self.budget = budget
        self.solver = solver
        self.fusion = fusion
        self.epsilon = epsilon
        self.reward = reward
        self.penalty = penalty
        self.classes = classes
        self.refit_every = refit_every
        self.preprocessor = preprocessor
        self.id_prefix = id_prefix
        self.random_state = random_state
        self.tolerance = tolerance
        self.regression_reward = regression_reward

    @classmethod
    def from_preset(
        cls, name: str | None = None, *, budget_fraction: float | None = None, **params: Any
    ) -> CbeAL:
        """A CbeAL with the agents and bandit options of preset `name` (see
        :mod:`cbeal.catalog`).

        The paper's presets are CBEAL-2, -4, -4*, -6 and -8 (its Tables 1 and A), voting
        with Exp4.P-EWMA as in the paper. Without a name: the recommended preset,
        ``CBEAL-5D`` — score fusion of RAL1, RAL2, entropy and variable-uncertainty
        sampling and minority seeking with equal weights, one pacer led by the labels owed
        (:class:`~cbeal.core.DeficitPacer`: it waits, catches up and runs ahead when the
        samples score high) — chosen on the development part of cbeal's label-efficiency
        suite (BENCHMARK.md, round 5); ``CBEAL-5F`` (the same members, a pacer that never
        runs ahead) and ``CBEAL-4U`` (Exp4.P, step 0.2, no EWMA chart) are the earlier
        recommendations. They pace to the budget as a share of the stream: a rate (``0.05``) is
        its own share; a count ``B`` is paced at ``budget_fraction`` (``B / n`` on a stream
        of ``n`` samples), by default at :data:`~cbeal.core.DEFAULT_PACE` (5 %) while it
        lasts.
        """
        entry = preset_entry(name)
        share = budget_fraction
        if entry.paces and params.get("budget") is not None:  # others check it in fit
            share = paced_share(params["budget"], budget_fraction)
        if entry.fusion is not None:
            # score fusion: one pacer for the whole ensemble instead of the bandit's vote
            if share is None:
                raise ParameterError(
                    f"{entry.name} paces one budget over the fused score: give the budget, "
                    "e.g. budget=0.05 (a rate) or budget=100 (a count)"
                )
            options = {k: v for k, v in entry.fusion.items() if k != "weights"}
            if budget_fraction is not None:
                options["budget_fraction"] = float(share)
            params.setdefault("fusion", fusion_of(entry.fusion["weights"], **options))
        else:
            params.setdefault("solver", entry.make_solver())
        params.setdefault("epsilon", entry.epsilon)
        pool = entry.pool(share)
        if entry.family == "regression":  # its committees refit the model's own regressor
            pool = committee_of(pool, params.get("estimator"))
        return cls(agents=pool, **params)

    @classmethod
    def from_agents(
        cls,
        agents: Sequence[str | Agent | tuple[str, Agent]],
        *,
        budget_fraction: float | None = None,
        **params: Any,
    ) -> CbeAL:
        """A CbeAL with your own agents, in the order given: agent objects, (name, agent)
        pairs, or catalog names such as ``"LD2"`` or ``"ENT"`` (agents that pace themselves
        are built for `budget_fraction`, or the rate of `budget`).

        >>> [n for n, _ in CbeAL.from_agents(["LD2", "ENT"], budget=0.05, estimator=None).agents]
        ['LD2', 'ENT']
        """
        share = budget_fraction
        paces = any(isinstance(a, str) and agent_entry(a).paces for a in agents)
        if paces and params.get("budget") is not None:
            share = paced_share(params["budget"], budget_fraction)
        pool = [
            (agent_entry(a).name, agent_entry(a).build(share)) if isinstance(a, str) else a
            for a in agents
        ]
        return cls(agents=pool, **params)

    def _make_policy(self) -> AgentEnsemble | ScoreFusion:
        if self.fusion is None:
            return AgentEnsemble(agents=self.agents, solver=self.solver, epsilon=self.epsilon)
        if not isinstance(self.fusion, ScoreFusion):
            raise ParameterError(
                f"fusion must be a ScoreFusion, e.g. ScoreFusion(weights=EqualWeights()), got "
                f"{type(self.fusion).__name__}"
            )
        if self.solver is not None:
            raise ParameterError(
                "solver is the voting policy's bandit and fusion replaces that policy: give "
                "one of them"
            )
        if self.fusion.agents is not None:
            raise ParameterError("give the agents to CbeAL, not to its ScoreFusion")
        share = paced_share(self.budget, self.fusion.budget_fraction)
        fusion = self.fusion.clone().set_params(
            agents=self.agents, budget_fraction=share, epsilon=self.epsilon
        )
        cap = as_budget(self.budget)
        if isinstance(cap, LabelRate):
            # the cap accrues at the rate itself: a head start could only be refused
            fusion.set_params(head_start=0.0)
        if fusion.horizon == "auto":
            fusion.set_params(horizon=cap.horizon(share))
        return fusion

    @property
    def weights_(self) -> np.ndarray:
        """Current standardized agent weights."""
        self._check_fitted()
        policy = self.policy_
        if isinstance(policy, ScoreFusion):
            return policy.weights_now()
        return np.asarray(policy.solver_.weights())  # type: ignore[attr-defined]
