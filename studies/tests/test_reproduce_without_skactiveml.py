"""The reproduction runs without the optional scikit-activeml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_reproduce_runs_without_scikit_activeml(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['skactiveml'] = None\n"  # as if cbeal[bench] were not installed
        "from cbeal_studies.reproduction import METHODS\n"
        "assert not [m for m in METHODS if 'skactiveml' in m], list(METHODS)\n"
        "import cbeal_studies.reproduction.profiles as p\n"
        "p.PROFILES['quick'] = p.Profile('quick', ('S01',), 1, ('v1',))\n"
        "p.METHODS = {k: v for k, v in p.METHODS.items() if k in ('CBEAL-6', 'RS', 'LD1', "
        "'RAL1', 'Initial', 'All Training Data')}\n"
        "from cbeal.cli import main\n"
        f"sys.exit(main(['reproduce', '--out', {str(tmp_path)!r}, '--learner', 'logreg',"
        " '--jobs', '1', '--no-progress']))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "tables_v1_logreg" / "tables.md").stat().st_size > 0
    assert "CBEAL-6 > RS: " in out.stdout
