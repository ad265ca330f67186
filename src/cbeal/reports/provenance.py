"""Where a result came from: cbeal's version and commit, Python, and when it was made.

Every report and every study's result row records it (:func:`provenance`).
"""

from __future__ import annotations

import functools
import platform
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cbeal._version import __version__

__all__ = ["git_sha", "provenance"]

_PACKAGE = Path(__file__).resolve().parents[1]  # src/cbeal: this module is in reports/


@functools.lru_cache(maxsize=1)
def git_sha() -> str | None:
    """The commit of cbeal's own source checkout, or None for an installed package.

    A cbeal installed inside some other git repository (a virtual environment in a
    project folder) must not record that repository's commit: the checkout counts only
    if it is the one this package was imported from (``<top>/src/cbeal``).
    """
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            check=True,
            cwd=_PACKAGE,
        ).stdout.strip()
        if Path(top).resolve() / "src" / "cbeal" != _PACKAGE:
            return None
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=_PACKAGE,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def provenance() -> dict[str, Any]:
    """Fields every result row and report records."""
    return {
        "cbeal_version": __version__,
        "git_sha": git_sha(),
        "python": platform.python_version(),
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
