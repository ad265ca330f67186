"""Pytest set-up shared by the test suite and the doctests in src/."""

import importlib.util

collect_ignore = ["src/cbeal/__main__.py", "src/cbeal/service/migrations"]
if importlib.util.find_spec("skactiveml") is None:  # optional: pip install cbeal[skactiveml]
    collect_ignore += [
        "studies/src/cbeal_studies/reproduction/skactiveml_check.py",
        "src/cbeal/adapters/skactiveml_agent.py",
    ]
if importlib.util.find_spec("river") is None:  # optional: pip install cbeal[river]
    collect_ignore += ["src/cbeal/adapters/river.py", "src/cbeal/adapters/river_learner.py"]
if importlib.util.find_spec("fastapi") is None:  # optional: pip install cbeal[service]
    collect_ignore.append("src/cbeal/service")
