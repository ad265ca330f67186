"""``cbeal run``: CbeAL on a user's own table, with the labels in the file as the expert.

The protocol (also written into every report):

1. **Order.** Rows are sorted by the time column (stable sort; numbers or parsed dates), or
   kept in file order without one.
2. **Test set.** The most recent ``test_fraction`` of the rows (rounded, at least one) are
   held out and only used to score the final models; 0 disables test metrics.
3. **D0 and stream.** Of the remaining *training portion*, the first ``initial`` rows are
   the initial labelled set D0; the rest is the stream, visited once in order. A stream
   row's label is read from the file only when a method asks for it.
4. **Features** are every numeric column except the label and time columns (or the
   ``features`` / all but ``drop``). Median imputation and standard scaling
   (:func:`cbeal.learners.fit_preprocessor`) are fitted on the training portion's inputs
   only — no labels, no test rows — and applied to every row.
5. **Budget.** ``"10%"`` or a share in (0, 1) of the stream (rounded, at least 1), or a
   whole number of labels; never more than the stream holds.
6. **Methods.** CbeAL (a preset or a list of agents) and each comparison method (RS, US,
   …) run on the same D0, stream, budget, learner and seed. References: "Initial" (the
   learner on D0 only) and "All Training Data" (the learner on every training label).
7. **Scores** on the test set: accuracy, balanced accuracy and, for two classes, F1,
   precision and recall of the positive class (default: the training portion's minority
   class); for more classes macro-F1.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cbeal.core import SingleClassWarning
from cbeal.evaluation import REFERENCES, fit_reference, scores
from cbeal.learners import make_learner
from cbeal.models import CbeAL, SingleAgentLearner, StreamLearner
from cbeal.simulation import simulate
from cbeal.streams.table import Table, load_table
from cbeal.tablerun.notes import data_notes, score_notes
from cbeal.tablerun.options import (
    RunOptions,
    comparison_methods,
    ensemble,
    learner_name,
    parse_budget,
)
from cbeal.tablerun.split import Split, make_split, positive_class
from cbeal.trace import Trace

__all__ = ["UserRun", "run"]


@dataclass(eq=False)
class UserRun:
    """Everything a report needs: the inputs, the split, the runs and their scores."""

    options: RunOptions
    table: Table
    split: Split
    budget: int
    name: str
    model: CbeAL
    traces: dict[str, Trace]
    scores: dict[str, dict[str, float]]
    labels: dict[str, int]
    classes: np.ndarray
    positive: Any
    seconds: float
    notes: list[str] = field(default_factory=list)

    @property
    def trace(self) -> Trace:
        """The CbeAL run's trace."""
        return self.traces[self.name]


def _stream_run(model: StreamLearner, split: Split, progress: bool | None) -> Trace:
    with warnings.catch_warnings():  # a single-class D0 is reported once, in the notes
        warnings.simplefilter("ignore", SingleClassWarning)
        model.fit(*split.part("initial"))
        return simulate(model, *split.part("stream"), progress=progress)


def _reference(name: str, learner: str, seed: int, split: Split,
               classes: np.ndarray) -> np.ndarray:
    """Test predictions of the learner trained on D0 ("Initial") or all training labels."""
    Z, y = split.features("initial" if name == "Initial" else "train")
    fitted = fit_reference(make_learner(learner), classes, seed, Z, y)
    return fitted.predict(split.features("test")[0])


def _baseline(method: str, learner: str, budget: int, split: Split, seed: int,
              classes: np.ndarray) -> StreamLearner:
    from cbeal.baselines import baseline_agent

    return SingleAgentLearner(agent=baseline_agent(method, budget / split.n_stream), name=method,
                              epsilon=0.0, estimator=make_learner(learner), budget=budget,
                              classes=list(classes), preprocessor=split.preprocessor,
                              random_state=seed)


def run(options: RunOptions) -> UserRun:
    """Validate everything, then run CbeAL, the comparisons and the references (see module doc).

    Nothing is written; pass the result to :func:`cbeal.reports.tablerun.write_report`.
    The CbeAL model takes raw rows of the file (it carries the preprocessing).
    """
    name, agents = ensemble(options.preset, options.agents)
    learner = learner_name(options.learner)
    compare = comparison_methods(options.compare)
    table = load_table(options.data, label=options.label, time=options.time,
                       features=options.features, drop=options.drop)
    split = make_split(table, initial=options.initial, test_fraction=options.test_fraction)
    budget = parse_budget(options.budget, split.n_stream)
    positive = positive_class(table, split, options.positive)
    classes = np.unique(split.y[: split.n_train])
    learner_name(learner, classes)
    start = time.perf_counter()
    model = CbeAL.from_agents(agents, estimator=make_learner(learner), budget=budget,
                              classes=list(classes), preprocessor=split.preprocessor,
                              random_state=options.seed)
    models: dict[str, StreamLearner] = {name: model}
    traces = {name: _stream_run(model, split, options.progress)}
    for method in compare:
        models[method] = _baseline(method, learner, budget, split, options.seed, classes)
        traces[method] = _stream_run(models[method], split, options.progress)
    X_test, y_test = split.part("test")
    preds = {m: models[m].predict(X_test) for m in models} if split.n_test else {}
    if split.n_test:
        preds.update({r: _reference(r, learner, options.seed, split, classes)
                      for r in REFERENCES})
    labels = {m: tr.n_acquired for m, tr in traces.items()}
    if split.n_test:  # the references only exist to be scored
        labels.update({"Initial": 0, "All Training Data": split.n_stream})
    return UserRun(
        options=options, table=table, split=split, budget=budget, name=name, model=model,
        traces=traces, scores={m: scores(y_test, p, positive=positive) for m, p in preds.items()},
        labels=labels, classes=classes, positive=positive,
        seconds=time.perf_counter() - start,
        notes=data_notes(table, split, classes) + score_notes(split, positive, preds, y_test),
    )
