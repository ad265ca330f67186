"""What a simulated stream run records, step by step (spec §10)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Trace"]


@dataclass
class Trace:
    """Per-step record of a stream run; arrays have one row per stream sample.

    ``advice``, the three weight arrays and ``flipped`` have one column per agent, in the
    order of ``agent_names``. ``weights_before`` were used for the decision,
    ``weights_exp4p`` are after the Exp4.P update of the step and ``weights_after`` after
    the EWMA flips. ``reward`` is 0 for samples that were not acquired.
    """

    acquired: np.ndarray
    p_acquire: np.ndarray
    advice: np.ndarray
    weights_before: np.ndarray
    weights_exp4p: np.ndarray
    weights_after: np.ndarray
    flipped: np.ndarray
    reward: np.ndarray
    y_true: np.ndarray
    y_pred: np.ndarray
    certainty: np.ndarray
    agent_names: tuple[str, ...]
    metadata: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.acquired.shape[0])

    @property
    def n_acquired(self) -> int:
        return int(self.acquired.sum())

    @property
    def cumulative_reward(self) -> np.ndarray:
        return np.cumsum(self.reward)

    def summary(self) -> dict[str, Any]:
        """Headline numbers: labels spent, rewards, share of each class among the labels
        (a regressor's stream: the prequential RMSE, MAE and share within the tolerance)."""
        acq = self.acquired
        out = {
            "n_stream": len(self),
            "n_acquired": self.n_acquired,
            "budget": self.metadata.get("budget"),
            "n_useful": int((self.reward > 0).sum()),
            "n_useless": int((self.reward < 0).sum()),
            "cumulative_reward": float(self.reward.sum()),
            "last_acquisition": int(np.flatnonzero(acq)[-1]) if acq.any() else None,
        }
        tol = self.metadata.get("tolerance")
        if tol is not None:
            from cbeal.core.regression import regression_scores

            scores = regression_scores(self.y_true, self.y_pred, float(tol))
            out.update({f"prequential_{k}": v for k, v in scores.items()})
        else:
            labels, counts = np.unique(self.y_true[acq], return_counts=True)
            out["acquired_per_class"] = {
                str(k): int(v) for k, v in zip(labels, counts, strict=True)
            }
        out["n_flips"] = int(self.flipped.sum())
        return out

    def to_frame(self) -> Any:
        """A pandas DataFrame, one row per step (needs ``pip install -e '.[pandas]'``)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("Trace.to_frame needs pandas: pip install -e '.[pandas]'") from exc
        cols: dict[str, Any] = {
            "t": np.arange(len(self)),
            "acquired": self.acquired,
            "p_acquire": self.p_acquire,
            "reward": self.reward,
            "y_true": self.y_true,
            "y_pred": self.y_pred,
            "certainty": self.certainty,
        }
        for j, name in enumerate(self.agent_names):
            cols[f"advice[{name}]"] = self.advice[:, j]
            cols[f"weight_before[{name}]"] = self.weights_before[:, j]
            cols[f"weight_exp4p[{name}]"] = self.weights_exp4p[:, j]
            cols[f"weight_after[{name}]"] = self.weights_after[:, j]
            cols[f"flipped[{name}]"] = self.flipped[:, j]
        frame = pd.DataFrame(cols)
        frame.attrs.update(self.metadata)
        return frame
