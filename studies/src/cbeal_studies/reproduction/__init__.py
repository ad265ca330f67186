"""Reproduction of the paper's simulation study: scenarios, methods, runner, tables."""

from cbeal_studies.reproduction.methods import METHODS, Method
from cbeal_studies.reproduction.runner import RunConfig, collect, run_grid, run_task
from cbeal_studies.reproduction.scenarios import (
    GENERATORS,
    SCENARIOS,
    Generator,
    Scenario,
    scenario,
)

__all__ = [
    "GENERATORS",
    "METHODS",
    "SCENARIOS",
    "Generator",
    "Method",
    "RunConfig",
    "Scenario",
    "collect",
    "run_grid",
    "run_task",
    "scenario",
]
