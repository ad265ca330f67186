"""Reports: a small document model (Markdown or self-contained HTML) and the report folder of
``cbeal run``."""

from cbeal.reports.document import Block, to_html, to_markdown

__all__ = ["Block", "to_html", "to_markdown"]
