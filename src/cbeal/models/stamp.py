"""What every decision of one fitted stream says about the model that made it (spec §1).

A :class:`~cbeal.Decision` carries, besides what was decided, the names and kinds of the
agents that advised, the classes its probabilities are ordered by, and the model token that
starts its id: the label that comes back hours later is checked against that token. These
are fixed when ``fit`` starts a stream; :class:`DecisionStamp` holds them and stamps them
on each decision.
"""

from __future__ import annotations

from typing import Any

from cbeal.core import Context, Decision, Proposal

__all__ = ["DecisionStamp"]


class DecisionStamp:
    """The agents' names and kinds, the classes and the model token of a fitted stream.

    Examples
    --------
    >>> from cbeal.models.stamp import DecisionStamp
    >>> stamp = DecisionStamp().start(
    ...     names=("LD1", "RAL1"), kinds=("exploration", "exploitation"), classes=(0, 1),
    ...     token="line-3")
    >>> stamp.token_
    'line-3'
    >>> stamp.classes_, stamp.names_
    ((0, 1), ('LD1', 'RAL1'))
    """

    names_: tuple[str, ...]
    kinds_: tuple[str, ...]
    classes_: tuple[Any, ...]  # plain values (a regressor's: its task's classes)
    token_: str

    def start(
        self,
        *,
        names: tuple[str, ...],
        kinds: tuple[str, ...],
        classes: tuple[Any, ...],
        token: str,
    ) -> DecisionStamp:
        """Stamp the decisions of a stream fitted with these agents, classes and token."""
        self.names_ = names
        self.kinds_ = kinds
        self.classes_ = classes
        self.token_ = token
        return self

    def stamp(
        self,
        *,
        t: int,
        acquire: bool,
        p: float,
        prop: Proposal,
        ctx: Context,
        y_pred: Any,
        left: int,
        reason: str,
        version: int,
    ) -> Decision:
        """The decision on sample `t`: what was decided, stamped with the model's parts."""
        return Decision._of(  # every field, in order
            id=f"{self.token_}-{t}",
            t=t,
            acquire=acquire,
            p_acquire=float(p),
            advice=prop.advice,
            weights=prop.weights,
            agent_names=self.names_,
            agent_kinds=self.kinds_,
            y_pred=y_pred,
            proba=ctx.proba,
            classes=self.classes_,
            certainty=ctx.certainty,
            budget_left=left,
            reason=reason,
            learner_version=version,
            model_token=self.token_,
            score=prop.score,
            threshold=prop.threshold,
        )

    @classmethod
    def of_fields(cls, fields: dict[str, Any]) -> DecisionStamp:
        """The stamp of a model stored before the stamp was its own object (its
        ``_names``, ``_kinds``, ``_plain_classes`` and ``model_token_``, popped from
        `fields`)."""
        return cls().start(
            names=fields.pop("_names"),
            kinds=fields.pop("_kinds"),
            classes=fields.pop("_plain_classes"),
            token=fields.pop("model_token_"),
        )
