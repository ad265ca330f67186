"""The label path of a stream model: a delivered label rewards the policy and joins the pool
(spec §9).

A label earns its acquisition a reward from the prediction the decision recorded (``ρ+``
when it was wrong); the reward-learning agents and the bandit learn from it, the sample
joins the labelled pool and the learner is retrained when ``refit_every`` labels came.
:class:`LabelPath` is handed the parts a label changes (it keeps no state of its own) and
does this so that a failure changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cbeal.core import Decision, InvalidInputError, Policy
from cbeal.core.validation import label_index
from cbeal.models.labelled_pool import LabelledPool
from cbeal.models.learner_slot import LearnerSlot
from cbeal.models.regression import RegressionTask

__all__ = ["LabelPath"]


@dataclass(frozen=True)
class LabelPath:
    """What a label changes: the pool, the served learner and the policy of a fitted
    stream, with its task (None: a classifier over `classes`).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from cbeal.models.label_path import LabelPath
    >>> path = LabelPath(pool=None, slot=None, policy=None, task=None,
    ...                  classes=np.array(["bad", "ok"]))
    >>> said_ok = SimpleNamespace(y_pred="ok")  # a decision that predicted "ok"
    >>> path.reward_of(said_ok, "bad", (1.0, -0.5)), path.reward_of(said_ok, "ok", (1.0, -0.5))
    (1.0, -0.5)
    """

    pool: LabelledPool
    slot: LearnerSlot
    policy: Policy
    task: RegressionTask | None
    classes: np.ndarray  # a classifier's (a regressor's labels are values: empty)

    def learn(
        self,
        t: int,
        x: np.ndarray | None,
        y: Any,
        *,
        rewards: tuple[float, float],
        refit_every: int | None,
    ) -> None:
        """Deliver label `y` of pending acquisition `t` (`x`: its features, to check, or
        None); a retrain or an agent that fails leaves everything as it was."""
        pool, slot = self.pool, self.slot
        reward, penalty = rewards
        rec = pool.pending_[t]
        if x is not None and not np.array_equal(x, rec.x):
            raise InvalidInputError(
                f"x is not the sample of decision {rec.decision.id}; pass that sample, or "
                "x=None to use the sample the model kept."
            )
        task = self.task
        if task is None:
            yi: Any = label_index(self.classes, y)
            r = reward if yi != rec.y_index else penalty
        else:
            yi = task.target(y)
            r = task.reward(yi, rec.decision.y_pred, reward, penalty)
        new = None
        if slot.due(refit_every):  # train first: a failure leaves all as it was
            new = slot.learner_.fitted_on(*pool.arrays_with(rec.x, yi))
        try:  # before the decision leaves the pending ones: a failure loses no label
            self.policy.on_label(rec.proposal, r, penalty, rec.x, yi)
        except Exception as exc:
            note = getattr(exc, "add_note", None)  # Python ≥ 3.11
            if note is not None:
                note(
                    f"decision {rec.decision.id} is still pending: deliver its label again "
                    "once the cause is fixed"
                )
            raise
        pool.deliver(t, yi)
        slot.learned(new)

    def reward_of(self, decision: Decision, y: Any, rewards: tuple[float, float]) -> float:
        """The reward label `y` earns `decision`: ρ+ if the recorded prediction was wrong."""
        reward, penalty = rewards
        task = self.task
        if task is not None:
            return task.reward(task.target(y), decision.y_pred, reward, penalty)
        yi = label_index(self.classes, y)
        wrong = yi != label_index(self.classes, decision.y_pred)
        return reward if wrong else penalty
