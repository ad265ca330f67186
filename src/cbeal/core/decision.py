"""The answer of ``query_one``: whether to ask for a label, and why — as an object or as data."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cbeal.core.exceptions import DecisionError

__all__ = ["Decision"]

_ARRAYS = ("advice", "weights", "proba")
_FIELDS = (
    "id", "t", "acquire", "p_acquire", "advice", "weights", "agent_names", "agent_kinds",
    "y_pred", "proba", "classes", "certainty", "budget_left", "reason", "learner_version",
    "model_token",
)  # fmt: skip
_OPTIONAL = ("score", "threshold")  # score fusion only; None for the voting policy


def _plain(value: Any) -> Any:
    """A JSON-safe Python scalar for a numpy scalar (labels may be numpy ints or strings)."""
    return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True, eq=False)
class Decision:
    """One acquisition decision, with the explanation of how it was reached.

    Attributes
    ----------
    id
        A string unique per model and stable across save/load, e.g. ``"3f9a0c2e-17"`` (the
        model's token and the stream position). Label a pending decision by its id.
    t
        Position of the sample in the model's stream (0 for the first ``query_one``).
    acquire
        Whether to ask the expert for the label.
    p_acquire
        Probability with which the acquire arm was drawn (after ``p_min`` and ε; 0 when
        the budget refused the sample).
    advice
        Each agent's acquisition probability, in the order of ``agent_names``.
    weights
        Standardized agent weights used for this decision (sum 1).
    agent_names, agent_kinds
        Names and kinds (``"exploration"``/``"exploitation"``) of the agents.
    y_pred, proba, certainty
        The current learner's prediction, class probabilities (ordered as ``classes``) and
        their maximum, recorded *before* any retraining on this sample; the reward of the
        label is computed from ``y_pred``.
    classes
        The model's classes, the order of ``proba``.
    budget_left
        Labels that may still be spent after this decision (for a rate: now).
    reason
        ``"drawn"``, or why the budget refused the sample (``"budget exhausted"``,
        ``"label rate reached"``).
    learner_version
        Which fit of the learner made the prediction (1 = the fit on ``D0``).
    model_token
        Identifies the fitted model, so that a label is never given to the wrong model.
    score, threshold
        Score fusion only (else None): the fused score ``Σ w_i s_i`` of the members'
        scores (``advice``) and the pacer's threshold it was compared with (None when no
        label was due). A member *wanted* the sample when its own score reached the
        threshold, and its share of an acquisition is its weighted score ``w_i s_i``.

    Examples
    --------
    >>> import json
    >>> import numpy as np
    >>> from cbeal.core import Decision
    >>> d = Decision(id="ab12-0", t=0, acquire=True, p_acquire=0.6, advice=np.array([1.0, 0.0]),
    ...              weights=np.array([0.5, 0.5]), agent_names=("LD1", "RAL1"),
    ...              agent_kinds=("exploration", "exploitation"), y_pred=np.int64(0),
    ...              proba=np.array([0.9, 0.1]), classes=(0, 1), certainty=0.9, budget_left=4)
    >>> d.led_by, d.wanted
    ('exploration', ('LD1',))
    >>> same = Decision.from_dict(json.loads(json.dumps(d.to_dict())))
    >>> same.id, same.y_pred, same.proba.tolist()
    ('ab12-0', 0, [0.9, 0.1])
    """

    id: str
    t: int
    acquire: bool
    p_acquire: float
    advice: np.ndarray
    weights: np.ndarray
    agent_names: tuple[str, ...]
    agent_kinds: tuple[str, ...]
    y_pred: Any
    proba: np.ndarray
    classes: tuple[Any, ...]
    certainty: float
    budget_left: int
    reason: str = "drawn"
    learner_version: int = 0
    model_token: str = field(default="", repr=False)
    score: float | None = None
    threshold: float | None = None

    def __post_init__(self) -> None:
        for arr in (self.advice, self.weights, self.proba):
            arr.setflags(write=False)

    @classmethod
    def _of(cls, **fields: Any) -> Decision:
        """A decision from every one of its fields, in half the constructor's time (the
        stream model's hot path; the generated ``__init__`` sets frozen fields one by one)."""
        d = object.__new__(cls)
        object.__setattr__(d, "__dict__", fields)  # the call's own dict: no copy
        fields["advice"].setflags(write=False)
        fields["weights"].setflags(write=False)
        fields["proba"].setflags(write=False)
        return d

    @property
    def fused(self) -> bool:
        """Whether score fusion made this decision (rather than the agents' vote)."""
        return self.score is not None

    def _votes(self) -> np.ndarray:
        if not self.fused:
            return self.advice >= 0.5
        if self.threshold is None:  # no label was due: nobody could want it
            return np.zeros(self.advice.shape, dtype=bool)
        return self.advice >= self.threshold

    def _pull(self) -> np.ndarray:
        # a vote counts with its weight; a fused score with its weighted score
        return self.weights * self.advice if self.fused else self.weights

    @property
    def wanted(self) -> tuple[str, ...]:
        """Names of the agents that wanted the sample: voted to acquire (advice ≥ 0.5), or
        under score fusion scored at least the pacer's threshold."""
        return tuple(n for n, v in zip(self.agent_names, self._votes(), strict=True) if v)

    @property
    def drivers(self) -> tuple[tuple[str, float], ...]:
        """Each agent's share of the decision, largest first: its weighted score's share of
        the fused score, or its weight's share of the votes to acquire."""
        pull = np.where(self._votes(), self._pull(), 0.0) if not self.fused else self._pull()
        total = float(pull.sum())
        if total <= 0.0:
            return ()
        pairs = [(n, float(v) / total) for n, v in zip(self.agent_names, pull, strict=True)]
        return tuple(sorted(pairs, key=lambda p: -p[1]))

    @property
    def exploration_share(self) -> float:
        """Share of exploration agents among the agents that wanted the sample, by weight
        (votes) or weighted score (fusion); NaN if none wanted it."""
        votes = self._votes()
        pull = self._pull()
        total = float(pull[votes].sum())
        if total <= 0.0:
            return math.nan
        explore = np.array([k == "exploration" for k in self.agent_kinds]) & votes
        return float(pull[explore].sum()) / total

    @property
    def led_by(self) -> str | None:
        """Which kind of agents led an acquisition, by weight share among those voting for it.

        ``"exploration"`` or ``"exploitation"``; ``"epsilon"`` when no agent voted (the
        ε-greedy or ``p_min`` share of the draw) or the pacer said no; ``None`` when the
        sample was skipped.
        """
        if not self.acquire:
            return None
        score, line = self.score, self.threshold
        if score is not None and (line is None or score < line):
            return "epsilon"  # the pacer said no: the ε-greedy share acquired it
        share = self.exploration_share
        if math.isnan(share):
            return "epsilon"
        return "exploration" if share >= 0.5 else "exploitation"

    def explain(self) -> str:
        """One line a person can read, e.g. for a labelling queue."""
        if not self.acquire:
            head = f"#{self.t}: skip ({self.reason}, P(acquire)={self.p_acquire:.3f})"
        else:
            head = f"#{self.t}: ACQUIRE, {self.led_by}-led (P(acquire)={self.p_acquire:.3f})"
        if self.score is not None:
            line = "no label due" if self.threshold is None else f"threshold {self.threshold:.3f}"
            head += f"; fused score {self.score:.3f}, {line}"
        votes = ", ".join(
            f"{n}={p:.2f}@w{w:.3f}"
            for n, p, w in zip(self.agent_names, self.advice, self.weights, strict=True)
        )
        pred = _plain(self.y_pred)
        return f"{head}; prediction {pred!r} at certainty {self.certainty:.3f}; {votes}"

    # ------------------------------------------------------------------ as data
    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON-safe Python values (lists for arrays); see :meth:`from_dict`."""
        out: dict[str, Any] = {}
        for name in _FIELDS:
            value = getattr(self, name)
            if name in _ARRAYS:
                value = [float(v) for v in value]
            elif name in ("agent_names", "agent_kinds", "classes"):
                value = [_plain(v) for v in value]
            else:
                value = _plain(value)
            out[name] = value
        for name in _OPTIONAL:
            value = getattr(self, name)
            out[name] = None if value is None else float(value)
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Decision:
        """The decision a :meth:`to_dict` dictionary (e.g. read back from JSON) describes."""
        if not isinstance(data, dict):
            raise DecisionError(f"a decision dictionary is needed, got {type(data).__name__}")
        missing = [k for k in _FIELDS if k not in data]
        if missing:
            raise DecisionError(
                f"the decision dictionary lacks {', '.join(missing)}; pass what "
                "Decision.to_dict() returned, unchanged"
            )
        try:
            values = {k: data[k] for k in _FIELDS}
            for name in _ARRAYS:
                values[name] = np.array(values[name], dtype=np.float64)
            for name in ("agent_names", "agent_kinds", "classes"):
                values[name] = tuple(values[name])
            values.update(
                id=str(values["id"]), t=int(values["t"]), acquire=bool(values["acquire"]),
                p_acquire=float(values["p_acquire"]), certainty=float(values["certainty"]),
                budget_left=int(values["budget_left"]), reason=str(values["reason"]),
                learner_version=int(values["learner_version"]),
                model_token=str(values["model_token"]),
            )  # fmt: skip
            for name in _OPTIONAL:  # absent in dictionaries of older versions
                value = data.get(name)
                values[name] = None if value is None else float(value)
        except (TypeError, ValueError) as exc:
            raise DecisionError(f"the decision dictionary has a malformed field: {exc}") from None
        return cls(**values)
