"""Reports: a small generic document model, rendered to Markdown or self-contained HTML
(:mod:`.document`), a report folder that is never left half-written (:mod:`.folder`), and
where a result came from (:mod:`.provenance`: cbeal's version and commit, Python, time).

The report of ``cbeal run`` is built on them in :mod:`cbeal.reports.tablerun`; it renders
numbers the run step computed and computes none.
"""

from cbeal.reports.document import Block, markdown_table, to_html, to_markdown
from cbeal.reports.folder import Staging, check_out

__all__ = ["Block", "Staging", "check_out", "markdown_table", "to_html", "to_markdown"]
