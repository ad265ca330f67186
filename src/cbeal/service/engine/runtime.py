"""A stream's model in memory, and the deterministic rules by which events change it.

Every change to a stream is an event in its log: a batch of ``sample``\\ s, a ``label``, a
``cancel``, a ``refit`` or the ``start`` of a cold stream. :class:`Runtime` applies them the
same way whether they arrive live or are replayed after a crash from the last checkpoint,
so a recovered stream makes exactly the decisions the uninterrupted one would have made
(a replayed batch is decided as one ``query_many``, as it was live).

Cold start: a stream created without an initial labelled set asks for the label of each
of its first ``cold_start`` samples (then one more at a time, until both classes were seen);
when every asked sample is answered it fits the model on them and starts deciding.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from cbeal.core import Decision
from cbeal.models import CbeAL
from cbeal.service.engine.decisions import cold_decision
from cbeal.service.engine.models import build_model, preprocessor
from cbeal.service.schemas.measured import measured_value
from cbeal.service.schemas.streams import StreamConfig

if TYPE_CHECKING:  # history reads the stream registry, which holds runtimes
    from cbeal.service.engine.history import History

__all__ = ["Runtime"]


def _frame(config: StreamConfig, rows: list[list[float | None]]) -> Any:
    import pandas as pd

    return pd.DataFrame(_array(rows), columns=config.features)


def _array(rows: list[list[float | None]]) -> np.ndarray:
    """Rows in the stream's feature order as floats (None -> NaN)."""
    return np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=np.float64)


