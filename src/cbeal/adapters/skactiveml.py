"""cbeal and scikit-activeml, both ways (``pip install -e '.[skactiveml]'``).

* :class:`CbealStreamStrategy` puts a CbeAL ensemble behind scikit-activeml's stream
  protocol, ``query(candidates, clf, ...)`` then ``update(candidates, queried_indices)``,
  so it drops into a scikit-activeml loop in place of ``StreamDensityBasedAL`` & co. The
  labels go back with ``update(..., y=...)`` or later with :meth:`~CbealStreamStrategy.label`;
  the reward (ρ+ when the classifier's prediction at query time was wrong) is computed here.
* :class:`~cbeal.adapters.skactiveml_agent.SkactivemlAgent` makes one of scikit-activeml's
  stream strategies a cbeal agent, so it can join an ensemble.

This module needs neither scikit-activeml nor scikit-learn to import: the strategy only
calls ``clf.predict_proba`` and reads ``clf.classes_``, so any fitted classifier works.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from cbeal.adapters._engine import Engine
from cbeal.adapters.skactiveml_agent import SkactivemlAgent
from cbeal.core import (
    AgentEnsemble,
    Decision,
    DecisionError,
    Exp4P,
    InvalidInputError,
    ParameterError,
    Params,
    paper_agents,
)
from cbeal.core.validation import check_features, check_seed, label_index

__all__ = ["CbealStreamStrategy", "SkactivemlAgent"]


class CbealStreamStrategy(Params):
    """A CbeAL ensemble as a scikit-activeml stream query strategy.

    ``query`` does not change the strategy (scikit-activeml's rule): it decides on a copy
    and keeps it; ``update`` with the same candidates commits that copy. Several candidates
    in one call are decided in order, as a stream. ``update`` may drop acquisitions the
    user did not ask for after all (they earn no reward and their label goes back to the
    budget), but cannot add any: the bandit only learns from draws it made.

    Parameters
    ----------
    agents
        A preset name (``"CBEAL-6"``) or agents / (name, agent) pairs; cbeal agents and
        :class:`~cbeal.adapters.skactiveml_agent.SkactivemlAgent` mix freely.
    budget
        A share of the samples seen (``0.1``, scikit-activeml's meaning), a number of
        labels (``50``) or a :class:`~cbeal.core.Budget`.
    solver, epsilon, reward, penalty, random_state
        As for :class:`~cbeal.CbeAL`.

    Attributes
    ----------
    decisions_
        The :class:`~cbeal.Decision` of each candidate of the last ``update``.
    rewards_
        Rewards earned so far, in the order the labels arrived.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from cbeal.adapters.skactiveml import CbealStreamStrategy
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] > 0).astype(int)
    >>> clf = LogisticRegression().fit(X[:10], y[:10])
    >>> qs = CbealStreamStrategy(agents="CBEAL-2", budget=0.2, random_state=0)
    >>> for t in range(10, 60):
    ...     idx = qs.query(X[[t]], clf=clf)
    ...     qs = qs.update(X[[t]], idx, y=y[[t]][idx])
    >>> 0 < len(qs.rewards_) <= 0.2 * 50 + 5     # 20 %, and the rate's burst of 5
    True
    """

    def __init__(
        self,
        *,
        agents: Any = "CBEAL-6",
        budget: Any = 0.1,
        solver: Exp4P | None = None,
        epsilon: float = 0.01,
        reward: float = 1.0,
        penalty: float = -0.5,
        random_state: Any = None,
    ) -> None:
        self.agents = agents
        self.budget = budget
        self.solver = solver
        self.epsilon = epsilon
        self.reward = reward
        self.penalty = penalty
        self.random_state = random_state

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"agents": "CBEAL-2", "budget": 0.2, "random_state": 0}]

    # ------------------------------------------------------------------ protocol
    def query(
        self,
        candidates: Any,
        clf: Any,
        X: Any = None,
        y: Any = None,
        sample_weight: Any = None,
        fit_clf: bool = False,
        return_utilities: bool = False,
    ) -> Any:
        """Indices of the candidates whose label to ask for (and, if asked, ``P(acquire)``).

        `clf` is any fitted classifier with ``predict_proba`` and ``classes_`` (with
        ``fit_clf=True`` a copy is first fitted on `X`, `y`, `sample_weight`).
        """
        engine = self.__dict__.get("engine_")
        n_features = None if engine is None else engine.n_features
        cand = check_features(candidates, n_features, what="candidates")
        clf = _fitted(clf, X, y, sample_weight, fit_clf)
        proba = np.asarray(clf.predict_proba(cand), dtype=np.float64)
        classes = np.asarray(clf.classes_)
        if engine is None:
            engine = self._engine(classes, cand.shape[1])
        else:
            if not np.array_equal(classes, engine.classes):
                raise InvalidInputError(
                    f"clf's classes {classes.tolist()} differ from the classes this strategy "
                    f"started with {engine.classes.tolist()}; declare every class up front "
                    "(scikit-activeml classifiers take classes=[...])."
                )
            engine = engine.fork()  # query leaves the strategy as it was
        decisions = [engine.decide(x, p) for x, p in zip(cand, proba, strict=True)]
        self._proposed = (cand, engine, decisions)
        idx = np.array([i for i, d in enumerate(decisions) if d.acquire], dtype=np.intp)
        if return_utilities:
            return idx, np.array([d.p_acquire for d in decisions])
        return idx

    def update(
        self,
        candidates: Any,
        queried_indices: Any,
        budget_manager_param_dict: Any = None,
        *,
        y: Any = None,
    ) -> CbealStreamStrategy:
        """Commit the decisions ``query`` made on `candidates`; returns self.

        `queried_indices` are the candidates whose label you asked for (those ``query``
        returned, or fewer). `y`, if given, are their labels in the same order; else deliver
        each with :meth:`label` when it arrives.
        """
        proposed = self.__dict__.get("_proposed")
        cand = np.asarray(candidates, dtype=np.float64)
        if proposed is None or not np.array_equal(proposed[0], cand):
            raise DecisionError(
                "update() must follow query() on the same candidates: cbeal decides in "
                "query() and commits that decision here."
            )
        _, engine, decisions = proposed
        chosen = {i for i, d in enumerate(decisions) if d.acquire}
        asked = [int(i) for i in np.asarray(queried_indices, dtype=np.intp).ravel()]
        if not set(asked) <= chosen:
            raise DecisionError(
                f"queried_indices {asked} include candidates cbeal did not choose "
                f"({sorted(chosen)}); the bandit can only learn from its own draws. Ask for "
                "those labels outside the strategy, or leave them out."
            )
        labels = None if y is None else list(np.asarray(y, dtype=object).ravel())
        if labels is not None and len(labels) != len(asked):
            raise InvalidInputError(
                f"y has {len(labels)} labels for {len(asked)} queried candidates; give the "
                "labels of candidates[queried_indices], in that order."
            )
        for label in labels or []:
            label_index(engine.classes, label)  # an unknown label fails before any change
        for i in sorted(chosen - set(asked)):
            engine.drop(decisions[i].t)
        self.engine_ = engine
        self.decisions_ = decisions
        self.rewards_: list[float] = self.__dict__.get("rewards_", [])
        del self._proposed
        for i, label in zip(asked, labels or [], strict=False):
            self._learn(decisions[i].t, label)
        return self

    def label(self, x: Any, y: Any) -> float:
        """Deliver the label of queried sample `x` (late, in any order); returns its reward."""
        self._check_started()
        z = check_features(
            np.asarray(x, dtype=np.float64).reshape(1, -1), self.engine_.n_features, what="x"
        )[0]
        for t, rec in self.engine_.asked.items():  # oldest first: dicts keep insertion order
            if np.array_equal(rec.x, z):
                return self._learn(t, y)
        raise DecisionError(
            "x is not a queried sample awaiting its label (never queried, already "
            "labelled, or dropped by update); see pending_."
        )

    @property
    def pending_(self) -> tuple[Decision, ...]:
        """Acquisitions whose label has not arrived yet, oldest first."""
        self._check_started()
        return tuple(rec.decision for rec in self.engine_.asked.values())

    @property
    def weights_(self) -> np.ndarray:
        """Current standardized agent weights."""
        self._check_started()
        return np.asarray(self.engine_.policy.solver_.weights())

    # ------------------------------------------------------------------ helpers
    def _learn(self, t: int, y: Any) -> float:
        reward, penalty = float(self.reward), float(self.penalty)
        r = self.engine_.learn(t, y, reward, penalty)
        self.rewards_.append(r)
        return r

    def _engine(self, classes: np.ndarray, n_features: int) -> Engine:
        reward, penalty = self.reward, self.penalty
        if not (isinstance(reward, (int, float)) and math.isfinite(reward) and reward > 0):
            raise ParameterError(f"reward ρ+ must be a finite number > 0, got {reward!r}")
        if not (isinstance(penalty, (int, float)) and math.isfinite(penalty) and penalty < 0):
            raise ParameterError(f"penalty ρ− must be a finite number < 0, got {penalty!r}")
        agents = paper_agents(self.agents) if isinstance(self.agents, str) else self.agents
        if not isinstance(agents, Sequence):
            raise ParameterError(f"agents must be a preset name or a list, got {agents!r}")
        policy = AgentEnsemble(agents=list(agents), solver=self.solver, epsilon=self.epsilon)
        engine = Engine(policy, self.budget, check_seed(self.random_state), classes, n_features)
        return engine

    def _check_started(self) -> None:
        if "engine_" not in self.__dict__:
            raise DecisionError("nothing was queried yet; call query() and update() first.")


def _fitted(clf: Any, X: Any, y: Any, sample_weight: Any, fit_clf: bool) -> Any:
    if not (hasattr(clf, "predict_proba") and hasattr(clf, "fit")):
        raise ParameterError(
            f"clf must be a classifier with predict_proba, got {type(clf).__name__}"
        )
    if fit_clf:
        clf = copy.deepcopy(clf)  # never fit the user's object
        clf = clf.fit(X, y) if sample_weight is None else clf.fit(X, y, sample_weight)
    if not hasattr(clf, "classes_"):
        raise ParameterError(
            "clf is not fitted (it has no classes_); fit it first or pass fit_clf=True with "
            "X and y."
        )
    return clf
