"""The report of ``cbeal run``: it renders a :class:`cbeal.tablerun.UserRun`, whose numbers
the run step computed (:mod:`cbeal.tablerun.results`), with the generic pieces of
:mod:`cbeal.reports`. The computation is :mod:`cbeal.tablerun`; this layer holds its words.

``OUT/report.md`` (or a self-contained ``report.html``; :mod:`.text`) explains in plain words
what was run on which rows, under which budget, and how the methods scored;
``figures/run.png`` shows the CbeAL run over the stream (against time when the file has a
time column) and ``figures/scores.png`` the test scores; ``trace.csv`` has one row per
stream sample; ``summary.json`` (:mod:`.summary`) the arguments, data checksum, split,
budget, the scores of every seed and the provenance; ``model.cbeal`` the final model.
Everything is written by :func:`write_report` (:mod:`.writer`), all or nothing.
"""

from cbeal.runreport.summary import budget_line, console_lines, summary
from cbeal.runreport.writer import write_report

__all__ = ["budget_line", "console_lines", "summary", "write_report"]
