"""How long a ``cbeal run`` will take, measured before the long work starts.

Two costs dominate. Each stream method refits its learner on the labelled pool after every
``refit_every`` labels, so with a budget of B labels it fits B/K times on pools growing to
B rows: the total grows with the square of the label count. And every stream row costs a
decision (the agents, the bandit, a prediction). Both are measured here on the user's own
data — the learner's fit time on two small pools, the decision time on the first stream
rows — and extrapolated; a warning with a faster `refit_every` is given when the run
would be long. Options are named as parameters in backticks (the command line shows its
flags).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cbeal.catalog import learner as make_learner
from cbeal.core import SingleClassWarning
from cbeal.evaluation import fit_reference
from cbeal.learners.regression import RegressionAdapter

__all__ = ["LONG_RUN", "PROGRESS_AFTER", "Estimate", "FitCost", "estimate"]

LONG_RUN = 300.0  # seconds: warn, and suggest a larger refit_every, above this
PROGRESS_AFTER = 3.0  # seconds: show progress bars (on a terminal) above this
PROBE_ROWS = 200  # stream rows used to time the decisions of each method
_STEPS = (2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)


@dataclass(frozen=True)
class FitCost:
    """Fit time of the learner against pool size: measured at two sizes, extrapolated with
    the measured growth, taken as at least linear (a conservative guess for larger pools)."""

    n1: int
    t1: float
    n2: int
    t2: float

    @property
    def exponent(self) -> float:
        if self.n2 <= self.n1 or self.t1 <= 0 or self.t2 <= self.t1:
            return 1.0
        return min(2.5, max(1.0, math.log(self.t2 / self.t1) / math.log(self.n2 / self.n1)))

    def seconds(self, n: float) -> float:
        if n >= self.n2:
            return self.t2 * (n / self.n2) ** self.exponent
        share = max(0.0, n - self.n1) / max(self.n2 - self.n1, 1)
        return self.t1 + (self.t2 - self.t1) * share


@dataclass(frozen=True)
class Estimate:
    """The expected wall time of a run and where it goes (seconds)."""

    fit: FitCost
    per_sample: dict[str, float]  # decision time per stream row, per method
    n_initial: int
    n_stream: int
    n_train: int
    budget: int
    refit_every: int
    repeats: int

    def refit_seconds(self, every: int) -> float:
        """One stream method's refits, if it spends the whole budget (an upper bound)."""
        sizes = self.n_initial + np.arange(every, self.budget + 1, every)
        final = [] if self.budget % every == 0 else [self.n_initial + self.budget]
        return float(sum(self.fit.seconds(n) for n in [*sizes.tolist(), *final]))

    def seconds(self, every: int | None = None) -> float:
        """The whole run: every method over the stream, the references, all repeats."""
        every = self.refit_every if every is None else every
        stream = sum(
            self.n_stream * s + self.refit_seconds(every) for s in self.per_sample.values()
        )
        references = self.fit.seconds(self.n_train) + self.fit.seconds(self.n_initial)
        return self.repeats * (stream + references)

    @property
    def long(self) -> bool:
        return self.seconds() > LONG_RUN

    def suggest(self) -> int | None:
        """The smallest refit_every (from 2, 5, 10, 20, …) that brings the run under
        :data:`LONG_RUN`, or that gets closest to it; None if none is faster."""
        floor = self.seconds(self.budget + 1)  # no refits at all: the decisions alone
        for every in _STEPS:
            if every <= self.refit_every or every > self.budget:
                continue
            if self.seconds(every) <= max(LONG_RUN, 1.2 * floor):
                return every
        return None

    def lines(self) -> list[str]:
        """What to tell the user before a long run (nothing for a short one)."""
        total = self.seconds()
        if total <= LONG_RUN:
            return []
        refits = self.budget // self.refit_every
        n = self.n_initial + self.budget
        text = [
            f"warning: this run may take up to about {_duration(total)}, if every method "
            f"spends its whole budget ({len(self.per_sample)} stream method(s) × "
            f"{self.repeats} repeat(s), each up to {refits} refits of the learner on up to "
            f"{n} labelled rows; one fit of {n} rows takes about "
            f"{self.fit.seconds(n):.2f} s). Progress bars underestimate the time left: "
            "refits get slower as labels accumulate."
        ]
        every = self.suggest()
        hint = (
            f"`refit_every` {every} (retrain after every {every} labels instead of every "
            f"{self.refit_every}) would take up to about {_duration(self.seconds(every))}; "
            if every is not None
            else ""
        )
        text.append(
            f"hint: {hint}a smaller `budget` or fewer `compare` methods also help. "
            "Ctrl-C stops the run and leaves any previous report as it was."
        )
        return text


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _timed(fn: Callable[[], Any], repeat: int = 2) -> float:
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
        if best > 0.5:  # slow enough to be measured once
            break
    return best


def fit_cost(learner: str, Z: np.ndarray, y: np.ndarray, classes: np.ndarray, seed: int) -> FitCost:
    """Time the learner on two pools of training rows (spread over the training portion,
    every class included), of up to 400 and 2000 rows; no `classes`: a regressor."""
    n2 = min(y.size, 2000)
    n1 = max(2, min(n2 // 5, 400))
    firsts = np.array([int(np.flatnonzero(y == c)[0]) for c in classes], dtype=np.intp)
    times = []
    for n in (n1, n2):
        idx = np.unique(np.r_[np.linspace(0, y.size - 1, n).astype(int), firsts])

        def fit(idx: np.ndarray = idx) -> Any:
            if not classes.size:
                return RegressionAdapter(make_learner(learner), seed).fit(Z[idx], y[idx])
            return fit_reference(make_learner(learner), classes, seed, Z[idx], y[idx])

        times.append(_timed(fit))
    return FitCost(n1=n1, t1=times[0], n2=n2, t2=times[1])


def decision_seconds(
    build: Callable[[], Any], X0: Any, y0: np.ndarray, X: Any, y: np.ndarray
) -> float:
    """Seconds per stream row of a throwaway model that never refits, on the first rows."""
    from cbeal.simulation import simulate

    model = build()
    model.refit_every = None  # the refits are estimated apart
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingleClassWarning)
        model.fit(X0, y0)
        start = time.perf_counter()
        simulate(model, X, y, progress=False)
    return (time.perf_counter() - start) / max(len(y), 1)


def estimate(
    *,
    learner: str,
    split: Any,
    classes: np.ndarray,
    budget: int,
    refit_every: int,
    repeats: int,
    seed: int,
    builders: dict[str, Callable[[], Any]],
) -> Estimate:
    """Measure and extrapolate; `builders` make a fresh model of each stream method."""
    Z, y = split.features("train")
    X0, y0 = split.part("initial")
    Xs, ys = split.part("stream")
    m = min(PROBE_ROWS, split.n_stream)
    per_sample = {
        name: decision_seconds(build, X0, y0, Xs.iloc[:m], ys[:m])
        for name, build in builders.items()
    }
    return Estimate(
        fit=fit_cost(learner, Z, y, classes, seed),
        per_sample=per_sample,
        n_initial=split.n_initial,
        n_stream=split.n_stream,
        n_train=split.n_train,
        budget=budget,
        refit_every=refit_every,
        repeats=repeats,
    )
