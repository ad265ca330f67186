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

import difflib
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.core import (
    BudgetError,
    InvalidInputError,
    SingleClassWarning,
    preset_agents,
    single_agent,
)
from cbeal.core.agent import Agent
from cbeal.core.presets import PRESETS
from cbeal.learners import LEARNERS, fit_preprocessor, make_learner
from cbeal.learners.adapter import fit_reference
from cbeal.models import CbeAL, StreamLearner
from cbeal.simulation import simulate
from cbeal.streams.table import Table, load_table
from cbeal.trace import Trace
from cbeal.userscores import choose_positive, scores

__all__ = ["AGENT_NAMES", "RunOptions", "Split", "UserRun", "parse_budget", "run"]

AGENT_NAMES = ("LD1", "LD2", "LD3", "SPF1", "RAL1", "RAL2", "RAL3", "RAL4")
COMPARE_FAMILIES = ("benchmark", "extra")
REFERENCES = ("Initial", "All Training Data")


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """What ``cbeal run`` was asked to do (the command-line options, validated by :func:`run`).

    >>> RunOptions(data=Path("line.csv"), label="fail").budget
    '10%'
    """

    data: Path
    label: str
    time: str | None = None
    features: str | None = None
    drop: str | None = None
    preset: str = "CBEAL-6"
    agents: str | None = None
    budget: str = "10%"
    learner: str = "logreg-l1"
    initial: int = 10
    test_fraction: float = 0.3
    positive: str | None = None
    compare: str = "RS"
    seed: int = 0
    progress: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: str(v) if isinstance(v, Path) else v for k, v in asdict(self).items()}