class Runtime:
    """The in-memory state of one stream (hold :attr:`lock` around every use)."""

    def __init__(self, stream_id: int, config: StreamConfig) -> None:
        self.stream_id = stream_id
        self.config = config
        self.lock = threading.RLock()
        self.seq = 0  # the last event applied
        self.model: CbeAL | None = None  # None while cold: no labelled set yet
        self.cold_pending: dict[str, list[float | None]] = {}  # decision id -> row
        self.cold_labelled: list[tuple[list[float | None], Any]] = []
        self.cold_asked = 0
        self.history: History | None = None  # the dashboard's chart rows, made on first use
        if config.initial is not None:
            rows = [self.row(x) for x in config.initial.x]
            self._start(rows, list(config.initial.y))

    @property
    def fitted(self) -> CbeAL:
        """The stream's model (an engine error on a cold stream, which has none yet)."""
        if self.model is None:
            raise RuntimeError(f"stream {self.stream_id} is cold: it has no model yet")
        return self.model

    # ------------------------------------------------------------------ inputs
    def row(self, x: Any) -> list[float | None]:
        """A sample as values in feature order (dicts are read by name)."""
        features = self.config.features
        if isinstance(x, dict):
            missing = [f for f in features if f not in x]
            extra = [k for k in x if k not in set(features)]
            if missing or extra:
                raise ValueError(
                    f"sample features do not match the stream's: missing {missing}, unknown {extra}"
                )
            x = [x[f] for f in features]
        if len(x) != len(features):
            raise ValueError(
                f"a sample needs {len(features)} values (the stream's features), got {len(x)}"
            )
        return [None if v is None else float(v) for v in x]

    def label(self, y: Any) -> Any:
        """`y` as one of the stream's classes, or a regression stream's measured value (else
        a ValueError that says what to send)."""
        classes = self.config.classes
        if classes is None:
            return measured_value(y, self.config.unit)
        for c in classes:
            if type(c) is type(y) and c == y:
                return c
        raise ValueError(
            f"label {y!r} is not one of the stream's classes {classes}: send one of them "
            f"exactly, with its JSON type (e.g. {classes[0]!r})"
        )

    def correct(self, decision: dict[str, Any], y: Any) -> bool | None:
        """Whether the decision's prediction was right about label `y` (None: no model):
        for a regression stream, whether it was within the tolerance (the library's
        reward calls a part outside it a model error)."""
        pred = decision.get("y_pred")
        if pred is None:
            return None
        if self.config.classes is None:
            return bool(abs(float(y) - float(pred)) <= float(self.config.tolerance or 0.0))
        return bool(pred == y)

    # ------------------------------------------------------------------ events
    def decide(self, rows: list[list[float | None]], first_seq: int) -> list[dict[str, Any]]:
        """Decisions for a batch of samples (events ``first_seq`` …); one dict each."""
        if self.model is None:
            return [self._cold_decision(r, first_seq + i) for i, r in enumerate(rows)]
        # the stream's rows are already in feature order: an array is read by position
        X = _array(rows)
        out = [d.to_dict() for d in self.model.query_many(X)]
        if self.config.classes is None and out:  # regression: the prediction's spread too
            _, spread = self.model.predict_spread(X)  # no label came between: the same fit
            tol, unit = self.config.tolerance, self.config.unit
            for d, s in zip(out, spread.tolist(), strict=True):
                y = d["y_pred"]
                d.update(spread=s, interval=[y - 2.0 * s, y + 2.0 * s], tolerance=tol, unit=unit)
        return out

    def _cold_decision(self, row: list[float | None], seq: int) -> dict[str, Any]:
        # the first `cold_start` samples; then, if they held one class only, one at a time
        ask = self.cold_asked < self.config.cold_start or not self.cold_pending
        did = f"{self.config.name}-cold-{seq}"
        if ask:
            self.cold_asked += 1
            self.cold_pending[did] = row
        return cold_decision(did, ask)

    def reward(self, decision: dict[str, Any], y: Any) -> float | None:
        """The reward label `y` earns (None while cold: no model to reward)."""
        if self.model is None or decision.get("t") is None:
            return None
        return self.model.reward_of(Decision.from_dict(decision), y)

    def learn(self, decision_id: str, y: Any) -> bool:
        """Apply label `y`; True when a cold stream has all it needs to start."""
        if decision_id in self.cold_pending:
            self.cold_labelled.append((self.cold_pending.pop(decision_id), y))
            return self._ready()
        self.fitted.learn_one(None, y, decision=decision_id)
        return False

    def cancel(self, decision_id: str, refund: bool) -> None:
        if decision_id in self.cold_pending:
            del self.cold_pending[decision_id]
            self.cold_asked -= 1  # ask for another sample in its place
            return
        self.fitted.cancel(decision_id, refund=refund)

    def _ready(self) -> bool:
        labels = {repr(y) for _, y in self.cold_labelled}
        # every asked sample answered (none left behind), enough of them, both classes
        return (
            self.model is None
            and not self.cold_pending
            and len(labels) >= 2
            and len(self.cold_labelled) >= self.config.cold_start
        )

    def start(self) -> None:
        """Fit the model of a cold stream on its first labels (the ``start`` event)."""
        rows = [r for r, _ in self.cold_labelled]
        self._start(rows, [y for _, y in self.cold_labelled])

    def _start(self, rows: list[list[float | None]], y: list[Any]) -> None:
        model = build_model(self.config)
        X0 = _frame(self.config, rows)
        history = X0
        if self.config.history:
            history = _frame(self.config, [self.row(x) for x in self.config.history] + rows)
        model.set_params(preprocessor=preprocessor(self.config, history))
        self.model = model.fit(X0, np.asarray(y))

    def refit(self, upto: int) -> None:
        """Replay a refit: train on the first `upto` labelled samples and serve it."""
        self.fitted.refit(upto=upto)

    # ------------------------------------------------------------------ status
    def needs_refit(self) -> bool:
        return self.model is not None and self.model.labels_since_refit > 0

    def status(self) -> dict[str, Any]:
        model = self.model
        if model is None:
            return {
                "state": "cold start",
                "labels_wanted": self.config.cold_start,
                "labels_received": len(self.cold_labelled),
            }
        budget = model.budget_
        return {
            "state": "running",
            "samples_seen": int(model.t_),
            "labels_learned": int(model.n_labels_),
            "budget": {
                "kind": type(budget).__name__,
                "spec": str(budget),
                "spent": int(model.budget_used_),
                "left_now": int(model.budget_left),
            },
            "weights": dict(
                zip(model.agent_names, np.round(model.weights_, 4).tolist(), strict=True)
            ),
            "model_version": int(model.learner_version),
            "labels_since_refit": int(model.labels_since_refit),
        }
