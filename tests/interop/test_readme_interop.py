"""The README's river and scikit-activeml loops run as printed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cbeal.core import RATE_BURST

README = Path(__file__).resolve().parents[2] / "README.md"


def block(first_line: str) -> str:
    code = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    [found] = [c for c in code if c.startswith(first_line)]
    return found


def run(code: str, tmp_path: Path) -> str:
    script = tmp_path / "example.py"
    script.write_text(code)
    # one BLAS thread: the examples refit tiny models, where more threads only contend
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_river_loop(tmp_path: Path) -> None:
    pytest.importorskip("river")
    out = run(block("# river_loop.py"), tmp_path)
    m = re.search(r"Accuracy: ([\d.]+)% with (\d+) labels asked of 1000", out)
    assert m is not None, out
    accuracy, asked = float(m.group(1)), int(m.group(2))
    assert accuracy > 75.0 and 10 < asked <= 10 + 0.1 * 990 + RATE_BURST


def test_the_skactiveml_loop(tmp_path: Path) -> None:
    pytest.importorskip("skactiveml")
    out = run(block("# skactiveml_loop.py"), tmp_path)
    m = re.search(r"(\d+) labels, test accuracy ([\d.]+)", out)
    assert m is not None, out
    assert 0 < int(m.group(1)) <= 60 + RATE_BURST and float(m.group(2)) > 0.5
