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
