"""``cbeal run``: CbeAL on a user's own labelled table, with the file's labels as the expert.

:func:`run` validates the options and the file, splits and preprocesses the rows, runs
CbeAL, the comparison methods and the references, and scores them; the report is written
by :mod:`cbeal.reports.tablerun`.
"""

from cbeal.tablerun.options import RunOptions, parse_budget
from cbeal.tablerun.run import UserRun, run
from cbeal.tablerun.split import Split, make_split

__all__ = ["RunOptions", "Split", "UserRun", "make_split", "parse_budget", "run"]
