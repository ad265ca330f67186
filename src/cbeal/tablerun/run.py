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
5. **Budget.** A share — ``"10%"`` or ``0.1`` — is a paced rate: after ``t`` stream rows
   at most ``floor(0.1 · t + k)`` labels have been spent (``k`` the rate's burst,
   :data:`cbeal.core.RATE_BURST`) and never more than 10 % of the stream's rows in all, so
   the labels spread over the whole stream. A whole number is a count, spent whenever the
   method asks; never more than the stream holds. Every method gets the same budget.
6. **Methods.** CbeAL (a preset or a list of agents) and each comparison method (RS, US,
   …) run on the same D0, stream, budget, learner and seed. References: "Initial" (the
   learner on D0 only) and "All Training Data" (the learner on every training label).
7. **Scores** on the test set: accuracy, balanced accuracy and, for two classes, F1,
   precision and recall of the positive class (default: the training portion's minority
   class); for more classes macro-F1.

With a ``tolerance`` the label column holds measured values and the run is a regression
(:mod:`cbeal.tablerun.measured`): a regressor with a predictive spread, CBEAL-R by default,
D0 the first ``initial`` rows as they are, and the scores RMSE, MAE and the share of test
parts predicted within the tolerance, with a learning curve against the labels spent.
"""

from __future__ import annotations

import functools
import math
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from cbeal.catalog import learner as make_learner
from cbeal.catalog import preset_entry
from cbeal.core import Budget, InvalidInputError, SingleClassWarning
from cbeal.core.regression import default_tolerance, regression_scores
from cbeal.evaluation import REFERENCES, fit_reference, scores
from cbeal.models import CbeAL, StreamLearner, stream_model
from cbeal.simulation import simulate
from cbeal.simulation.trace import Trace
from cbeal.streams.table import Table, load_table
from cbeal.tablerun.equal_labels import equal_labels, uniform_rmse
from cbeal.tablerun.estimate import PROGRESS_AFTER, Estimate, estimate
from cbeal.tablerun.measured import (
    Curve,
    TargetStats,
    check_methods,
    learning_curve,
    reference_values,
    target_stats,
)
from cbeal.tablerun.notes import data_notes, score_notes
from cbeal.tablerun.options import (
    RunOptions,
    comparison_methods,
    ensemble,
    learner_name,
    run_budget,
)
from cbeal.tablerun.results import (
    RunStats,
    budget_use,
    cbeal_numbers,
    comparisons,
    data_stats,
    score_table,
)
from cbeal.tablerun.split import Split, make_split, positive_class

__all__ = ["Plan", "SeedRun", "UserRun", "execute", "prepare", "run"]


@dataclass(eq=False)
class Plan:
    """A validated run, ready to execute: the data, the split, the methods and the estimate."""

    options: RunOptions
    table: Table
    split: Split
    budget: int  # the most labels the budget allows over this stream
    spend: Budget  # the budget the models get: a paced rate or a count
    name: str
    agents: list[str] | None  # catalog names, or None for a preset (`name`)
    learner: str
    compare: list[str]
    classes: np.ndarray
    positive: Any
    estimate: Estimate | None = None  # set by prepare()

    @property
    def measured(self) -> bool:
        """Whether the labels are measured values (a regression run with a tolerance)."""
        return self.options.measured

    def build(self, method: str, seed: int) -> StreamLearner:
        """A fresh, unfitted model of `method` (CbeAL's name or a comparison strategy)."""
        common: dict[str, Any] = dict(
            estimator=make_learner(self.learner),
            budget=self.spend,
            budget_fraction=self.budget / self.split.n_stream,
            preprocessor=self.split.preprocessor,
            refit_every=self.options.refit_every,
            random_state=seed,
        )
        if self.measured:
            common["tolerance"] = self.options.tolerance
            common["regression_reward"] = self.options.regression_reward
        else:
            common["classes"] = list(self.classes)
        if method == self.name and self.agents is not None:
            return CbeAL.from_agents(self.agents, **common)
        return stream_model(method, **common)


@dataclass(eq=False)
class SeedRun:
    """The scores and label counts of every method with one seed."""

    seed: int
    scores: dict[str, dict[str, float]]
    labels: dict[str, int]
    #: a regression run's: each method's learning curve, and random sampling's test RMSE
    #: at each method's label count and at the full budget (L → RMSE)
    curves: dict[str, Curve] = field(default_factory=dict)
    uniform: dict[int, float] = field(default_factory=dict)


@dataclass(eq=False)
class UserRun:
    """Everything a report shows: the inputs, the split, the runs, and every number
    computed from them (``stats``; the report only renders).

    ``model``, ``traces``, ``scores`` and ``labels`` are those of the first seed
    (``options.seed``); ``seeds`` holds the scores of every seed (``options.repeats``)
    and ``stats.scores`` their mean ± standard error.
    """

    options: RunOptions
    table: Table
    split: Split
    budget: int  # the most labels the budget allows over the stream (stats.budget: its meaning)
    name: str
    model: CbeAL
    traces: dict[str, Trace]
    scores: dict[str, dict[str, float]]
    labels: dict[str, int]
    classes: np.ndarray
    positive: Any
    seconds: float
    stats: RunStats
    notes: list[str] = field(default_factory=list)
    seeds: list[SeedRun] = field(default_factory=list)
    estimate: Estimate | None = None
    learner: str = ""  # the learner's catalog name
    target: TargetStats | None = None  # measured values (a regression run), else None
    curves: dict[str, Curve] = field(default_factory=dict)  # a regression run's, per method

    @property
    def measured(self) -> bool:
        """Whether the labels were measured values (a regression run with a tolerance)."""
        return self.target is not None

    @property
    def others(self) -> list[str]:
        """The comparison methods that ran beside CbeAL."""
        return [m for m in self.traces if m != self.name]

    @property
    def trace(self) -> Trace:
        """The CbeAL run's trace."""
        return self.traces[self.name]


@contextmanager
def _quiet() -> Iterator[None]:
    """Hold back scikit-learn's warning that Nyström features (the `rbf-bayesian-ridge`
    learner) are fitted on fewer rows than components: it then uses every row, as meant,
    and would otherwise warn at each of the early refits."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="n_components > n_samples")
        yield


def _stream_run(model: StreamLearner, split: Split, progress: bool, desc: str) -> Trace:
    with warnings.catch_warnings():  # a single-class D0 is reported once, in the notes
        warnings.simplefilter("ignore", SingleClassWarning)
        model.fit(*split.part("initial"))
        trace = simulate(model, *split.part("stream"), progress=progress, desc=desc)
        if model.labels_since_refit:  # with refit_every > 1: the last labels count too
            model.refit()
    return trace


def _reference(name: str, plan: Plan, seed: int) -> np.ndarray:
    """Test predictions of the learner trained on D0 ("Initial") or all training labels."""
    split = plan.split
    Z, y = split.features("initial" if name == "Initial" else "train")
    Z_test = split.features("test")[0]
    if plan.measured:
        return np.asarray(reference_values(plan.learner, seed, Z, y, Z_test))
    fitted = fit_reference(make_learner(plan.learner), plan.classes, seed, Z, y)
    return fitted.predict(Z_test)


def prepare(options: RunOptions) -> Plan:
    """Validate the options and the file, split the rows and estimate the work.

    Nothing is written, and nothing long runs: the estimate times a few fits and decisions.
    """
    options.check()
    measured = options.measured
    name, agents = ensemble(options.preset, options.agents, measured=measured)
    learner = learner_name(options.learner, measured=measured)
    compare = comparison_methods(options.compare)
    table = load_table(
        options.data,
        label=options.label,
        time=options.time,
        features=options.features,
        drop=options.drop,
        ids=options.ids,
        measured=measured,
    )
    split = make_split(
        table, initial=options.initial, test_fraction=options.test_fraction, measured=measured
    )
    spend, budget = run_budget(options.budget, split.n_stream)
    if measured and options.tolerance is None:
        options = replace(options, tolerance=_default_tolerance(split), tolerance_rule="default")
    if measured:
        positive, classes = None, np.empty(0)
    else:
        positive = positive_class(table, split, options.positive)
        classes = np.unique(split.y[: split.n_train])
        learner_name(learner, classes)
    plan = Plan(
        options=options,
        table=table,
        split=split,
        budget=budget,
        spend=spend,
        name=name,
        agents=agents,
        learner=learner,
        compare=compare,
        classes=classes,
        positive=positive,
    )
    check_methods(lambda m: plan.build(m, options.seed), [name, *compare], measured)
    builders: dict[str, Callable[[], Any]] = {
        m: functools.partial(plan.build, m, options.seed) for m in [name, *compare]
    }
    with _quiet():
        plan.estimate = _estimate(plan, builders)
    return plan


def _default_tolerance(split: Split) -> float:
    """The default tolerance: a quarter of the spread of D0's measured values."""
    y0 = split.part("initial")[1]
    tol = default_tolerance(y0)
    if not math.isfinite(tol):
        raise InvalidInputError(
            f"the {len(y0)} measured values of D0 do not vary, so there is no default "
            "tolerance; give the `tolerance` in the target column's unit, or a larger `initial`"
        )
    return tol


def _estimate(plan: Plan, builders: dict[str, Callable[[], Any]]) -> Estimate:
    options = plan.options
    return estimate(
        learner=plan.learner,
        split=plan.split,
        classes=plan.classes,
        budget=plan.budget,
        refit_every=options.refit_every,
        repeats=options.repeats,
        seed=options.seed,
        builders=builders,
    )


def _show_progress(plan: Plan) -> bool:
    if plan.options.progress is not None:
        return plan.options.progress
    long = plan.estimate is None or plan.estimate.seconds() > PROGRESS_AFTER
    return long and sys.stderr.isatty()


def _one_seed(
    plan: Plan, seed: int, progress: bool
) -> tuple[dict[str, StreamLearner], dict[str, Trace], dict[str, np.ndarray]]:
    models: dict[str, StreamLearner] = {}
    traces: dict[str, Trace] = {}
    several = plan.options.repeats > 1
    for method in [plan.name, *plan.compare]:
        models[method] = plan.build(method, seed)
        desc = f"{method}, seed {seed}" if several else method
        traces[method] = _stream_run(models[method], plan.split, progress, desc)
    preds: dict[str, np.ndarray] = {}
    if plan.split.n_test:
        X_test = plan.split.part("test")[0]
        preds = {m: models[m].predict(X_test) for m in models}
        preds.update({r: _reference(r, plan, seed) for r in REFERENCES})
    return models, traces, preds


def _scores(plan: Plan, y_test: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    if plan.measured:
        return regression_scores(y_test, pred, float(plan.options.tolerance or 0.0))
    return scores(y_test, pred, positive=plan.positive)


def _curves(plan: Plan, models: dict[str, StreamLearner]) -> dict[str, Curve]:
    """A regression run's learning curves (test RMSE against labels spent), per method."""
    if not plan.measured or not plan.split.n_test:
        return {}
    return {
        m: learning_curve(
            model.labelled_pool,
            plan.split.n_initial,
            learner=plan.learner,
            seed=plan.options.seed,
            test=plan.split.features("test"),
            tolerance=float(plan.options.tolerance or 0.0),
        )
        for m, model in models.items()
    }


def execute(plan: Plan) -> UserRun:
    """Run CbeAL, the comparisons and the references for every seed, and score them.

    Nothing is written; pass the result to :func:`cbeal.runreport.write_report`.
    The CbeAL model takes raw rows of the file (it carries the preprocessing).
    """
    o, split = plan.options, plan.split
    progress = _show_progress(plan)
    y_test = split.part("test")[1]
    start = time.perf_counter()
    seeds: list[SeedRun] = []
    first: tuple[Any, ...] = ()
    for seed in range(o.seed, o.seed + o.repeats):
        with _quiet():
            models, traces, preds = _one_seed(plan, seed, progress)
        labels = {m: tr.n_acquired for m, tr in traces.items()}
        with _quiet():
            curves = _curves(plan, models)
            uniform = (
                uniform_rmse(split, plan.learner, seed, [*labels.values(), plan.budget])
                if curves
                else {}
            )
        if split.n_test:  # the references only exist to be scored
            labels.update({"Initial": 0, "All Training Data": split.n_stream})
        seeds.append(
            SeedRun(
                seed=seed,
                labels=labels,
                scores={m: _scores(plan, y_test, p) for m, p in preds.items()},
                curves=curves,
                uniform=uniform,
            )
        )
        if not first:
            first = (models[plan.name], traces, preds, curves)
    model, traces, preds, curves = first
    return UserRun(
        options=o,
        table=plan.table,
        split=split,
        budget=plan.budget,
        name=plan.name,
        model=model,
        traces=traces,
        scores=seeds[0].scores,
        labels=seeds[0].labels,
        classes=plan.classes,
        positive=plan.positive,
        seconds=time.perf_counter() - start,
        stats=_stats(plan, seeds, traces),
        notes=data_notes(plan.table, split, plan.classes)
        + score_notes(split, plan.positive, preds, y_test),
        seeds=seeds,
        estimate=plan.estimate,
        learner=plan.learner,
        target=target_stats(split, float(o.tolerance)) if o.tolerance is not None else None,
        curves=curves,
    )


def _stats(plan: Plan, seeds: list[SeedRun], traces: dict[str, Trace]) -> RunStats:
    """Every number the report shows, once."""
    use = budget_use(plan.options.budget, plan.spend, plan.budget, plan.split.n_stream)
    cbeal, weights = cbeal_numbers(traces[plan.name], use)
    return RunStats(
        budget=use,
        data=data_stats(plan.table, plan.split, plan.positive, measured=plan.measured),
        scores=score_table(seeds),
        comparisons=comparisons(seeds, plan.name, [m for m in traces if m != plan.name]),
        cbeal=cbeal,
        weights=weights,
        control_chart=plan.agents is not None or preset_entry(plan.name).control_chart,
        fusion=None if plan.agents is not None else _fusion(plan.name),
        equal_labels=equal_labels(seeds, list(traces), plan.budget),
    )


def _fusion(preset: str) -> str | None:
    """How a score-fusion preset weighs its agents' scores (None for a bandit's vote)."""
    fusion = preset_entry(preset).fusion
    return None if fusion is None else str(fusion.get("weights", "equal"))


def run(options: RunOptions) -> UserRun:
    """Validate everything, then run CbeAL, the comparisons and the references (see module
    doc): :func:`prepare` then :func:`execute`. Nothing is written."""
    return execute(prepare(options))
