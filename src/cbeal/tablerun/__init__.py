"""``cbeal run``: CbeAL on a user's own labelled table, with the file's labels as the expert.

:func:`prepare` validates the options and the file, splits and preprocesses the rows and
estimates the work; :func:`execute` runs CbeAL, the comparison methods and the references
(for every seed), scores them and computes every number the report shows
(:class:`RunStats`, :mod:`cbeal.tablerun.results`); :func:`run` does both. The report
(:mod:`cbeal.runreport`) only renders the result.
"""

from cbeal.tablerun.estimate import Estimate
from cbeal.tablerun.options import RunOptions, run_budget
from cbeal.tablerun.results import BudgetUse, Comparison, DataStats, RunStats, Score
from cbeal.tablerun.run import Plan, SeedRun, UserRun, execute, prepare, run
from cbeal.tablerun.split import Split, make_split

__all__ = [
    "BudgetUse",
    "Comparison",
    "DataStats",
    "Estimate",
    "Plan",
    "RunOptions",
    "RunStats",
    "Score",
    "SeedRun",
    "Split",
    "UserRun",
    "execute",
    "make_split",
    "prepare",
    "run",
    "run_budget",
]
