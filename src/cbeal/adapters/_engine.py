"""The decision loop of a CbeAL ensemble when the classifier belongs to someone else.

scikit-activeml's loop owns the classifier and the training set, and may start with no
labelled sample at all, so its adapter cannot use a :class:`~cbeal.StreamLearner` (which
trains its own learner on ``D0``). :class:`Engine` keeps only what deciding needs: the
policy (agents and bandit), the budget, the random generator and the acquisitions whose
label is still to come. It is the same protocol as the stream model's (draw, spend,
reward from the recorded prediction, close the step at the next sample).
"""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass
from typing import Any

import numpy as np

from cbeal.core import Context, Decision, Policy, Proposal, as_budget
from cbeal.core.validation import label_index

__all__ = ["Engine"]


@dataclass(frozen=True)
class _Asked:
    x: np.ndarray
    proposal: Proposal
    y_index: int
    decision: Decision


class Engine:
    """One stream of decisions: policy, budget, generator and pending acquisitions."""

    def __init__(
        self,
        policy: Policy,
        budget: Any,
        rng: np.random.Generator,
        classes: np.ndarray,
        n_features: int,
    ) -> None:
        self.policy = policy.start(np.zeros((0, n_features)), rng)
        self.budget = as_budget(budget)
        self.rng = rng
        self.classes = classes
        self.n_features = n_features
        self.plain_classes = tuple(classes.tolist())
        self.names = tuple(n for n, _ in self.policy.named_agents)
        self.kinds = tuple(a.kind for _, a in self.policy.named_agents)
        self.token = uuid.UUID(int=int(rng.integers(2**63))).hex[:12]  # seeded, unlike uuid4
        self.t = 0
        self.step_open = False
        self.asked: dict[int, _Asked] = {}

    def fork(self) -> Engine:
        """A copy that decides on without changing this engine (what ``query`` needs).

        Only the state a decision changes is copied deeply; the pending records are
        immutable and shared.
        """
        twin = copy.copy(self)
        twin.policy, twin.budget, twin.rng = copy.deepcopy((self.policy, self.budget, self.rng))
        twin.asked = dict(self.asked)
        return twin

    def decide(self, x: np.ndarray, proba: np.ndarray) -> Decision:
        """Observe `x`, whose class probabilities the user's classifier gave, and decide."""
        if self.step_open:  # the previous sample's step is complete: run the chart
            self.policy.end_step()
            self.step_open = False
        ctx = Context(x, proba)
        proposal = self.policy.propose(ctx)
        t, seen = self.t, self.t + 1
        acquire, p, reason = False, 0.0, self.budget.reason
        if self.budget.allows(seen):
            p, reason = proposal.p_acquire, "drawn"
            acquire = bool(self.rng.random() < p)
            self.policy.on_decision(proposal, acquire)
            self.step_open = True
            if acquire:
                self.budget.spend(seen)
        self.t = seen
        decision = Decision(
            id=f"{self.token}-{t}", t=t, acquire=acquire, p_acquire=float(p),
            advice=proposal.advice, weights=proposal.weights, agent_names=self.names,
            agent_kinds=self.kinds, y_pred=self.plain_classes[ctx.y_index], proba=proba,
            classes=self.plain_classes, certainty=ctx.certainty,
            budget_left=self.budget.left(seen), reason=reason, model_token=self.token,
        )  # fmt: skip
        if acquire:
            self.asked[t] = _Asked(x, proposal, ctx.y_index, decision)
        return decision

    def learn(self, t: int, y: Any, reward: float, penalty: float) -> float:
        """Deliver label `y` of acquisition `t`; returns the reward it earned."""
        rec = self.asked[t]
        yi = label_index(self.classes, y)  # an unknown label raises before anything changes
        r = reward if yi != rec.y_index else penalty
        del self.asked[t]
        self.policy.on_label(rec.proposal, r, penalty, rec.x, yi)
        return r

    def drop(self, t: int) -> None:
        """An acquisition the user did not ask for after all: no reward, label refunded."""
        del self.asked[t]
        self.budget.refund(t + 1)
