"""Stream models: the learner, the labelled pool, the budget and the label protocol (spec §1, §9).

:class:`StreamLearner` is the shared machinery; :class:`CbeAL` plugs in the agent ensemble
and :class:`SingleAgentLearner` a single agent. ``query_one`` observes a sample and
commits a decision; ``learn_one`` delivers the label of an acquisition, now or later, in
any order.
"""

from __future__ import annotations

import os
import pickle
import uuid
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from cbeal._version import __version__
from cbeal.core import (
    AgentEnsemble,
    ChartStep,
    Context,
    Decision,
    DecisionError,
    Exp4P,
    InvalidInputError,
    NotFittedError,
    Params,
    Policy,
    Proposal,
    SingleAgentPolicy,
    preset_agents,
)
from cbeal.core.agent import Agent
from cbeal.core.validation import (
    check_budget,
    check_features,
    check_labels,
    check_sample,
    check_seed,
    label_index,
)
from cbeal.learners.adapter import LearnerAdapter, check_estimator_has_proba

__all__ = ["CbeAL", "SingleAgentLearner", "StreamLearner"]

M = TypeVar("M", bound="StreamLearner")
_FORMAT = "cbeal-model"


@dataclass(frozen=True)
class _Pending:
    """What a pending acquisition needs when its label arrives."""

    x: np.ndarray
    proposal: Proposal
    y_index: int


