"""The label path of a stream model: deliver, cancel and reward labels (spec §9).

``learn_one`` delivers a label — now or hours later, by the :class:`~cbeal.Decision`, its
dict or its id; ``cancel`` ends a pending acquisition whose label will never come;
``pending`` lists the acquisitions still waiting for theirs.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from cbeal.core import Decision, InvalidInputError
from cbeal.core.validation import label_index
from cbeal.models.stream_state import StreamState

__all__ = ["Labelling"]

L = TypeVar("L", bound="Labelling")


class Labelling(StreamState):
    """How a stream model takes labels (one part of
    :class:`~cbeal.models.stream.StreamLearner`)."""

    def learn_one(self: L, x: Any, y: Any, *, decision: Any) -> L:
        """Deliver label `y` of the acquisition `decision` asked for; returns self.

        `decision` is the :class:`~cbeal.Decision`, its :meth:`~cbeal.Decision.to_dict`
        or its id. `x` may be None: the model kept the sample; if given, it must be that
        sample. The reward is computed from the prediction recorded in the decision, the
        reward-learning agents and the bandit update, the sample joins the labelled pool
        and the learner is retrained (``refit_every``). If retraining fails, the error is raised
        and nothing changed: the decision is still pending and the call can be retried. If
        an agent fails to learn from the label, the decision stays pending too.
        """
        with self._mutex:
            self._check_fitted()
            reward, penalty = self._rewards()
            t = self._resolve(decision)
            pool, slot = self._pool, self._slot
            rec = pool.pending_[t]
            if x is not None and not np.array_equal(self.inputs_.row(x), rec.x):
                raise InvalidInputError(
                    f"x is not the sample of decision {rec.decision.id}; pass that sample, or "
                    "x=None to use the sample the model kept."
                )
            task = self._task
            if task is None:
                yi: Any = label_index(self.classes_, y)
                r = reward if yi != rec.y_index else penalty
            else:
                yi = task.target(y)
                r = task.reward(yi, rec.decision.y_pred, reward, penalty)
            new = None
            if slot.due(self.refit_every):  # train first: a failure leaves all as it was
                new = slot.learner_.fitted_on(*pool.arrays_with(rec.x, yi))
            try:  # before the decision leaves the pending ones: a failure loses no label
                self.policy_.on_label(rec.proposal, r, penalty, rec.x, yi)
            except Exception as exc:
                note = getattr(exc, "add_note", None)  # Python ≥ 3.11
                if note is not None:
                    note(
                        f"decision {rec.decision.id} is still pending: deliver its label again "
                        "once the cause is fixed"
                    )
                raise
            pool.deliver(t, yi)
            self.n_labels_ += 1
            slot.learned(new)
        return self

    def cancel(self, decision: Any, *, refund: bool = True) -> Decision:
        """End a pending acquisition whose label will never come; returns its decision.

        The bandit and the agents treat it like a skipped sample: it earns no reward
        (Exp4.P's reward estimate for an arm without feedback is 0; its exploration term
        was applied when the decision was drawn, as for every decision) and it never
        joins the labelled pool. With `refund` the label goes back to the budget, since
        it was never bought; pass ``refund=False`` when the expert's time was spent
        anyway (e.g. "cannot tell").
        """
        with self._mutex:
            self._check_fitted()
            t = self._resolve(decision)
            rec = self._pool.cancel(t)
            if refund:
                self.budget_.refund(t + 1)
            return rec.decision

    def reward_of(self, decision: Decision, y: Any) -> float:
        """The reward label `y` earns `decision`: ρ+ if the recorded prediction was wrong."""
        self._check_fitted()
        reward, penalty = self._rewards()
        task = self._task
        if task is not None:
            return task.reward(task.target(y), decision.y_pred, reward, penalty)
        yi = label_index(self.classes_, y)
        wrong = yi != label_index(self.classes_, decision.y_pred)
        return reward if wrong else penalty

    def _resolve(self, decision: Any) -> int:
        """The stream position of a pending decision given as object, dict or id."""
        return self._pool.resolve(decision, token=getattr(self, "model_token_", None), seen=self.t_)

    @property
    def pending(self) -> tuple[Decision, ...]:
        """Acquisitions whose label has not arrived yet, oldest first."""
        with self._mutex:
            self._check_fitted()
            return self._pool.waiting()
