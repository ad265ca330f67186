"""Pytest set-up shared by the test suite and the doctests in src/."""

collect_ignore = ["src/cbeal/__main__.py"]