@dataclass(frozen=True, eq=False)
class Split:
    """The preprocessed rows in stream order and the sizes of D0, stream and test set."""

    X: np.ndarray
    y: np.ndarray
    n_initial: int
    n_stream: int
    n_test: int

    @property
    def n_train(self) -> int:
        return self.n_initial + self.n_stream

    def part(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)`` of ``"initial"``, ``"stream"``, ``"train"`` or ``"test"``."""
        a, b = {"initial": (0, self.n_initial), "stream": (self.n_initial, self.n_train),
                "train": (0, self.n_train), "test": (self.n_train, self.y.size)}[name]
        return self.X[a:b], self.y[a:b]


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


def _suggest(name: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(name.upper(), [c.upper() for c in choices], n=1)
    hit = [c for c in choices if close and c.upper() == close[0]]
    return f"did you mean {hit[0]!r}? " if hit else ""


def _ensemble(preset: str, agents: str | None) -> tuple[str, list[tuple[str, Agent]]]:
    """The CbeAL display name and its (name, agent) pairs."""
    if agents is None:
        key = preset.upper().replace("_", "-")
        if key not in PRESETS:
            raise InvalidInputError(f"unknown preset {preset!r}; {_suggest(preset, list(PRESETS))}"
                                    f"choose one of {', '.join(PRESETS)} (CBEAL-6 recommended)")
        return key, preset_agents(key)
    names = [a.strip().upper() for a in agents.split(",") if a.strip()]
    for name in names:
        if name not in AGENT_NAMES:
            raise InvalidInputError(f"unknown agent {name!r}; {_suggest(name, list(AGENT_NAMES))}"
                                    f"choose from {', '.join(AGENT_NAMES)}")
    if len(names) < 2 or len(set(names)) != len(names):
        raise InvalidInputError(
            f"--agents needs at least two different agents, got {agents!r}; e.g. "
            "--agents LD2,RAL1 (or use --preset)"
        )
    return f"CbeAL({','.join(names)})", [(n, single_agent(n)) for n in names]


def _learner(name: str) -> str:
    if name.lower() not in LEARNERS:
        raise InvalidInputError(f"unknown learner {name!r}; {_suggest(name, list(LEARNERS))}"
                                f"choose one of {', '.join(LEARNERS)}")
    return name.lower()


def _check_learner_classes(learner: str, classes: np.ndarray) -> None:
    if learner == "logreg-l1" and classes.size > 2:  # liblinear is two-class only
        raise InvalidInputError(
            f"the learner 'logreg-l1' handles two classes only, but the training rows hold "
            f"{classes.size}; use --learner logreg, svm, random-forest or gradient-boosting"
        )


def _compare(text: str) -> list[str]:
    from cbeal.experiments.methods import METHODS

    if text.strip().lower() in ("", "none"):
        return []
    allowed = [n for n, m in METHODS.items() if m.family in COMPARE_FAMILIES]
    by_key = {n.upper(): n for n in allowed}
    chosen: list[str] = []
    for raw in (s.strip() for s in text.split(",") if s.strip()):
        if raw.upper() not in by_key:
            raise InvalidInputError(f"unknown comparison method {raw!r}; {_suggest(raw, allowed)}"
                                    f"choose from {', '.join(allowed)}, or 'none'")
        if by_key[raw.upper()] not in chosen:
            chosen.append(by_key[raw.upper()])
    return chosen


def parse_budget(text: str | float, n_stream: int) -> int:
    """Number of labels from ``"10%"``, a share in (0, 1) of the stream, or a count.

    >>> parse_budget("10%", 485), parse_budget("0.1", 485), parse_budget("25", 485)
    (48, 48, 25)
    """
    spec = str(text).strip()
    try:
        value = float(spec[:-1]) / 100 if spec.endswith("%") else float(spec)
    except ValueError:
        raise BudgetError(f"cannot read the budget {text!r}; write a share such as 10% or "
                          "0.1, or a number of labels such as 50") from None
    if not np.isfinite(value) or value <= 0:
        raise BudgetError(f"the budget must be positive, got {text!r}; e.g. 10% or 50")
    if spec.endswith("%") or value < 1:
        if value > 1:
            raise BudgetError(f"the budget {text!r} is more than 100% of the stream")
        labels = max(1, round(value * n_stream))
    elif value.is_integer():
        labels = int(value)
    else:
        raise BudgetError(f"the budget {text!r} is neither a share below 1 nor a whole number "
                          "of labels; e.g. 0.1, 10% or 50")
    if labels > n_stream:
        raise BudgetError(f"the budget of {labels} labels exceeds the stream of {n_stream} rows; "
                          "lower --budget (e.g. 10%) or use more data")
    return labels


def _sizes(n: int, *, initial: int, test_fraction: float) -> tuple[int, int, int]:
    if not 0.0 <= test_fraction < 1.0:
        raise InvalidInputError(f"--test-fraction must be in [0, 1), got {test_fraction}; "
                                "e.g. 0.3 (or 0 to skip test metrics)")
    if initial < 1:
        raise InvalidInputError(f"--initial must be at least 1 row, got {initial}; e.g. 10")
    n_test = max(1, round(test_fraction * n)) if test_fraction > 0 else 0
    n_stream = n - n_test - initial
    if n_stream < 1:
        raise InvalidInputError(
            f"too few rows: the file has {n}; the test set takes {n_test} (--test-fraction "
            f"{test_fraction}) and D0 {initial} (--initial), leaving {max(n_stream, 0)} for the "
            "stream. Lower --initial or --test-fraction, or use more rows."
        )
    return initial, n_stream, n_test


def make_split(table: Table, *, initial: int, test_fraction: float) -> Split:
    """Split the ordered rows and preprocess (fitted on the training inputs only)."""
    n0, n_stream, n_test = _sizes(table.n_rows, initial=initial, test_fraction=test_fraction)
    n_train = n0 + n_stream
    train_classes = np.unique(table.y[:n_train])
    if train_classes.size < 2:
        raise InvalidInputError(
            f"the training portion (the first {n_train} rows in time order) holds only class "
            f"{train_classes.tolist()[0]!r}; the other classes are all in the most recent rows. "
            "Lower --test-fraction or use a longer history."
        )
    pre = fit_preprocessor(table.X[:n_train])  # inputs only: no labels, no test rows
    return Split(X=np.asarray(pre.transform(table.X)), y=table.y, n_initial=n0,
                 n_stream=n_stream, n_test=n_test)


def _positive(table: Table, split: Split, wanted: str | None) -> Any:
    _, y_train = split.part("train")
    try:
        return choose_positive(y_train, wanted)
    except ValueError as exc:
        raise InvalidInputError(f"{exc} (in column {table.label!r})") from None


def _stream_run(model: StreamLearner, split: Split, progress: bool | None) -> Trace:
    with warnings.catch_warnings():  # a single-class D0 is reported once, in the notes
        warnings.simplefilter("ignore", SingleClassWarning)
        model.fit(*split.part("initial"))
        return simulate(model, *split.part("stream"), progress=progress)


def _reference(name: str, options: RunOptions, split: Split, classes: np.ndarray) -> np.ndarray:
    """Test predictions of the learner trained on D0 ("Initial") or all training labels."""
    X, y = split.part("initial" if name == "Initial" else "train")
    fitted = fit_reference(make_learner(options.learner), classes, options.seed, X, y)
    return fitted.predict(split.part("test")[0])


def run(options: RunOptions) -> UserRun:
    """Validate everything, then run CbeAL, the comparisons and the references (see module doc).

    Nothing is written; pass the result to :func:`cbeal.userreport.write_report`.
    """
    name, agents = _ensemble(options.preset, options.agents)
    learner = _learner(options.learner)
    compare = _compare(options.compare)
    table = load_table(options.data, label=options.label, time=options.time,
                       features=options.features, drop=options.drop)
    split = make_split(table, initial=options.initial, test_fraction=options.test_fraction)
    budget = parse_budget(options.budget, split.n_stream)
    positive = _positive(table, split, options.positive)
    classes = np.unique(split.part("train")[1])
    _check_learner_classes(learner, classes)
    start = time.perf_counter()
    model = CbeAL.from_agents(agents, estimator=make_learner(learner), budget=budget,
                              classes=list(classes), random_state=options.seed)
    models: dict[str, StreamLearner] = {name: model}
    traces = {name: _stream_run(model, split, options.progress)}
    for method in compare:
        models[method] = _build(method, learner, budget, split, options.seed, classes)
        traces[method] = _stream_run(models[method], split, options.progress)
    X_test, y_test = split.part("test")
    preds = {m: models[m].predict(X_test) for m in models} if split.n_test else {}
    if split.n_test:
        preds.update({r: _reference(r, options, split, classes) for r in REFERENCES})
    labels = {m: tr.n_acquired for m, tr in traces.items()}
    if split.n_test:  # the references only exist to be scored
        labels.update({"Initial": 0, "All Training Data": split.n_stream})
    return UserRun(
        options=options, table=table, split=split, budget=budget, name=name, model=model,
        traces=traces, scores={m: scores(y_test, p, positive=positive) for m, p in preds.items()},
        labels=labels, classes=classes, positive=positive,
        seconds=time.perf_counter() - start,
        notes=_notes(table, split, classes) + _score_notes(split, positive, preds, y_test),
    )


def _build(method: str, learner: str, budget: int, split: Split, seed: int,
           classes: np.ndarray) -> StreamLearner:
    from cbeal.experiments.methods import METHODS

    build = METHODS[method].build
    assert build is not None  # only stream methods are offered for --compare
    model = build(make_learner(learner), budget, split.n_stream, seed)
    return model.set_params(classes=list(classes))


def _notes(table: Table, split: Split, classes: np.ndarray) -> list[str]:
    notes = []
    if np.unique(split.part("initial")[1]).size < 2:
        notes.append("D0 holds a single class, so every model predicts that class until a "
                     "second class is labelled; a larger --initial helps.")
    unseen = sorted(set(np.unique(split.part("test")[1]).tolist()) - set(classes.tolist()))
    if unseen:
        notes.append(f"the test set holds classes never seen in training ({unseen}); no model "
                     "can predict them.")
    if table.ignored:
        notes.append(f"non-numeric columns left out: {', '.join(table.ignored)} (encode them "
                     "as numbers and name them in --features to use them).")
    ids = [name for name, col in zip(table.feature_names, table.X.T, strict=True)
           if _looks_like_an_id(col)]
    if ids:
        notes.append(f"feature(s) {', '.join(ids)} look like a row id or a counter (whole "
                     "numbers, all distinct, in order); leave them out with --drop unless they "
                     "carry meaning.")
    return notes


def _looks_like_an_id(col: np.ndarray) -> bool:
    """Whole, distinct, monotone values: a row number or counter, not a measurement."""
    if col.size < 20 or np.isnan(col).any() or not np.all(np.mod(col, 1) == 0):
        return False
    steps = np.diff(col)
    return bool(np.all(steps > 0) or np.all(steps < 0))


def _score_notes(split: Split, positive: Any, preds: dict[str, np.ndarray],
                 y_test: np.ndarray) -> list[str]:
    """Warnings about the scores: too few positives to score, or suspiciously perfect ones."""
    notes = []
    if split.n_test and positive is not None:
        n_pos = int(np.sum(y_test == positive))
        if n_pos < 5:
            notes.append(f"the test set holds only {n_pos} row(s) of `{positive}`: F1, "
                         "precision and recall rest on too few cases to compare methods; use a "
                         "larger --test-fraction or a time column that spreads the failures.")
    near_perfect = [m for m, p in preds.items()
                    if p.size and np.mean(p == y_test) > 0.995 and np.unique(y_test).size > 1]
    if near_perfect and positive is not None and np.mean(y_test == positive) < 0.5:
        notes.append(f"{', '.join(near_perfect)} classify the test set almost perfectly: check "
                     "that no feature is derived from the label (e.g. failure-mode flags) and "
                     "leave such columns out with --drop.")
    return notes