class StreamLearner(Params):
    """Shared machinery of the stream-based active learners (see :class:`CbeAL`)."""

    estimator: Any
    budget: int
    reward: float
    penalty: float
    classes: Sequence[Any] | None
    refit: str | int
    random_state: Any

    @abstractmethod
    def _make_policy(self) -> Policy:
        """The unfitted policy that scores samples."""

    # ------------------------------------------------------------------ set-up
    def fit(self: M, X0: Any, y0: Any) -> M:
        """Start a stream from the initial labelled set ``D0 = (X0, y0)``; returns self.

        Resets everything: the learner is trained on ``D0``, the agents' windows start with
        ``X0`` (most recent last), the budget is full and no decision is pending.
        """
        X = check_features(X0, what="X0")
        y = check_labels(y0, X.shape[0])
        if X.shape[0] == 0:
            raise InvalidInputError(
                "D0 is empty; give at least one labelled sample (ideally one per class) so "
                "the learner can make a first prediction."
            )
        budget = check_budget(self.budget)
        self._check_params()
        check_estimator_has_proba(self.estimator)
        if self.classes is not None:
            classes = np.asarray(self.classes)
            if classes.ndim != 1 or np.unique(classes).size != classes.size or classes.size < 2:
                raise InvalidInputError(
                    f"classes must list at least two distinct labels, got {self.classes!r}"
                )
            classes = np.unique(classes)
        else:
            classes = np.unique(y)
        y_index = np.array([label_index(classes, v) for v in y], dtype=np.intp)
        rng = check_seed(self.random_state)
        learner = LearnerAdapter(self.estimator, classes, int(rng.integers(2**31 - 1)))
        learner.fit(X, y_index, warn=True)
        policy = self._make_policy().start(X, rng, y_index)

        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        self.budget_ = budget
        self.budget_used_ = 0
        self.t_ = 0
        self.n_labels_ = 0
        self.policy_ = policy
        self._names = tuple(n for n, _ in policy.named_agents)
        self._kinds = tuple(a.kind for _, a in policy.named_agents)
        self.last_step_: ChartStep | None = None
        self._rng = rng
        self._learner = learner
        self._pool_X = list(X)
        self._pool_y = list(y_index)
        self._pending: dict[int, _Pending] = {}
        self._token = uuid.uuid4().hex
        self._step_open = False
        self._since_refit = 0
        return self

    def _check_params(self) -> None:
        if not (self.refit == "every" or (isinstance(self.refit, int) and self.refit >= 1)):
            raise ValueError(f"refit must be 'every' or a whole number ≥ 1, got {self.refit!r}")
        if not float(self.penalty) < 0.0:
            raise ValueError(
                f"penalty ρ− must be negative (e.g. -0.5), got {self.penalty}; the RAL "
                "threshold update is only correct with a negative penalty (spec §2)"
            )
        if not float(self.reward) > 0.0:
            raise ValueError(f"reward ρ+ must be positive, got {self.reward}")

    def _check_fitted(self) -> None:
        if not hasattr(self, "policy_"):
            raise NotFittedError(
                f"this {type(self).__name__} has no initial labelled set yet; call "
                "fit(X0, y0) before streaming."
            )

    # ------------------------------------------------------------------ stream
    def query_one(self, x: Any) -> Decision:
        """Observe sample `x` and decide whether to ask for its label.

        The agents' windows slide and the bandit draws its action: the decision is
        committed (in a stream each sample is seen once). An acquisition spends one label
        of the budget at once, before its label arrives.
        """
        self._check_fitted()
        return self._query(check_sample(x, self.n_features_in_), None)

    def _query(self, x: np.ndarray, proba: np.ndarray | None) -> Decision:
        if self._step_open:
            self.flush()
        if proba is None:
            proba = self._learner.predict_proba(x[None, :])[0]
        ctx = Context(x, proba)
        prop = self.policy_.propose(ctx)
        t = self.t_
        if self.budget_used_ >= self.budget_:
            acquire, p, reason = False, 0.0, "budget exhausted"
        else:
            p, reason = prop.p_acquire, "drawn"
            acquire = bool(self._rng.random() < p)
            self.policy_.on_decision(prop, acquire)
            self._step_open = True
            if acquire:
                self.budget_used_ += 1
                self._pending[t] = _Pending(x, prop, ctx.y_index)
        self.t_ = t + 1
        return Decision(
            id=t,
            acquire=acquire,
            p_acquire=float(p),
            advice=prop.advice,
            weights=prop.weights,
            agent_names=self._names,
            agent_kinds=self._kinds,
            y_pred=self.classes_[ctx.y_index],
            proba=proba,
            certainty=ctx.certainty,
            budget_left=self.budget_ - self.budget_used_,
            reason=reason,
            model_token=self._token,
        )

    def learn_one(self: M, x: Any, y: Any, *, decision: Decision) -> M:
        """Deliver label `y` of the sample `x` that `decision` asked for; returns self.

        The reward is computed from the prediction recorded in `decision`, the learner is
        retrained on the labelled pool and the reward-learning agents update. Labels may
        come in any order and long after their decision.
        """
        self._learn(x, y, decision)
        return self

    def _learn(self, x: Any, y: Any, decision: Decision) -> float:
        self._check_fitted()
        if not isinstance(decision, Decision):
            raise DecisionError(
                "decision must be the Decision returned by query_one, got "
                f"{type(decision).__name__}"
            )
        if decision.model_token != self._token:
            raise DecisionError(
                f"decision #{decision.id} was made by another model (or before this model was "
                "fitted again); deliver each label to the model that asked for it."
            )
        if not decision.acquire:
            raise DecisionError(
                f"decision #{decision.id} did not acquire its sample ({decision.reason}); only "
                "samples the model asked for can be labelled and rewarded."
            )
        rec = self._pending.get(decision.id)
        if rec is None:
            raise DecisionError(f"decision #{decision.id} was already labelled.")
        xv = check_sample(x, self.n_features_in_)
        if not np.array_equal(xv, rec.x):
            raise InvalidInputError(
                f"x is not the sample of decision #{decision.id}; pass the sample the decision "
                "was made for together with its label."
            )
        yi = label_index(self.classes_, y)
        reward = float(self.reward) if yi != rec.y_index else float(self.penalty)
        del self._pending[decision.id]
        self.policy_.on_label(rec.proposal, reward, float(self.penalty), rec.x, yi)
        self._pool_X.append(rec.x)
        self._pool_y.append(yi)
        self.n_labels_ += 1
        self._since_refit += 1
        if self.refit == "every" or self._since_refit >= int(self.refit):
            self._refit()
        return reward

    def _refit(self) -> None:
        self._since_refit = 0
        self._learner.fit(np.asarray(self._pool_X), np.asarray(self._pool_y), warn=False)

    def flush(self) -> ChartStep | None:
        """Close the current step (run the EWMA chart now rather than at the next sample)."""
        self._check_fitted()
        if not self._step_open:
            return None
        self._step_open = False
        self.last_step_ = self.policy_.end_step()
        return self.last_step_

    # ------------------------------------------------------------------ learner
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of the current learner, columns ordered as ``classes_``."""
        self._check_fitted()
        return self._learner.predict_proba(check_features(X, self.n_features_in_))

    def predict(self, X: Any) -> np.ndarray:
        """Labels predicted by the current learner."""
        proba = self.predict_proba(X)
        return np.asarray(self.classes_[np.argmax(proba, axis=1)])

    @property
    def estimator_(self) -> Any:
        """The fitted scikit-learn estimator (None while the pool holds a single class)."""
        self._check_fitted()
        return self._learner.estimator_

    @property
    def budget_left(self) -> int:
        """Labels that can still be asked for."""
        self._check_fitted()
        return self.budget_ - self.budget_used_

    @property
    def pending(self) -> tuple[int, ...]:
        """Ids of acquisitions whose label has not arrived yet."""
        self._check_fitted()
        return tuple(sorted(self._pending))

    @property
    def labelled_pool(self) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)`` of every labelled sample: ``D0`` followed by the acquisitions."""
        self._check_fitted()
        return np.asarray(self._pool_X), self.classes_[np.asarray(self._pool_y, dtype=np.intp)]

    @property
    def agent_names(self) -> tuple[str, ...]:
        self._check_fitted()
        return self._names

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the whole state (learner, windows, weights, chart, RNG, pool, pending decisions).

        The file is written to a temporary name and renamed, so a crash never leaves a
        half-written model. Files are pickles: load only files you trust.
        """
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as fh:
            pickle.dump({"format": _FORMAT, "version": __version__, "model": self}, fh, protocol=5)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls: type[M], path: str | os.PathLike[str]) -> M:
        """Read a model written by :meth:`save`; it continues exactly where it stopped."""
        with open(path, "rb") as fh:
            payload = pickle.load(fh)
        if not isinstance(payload, dict) or payload.get("format") != _FORMAT:
            raise InvalidInputError(f"{path} is not a cbeal model file")
        model = payload["model"]
        if not isinstance(model, cls):
            raise InvalidInputError(f"{path} holds a {type(model).__name__}, not a {cls.__name__}")
        return model


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
        Maximum number of labels ``B``; never exceeded (pending labels count).
    solver
        An :class:`~cbeal.core.Exp4P` carrying the bandit's options; None = paper defaults.
    epsilon
        Ensemble-level ε-greedy exploration.
    reward, penalty
        ``ρ+`` (> 0) and ``ρ−`` (< 0).
    classes
        Every label that can occur; default: the labels of ``D0``.
    refit
        ``"every"`` acquisition (paper) or every k acquisitions.
    random_state
        Seed of every random draw; same seed, same decisions.

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

    def __init__(
        self,
        *,
        agents: Sequence[Any],
        estimator: Any,
        budget: int,
        solver: Exp4P | None = None,
        epsilon: float = 0.01,
        reward: float = 1.0,
        penalty: float = -0.5,
        classes: Sequence[Any] | None = None,
        refit: str | int = "every",
        random_state: Any = None,
    ) -> None:
        self.agents = agents
        self.estimator = estimator
        self.budget = budget
        self.solver = solver
        self.epsilon = epsilon
        self.reward = reward
        self.penalty = penalty
        self.classes = classes
        self.refit = refit
        self.random_state = random_state

    @classmethod
    def from_preset(cls, name: str = "CBEAL-6", **params: Any) -> CbeAL:
        """A CbeAL with the agents of preset `name` (CBEAL-2, -4, -4*, -6, -8; spec §5)."""
        return cls(agents=preset_agents(name), **params)

    @classmethod
    def from_agents(cls, agents: Sequence[Agent | tuple[str, Agent]], **params: Any) -> CbeAL:
        """A CbeAL with your own agents (or (name, agent) pairs), in the order given."""
        return cls(agents=list(agents), **params)

    def _make_policy(self) -> AgentEnsemble:
        return AgentEnsemble(agents=self.agents, solver=self.solver, epsilon=self.epsilon)

    @property
    def weights_(self) -> np.ndarray:
        """Current standardized agent weights."""
        self._check_fitted()
        return np.asarray(self.policy_.solver_.weights())  # type: ignore[attr-defined]


class SingleAgentLearner(StreamLearner):
    """One agent on its own (no bandit): acquire with probability ``(1 − ε) p + ε``.

    The paper's single-agent rows (LD, SPF, RAL alone) use this; parameters as
    :class:`CbeAL`, with one ``agent`` and an optional display ``name``.

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

    def __init__(
        self,
        *,
        agent: Agent,
        estimator: Any,
        budget: int,
        epsilon: float = 0.0,
        name: str | None = None,
        reward: float = 1.0,
        penalty: float = -0.5,
        classes: Sequence[Any] | None = None,
        refit: str | int = "every",
        random_state: Any = None,
    ) -> None:
        self.agent = agent
        self.estimator = estimator
        self.budget = budget
        self.epsilon = epsilon
        self.name = name
        self.reward = reward
        self.penalty = penalty
        self.classes = classes
        self.refit = refit
        self.random_state = random_state

    def _make_policy(self) -> SingleAgentPolicy:
        return SingleAgentPolicy(agent=self.agent, name=self.name, epsilon=self.epsilon)
