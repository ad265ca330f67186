"""Writes the model files of tests/models/test_modelfile_compat.py and the decisions they make next.

Run with the code whose files must keep loading (they were written by commit 5fbd5b0, the
mixin StreamLearner)::

    cd tests/data/modelfile_compat && PYTHONPATH=<that checkout>/src python make.py .
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import BayesianRidge, LogisticRegression

from cbeal import CbeAL, make_stream
from cbeal.models.build import stream_model

Data = tuple[Any, Any, Any, Any]


def cls_data() -> Data:
    s = make_stream(n=300, random_state=0)
    return s.X0, s.y0, s.X_stream, s.y_stream


def reg_data() -> Data:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.normal(size=200)
    return X[:20], y[:20], X[20:], y[20:]


def small(model: Any) -> Any:
    """Shorter agent windows: the same parts in a file small enough to commit."""
    for _, a in model.agents:
        for k, v in a.get_params(deep=False).items():
            if "window" in k and isinstance(v, int) and not isinstance(v, bool) and v > 20:
                a.set_params(**{k: 20})
    return model


MODELS: dict[str, tuple[Callable[[], Any], Callable[[], Data]]] = {
    "cbeal5d": (
        lambda: CbeAL.from_preset(
            estimator=LogisticRegression(), budget=0.1, random_state=0, id_prefix="a"
        ),
        cls_data,
    ),
    "cbeal6": (
        lambda: small(
            CbeAL.from_preset(
                "CBEAL-6", estimator=LogisticRegression(), budget=40, random_state=1, id_prefix="b"
            )
        ),
        cls_data,
    ),
    "single": (
        lambda: stream_model(
            "ENT", budget=0.1, estimator=LogisticRegression(), random_state=2, id_prefix="c"
        ),
        cls_data,
    ),
    "regression": (
        lambda: small(
            CbeAL.from_agents(
                ["RALR1", "QBCR", "LD1"],
                estimator=BayesianRidge(),
                budget=0.25,
                tolerance=0.15,
                random_state=3,
                id_prefix="d",
            )
        ),
        reg_data,
    ),
}
KEYS = ("id", "acquire", "p_acquire", "weights", "budget_left", "reason", "y_pred")
KEYS += ("learner_version",)


def steps(model: Any, X: Any, y: Any, lo: int, hi: int, hold_last: bool) -> list[Any]:
    """Decide on rows lo..hi and deliver each acquired label at once (the last one held
    back with `hold_last`); the decisions as plain JSON values."""
    ds = model.query_many(X[lo:hi])
    asked = [(d, y[lo + i]) for i, d in enumerate(ds) if d.acquire]
    for d, yi in asked[:-1] if hold_last else asked:
        model.learn_one(None, yi, decision=d)
    rows = [{k: d.to_dict()[k] for k in KEYS} for d in ds]
    return list(json.loads(json.dumps(rows, default=lambda o: o.tolist())))


def continuation(model: Any, X: Any, y: Any) -> list[Any]:
    """What a saved model does next: its pending label arrives, then 50 more samples."""
    pending = model.pending[0]
    model.learn_one(None, y[pending.t], decision=pending)
    return steps(model, X, y, 80, 130, hold_last=False)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, (make, data) in MODELS.items():
        X0, y0, X, y = data()
        model = make().fit(X0, y0)
        steps(model, X, y, 0, 80, hold_last=True)
        model.save(out / f"{name}.cbeal")
        (out / f"{name}.json").write_text(json.dumps(continuation(model, X, y)))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
