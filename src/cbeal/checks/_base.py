"""What a check is, how its failure reads, and the data the checks stream."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from cbeal.core.agent import Context
from cbeal.core.regression import RegressionContext

__all__ = ["ConventionError", "check", "contexts", "features", "instances"]

CheckFn = Callable[[Any], None]


class ConventionError(AssertionError):
    """A component breaks one of cbeal's conventions; the message names which and why."""


def check(convention: str) -> Callable[[CheckFn], CheckFn]:
    """Mark a function as the check of `convention` (a short sentence saying the rule).

    Whatever goes wrong inside (a failed assertion or any exception) is reported as a
    :class:`ConventionError` naming the component and the convention.
    """

    def wrap(fn: CheckFn) -> CheckFn:
        @functools.wraps(fn)
        def run(obj: Any) -> None:
            try:
                fn(obj)
            except ConventionError:
                raise
            except Exception as exc:
                detail = str(exc) or type(exc).__name__
                if not isinstance(exc, AssertionError):
                    detail = f"{type(exc).__name__}: {detail}"
                raise ConventionError(
                    f"{type(obj).__name__} breaks the convention '{convention}': {detail}"
                ) from exc

        run.convention = convention  # type: ignore[attr-defined]
        return run

    return wrap


def instances(cls: type) -> list[Any]:
    """One instance per parameter set the class supplies with ``_unit_test_params``."""
    return [cls(**params) for params in cls._unit_test_params()]  # type: ignore[attr-defined]


def features(n: int = 200, p: int = 4, seed: int = 0) -> np.ndarray:
    """A fixed stream of inputs: two Gaussian clusters, so distances vary."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X[rng.random(n) < 0.2] += 3.0
    return X


def contexts(X: np.ndarray, seed: int = 0, *, regression: bool = False) -> list[Context]:
    """What a learner would show the agents: each row with a two-class prediction (or a
    regressor's prediction and spread, with a tolerance of 0.3)."""
    rng = np.random.default_rng(seed)
    if regression:
        mean = np.asarray(rng.normal(size=X.shape[0])).tolist()
        std = np.asarray(rng.uniform(0.05, 1.0, size=X.shape[0])).tolist()
        return [RegressionContext(x, m, s, 0.3) for x, m, s in zip(X, mean, std, strict=True)]
    p1 = np.asarray(rng.uniform(0.5, 1.0, size=X.shape[0])).tolist()
    return [Context(x, np.array([p, 1.0 - p])) for x, p in zip(X, p1, strict=True)]
