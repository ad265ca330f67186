"""``cbeal run``: CbeAL on a user's own labelled table, with the file's labels as the expert.

:func:`prepare` validates the options and the file, splits and preprocesses the rows and
estimates the work; :func:`execute` runs CbeAL, the comparison methods and the references
(for every seed) and scores them; :func:`run` does both. The report is written by
:mod:`cbeal.reports.tablerun`.
"""

from cbeal.tablerun.estimate import Estimate
from cbeal.tablerun.options import RunOptions, run_budget
from cbeal.tablerun.run import Plan, SeedRun, UserRun, execute, prepare, run
from cbeal.tablerun.split import Split, make_split

__all__ = [
    "Estimate",
    "Plan",
    "RunOptions",
    "SeedRun",
    "Split",
    "UserRun",
    "execute",
    "make_split",
    "prepare",
    "run",
    "run_budget",
]
