"""A regression stream's configuration and labels: measured values against a tolerance.

A stream is a *regression* stream when it is created with ``task="regression"``, or when
its ``learner`` is one of the catalog's regressors (``bayesian-ridge``,
``rbf-bayesian-ridge``, ``gaussian-process``). Its labels are measured values (JSON
numbers), its ``tolerance`` is the half-width of the band a prediction must fall in (in
the target's ``unit``), and its preset defaults to ``CBEAL-R``. Everything a classifier's
stream has and a regression stream cannot use (``classes``, ``failure_class``, agents
that read class probabilities) is refused with a message that says what to give instead.
"""

from __future__ import annotations

import math
from typing import Any

from cbeal.catalog import AGENTS, LEARNERS, REGRESSORS, agent_entry, preset_entry, regressor_entry
from cbeal.catalog._names import key

__all__ = [
    "LIMIT",
    "REGRESSION_PRESET",
    "check_classification",
    "check_regression",
    "is_regressor_name",
    "measured_value",
    "regression_agents",
]

#: the largest magnitude a measured value may have: beyond it a value is far more likely
#: an instrument's overflow code (9.9e37 is a common one) or a unit slip than a measurement
LIMIT = 1e12
#: the preset of a regression stream when none is named
REGRESSION_PRESET = "CBEAL-R"


def is_regressor_name(name: str | None) -> bool:
    """Whether `name` is one of the catalog's regressors (any case, as the catalog reads it).

    >>> is_regressor_name("Bayesian-Ridge"), is_regressor_name("logreg"), is_regressor_name(None)
    (True, False, False)
    """
    return isinstance(name, str) and key(name) in {key(n) for n in REGRESSORS}


def regression_agents() -> list[str]:
    """The catalog's agents that work on measured values.

    >>> {"QBCR", "EMCM", "LD1"} <= set(regression_agents())
    True
    """
    return [n for n, e in AGENTS.items() if "regression" in getattr(e.cls, "tasks", ())]


def measured_value(y: Any, unit: str | None = None, what: str = "the label") -> float:
    """`y` as a finite measured value, or a ValueError that says what to send.

    >>> measured_value(12)
    12.0
    >>> measured_value("ok", "mm")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the label 'ok' is not a number: ... the measured value in mm as a JSON number...
    """
    unit_words = f" in {unit}" if unit else ""
    if isinstance(y, bool) or not isinstance(y, (int, float)):
        raise ValueError(
            f"{what} {y!r} is not a number: this regression stream takes the measured "
            f"value{unit_words} as a JSON number, e.g. 12.31"
        )
    value = float(y)
    if not math.isfinite(value) or abs(value) > LIMIT:
        instead = "answer 'cannot tell'" if what == "the label" else "drop that row"
        raise ValueError(
            f"{what} {y!r} is not a plausible measured value (it must be finite and at most "
            f"{LIMIT:.0e} in size): check the instrument's reading and its unit, or {instead}"
        )
    return value


def check_regression(config: Any) -> None:
    """Complete and check a regression stream's configuration (a ValueError says what to do).

    Sets the defaults that depend on the task: the learner ``bayesian-ridge`` and the preset
    ``CBEAL-R``; checks the tolerance, the initial labels and the agents.
    """
    if config.classes is not None:
        raise ValueError(
            "a regression stream has no classes: its labels are measured values; leave "
            "classes out and give the tolerance (and unit) of the measurement"
        )
    if config.failure_class is not None:
        raise ValueError("failure_class belongs to a classification stream; leave it out")
    if config.tolerance is None:
        raise ValueError(
            "a regression stream needs tolerance: the half-width of the band a prediction "
            "must fall in, in the target's unit (e.g. 0.05 with unit 'mm')"
        )
    if not (math.isfinite(config.tolerance) and 0 < config.tolerance <= LIMIT):
        raise ValueError(f"tolerance must be a finite number > 0, got {config.tolerance!r}")
    learner = config.learner or next(iter(REGRESSORS))
    if not is_regressor_name(learner):
        if key(learner) not in {key(n) for n in LEARNERS}:
            regressor_entry(learner)  # an unknown name: the catalog's error suggests one
        raise ValueError(
            f"learner {learner!r} is a classifier; a regression stream needs a regressor with "
            f"a predictive spread: {', '.join(REGRESSORS)}"
        )
    config.learner = regressor_entry(learner).name
    if config.agents is None:
        config.preset = preset_entry(config.preset or REGRESSION_PRESET).name
        if preset_entry(config.preset).family != "regression":
            raise ValueError(
                f"the preset {config.preset} reads a classifier's class probabilities; a "
                f"regression stream uses {REGRESSION_PRESET} (the default: leave preset out) "
                f"or agents among {', '.join(regression_agents())}"
            )
    else:
        bad = [a for a in config.agents if agent_entry(a).name not in regression_agents()]
        if bad:
            raise ValueError(
                f"agent(s) {', '.join(bad)} read a classifier's class probabilities; a "
                f"regression stream takes agents among {', '.join(regression_agents())}"
            )
    if config.initial is not None:
        for i, y in enumerate(config.initial.y):
            measured_value(y, config.unit, what=f"initial.y[{i}]")


def check_classification(config: Any) -> None:
    """The fields a classification stream must have, and those it must not."""
    if config.classes is None:
        raise ValueError(
            "classes is required: every label a part can get, e.g. ['ok', 'fail'] (for "
            "measured values create a regression stream: task 'regression' and a tolerance)"
        )
    if config.tolerance is not None or config.unit is not None:
        raise ValueError(
            "tolerance and unit belong to a regression stream (measured values): give "
            "task 'regression' or a regressor as learner, or leave them out"
        )
    if is_regressor_name(config.learner):
        raise ValueError(
            f"learner {config.learner!r} is a regressor; a classification stream takes a "
            "classifier (e.g. logreg), or create a regression stream (task 'regression')"
        )
    if config.preset is not None and preset_entry(config.preset).family == "regression":
        raise ValueError(
            f"the preset {preset_entry(config.preset).name} is for measured values; for "
            "classes leave preset out (the recommended one) or choose a classification preset"
        )
