"""The pieces every report shares, whatever it reports: a small document model, rendered
to Markdown or self-contained HTML (:mod:`.document`), a report folder that is never left
half-written (:mod:`.folder`), and where a result came from (:mod:`.provenance`: cbeal's
version and commit, Python, time).

``cbeal run``'s report is built on them in :mod:`cbeal.runreport`, the studies' tables in
``cbeal_studies``; nothing here knows what a run or a study is.
"""

from cbeal.reports.document import Block, markdown_table, to_html, to_markdown
from cbeal.reports.folder import Staging, check_out

__all__ = ["Block", "Staging", "check_out", "markdown_table", "to_html", "to_markdown"]
