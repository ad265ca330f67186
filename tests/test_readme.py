"""The README's examples run as printed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks(first_line: str) -> list[str]:
    code = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    return [c for c in code if c.startswith(first_line)]


def test_decide_today_label_tomorrow_in_two_processes(tmp_path: Path) -> None:
    [decide] = blocks("# decide.py")
    [label] = blocks("# label.py")
    (tmp_path / "decide.py").write_text(decide)
    (tmp_path / "label.py").write_text(label)
    first = subprocess.run(
        [sys.executable, "decide.py"], cwd=tmp_path, capture_output=True, text=True
    )
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "line3.cbeal").exists() and "parts to label" in first.stdout
    second = subprocess.run(
        [sys.executable, "label.py"], cwd=tmp_path, capture_output=True, text=True
    )
    assert second.returncode == 0, second.stderr
    n = int(re.search(r"(\d+) of 400 parts", first.stdout).group(1))  # type: ignore[union-attr]
    assert f"learned {n} labels, 0 pending" in second.stdout


def test_the_regression_example_runs_as_printed(tmp_path: Path) -> None:
    [code] = blocks("# regression.py")
    (tmp_path / "regression.py").write_text(code)
    done = subprocess.run(
        [sys.executable, "regression.py"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert re.fullmatch(r"[\d.]+ Nm, P\(within ±2\.5 Nm\) = 0\.\d\d", first), first
    labels, scores = second.split(" ", 1)
    assert 0 < int(labels) <= 118  # a paced 10 % of the 1,179 stream parts
    rmse = float(re.search(r"'rmse': ([\d.]+)", scores).group(1))  # type: ignore[union-attr]
    assert rmse < 8.0  # torque's spread is about 10 Nm: the model learned something
