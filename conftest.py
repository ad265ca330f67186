"""Pytest set-up shared by the test suite and the doctests in src/."""

import importlib.util

collect_ignore = ["src/cbeal/__main__.py"]
if importlib.util.find_spec("skactiveml") is None:  # optional: pip install cbeal[bench]
    collect_ignore.append("src/cbeal/experiments/skactiveml_check.py")
