"""The command line starts at once and stops in one line: ``cbeal --version`` and ``--help``
load none of the numeric stack (so they cost a few hundredths of a second of CPU, not the
1.25 s that importing scikit-learn, pandas and scipy took), and Ctrl-C at any moment of
``cbeal run`` — loading, parsing, reading, computing, writing — says one line and exits 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cbeal.catalog import RECOMMENDED

from .test_userrun import line_frame, write

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "sklearn", "pandas", "scipy", "matplotlib", "pyarrow", "fastapi")


def _env() -> dict[str, str]:
    # the checkout's cbeal and its studies (studies/src: a sibling distribution)
    paths = [str(ROOT / "src"), str(ROOT / "studies" / "src")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _loaded_by(code: str) -> list[str]:
    probe = (
        "import sys\n"
        f"{code}\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=_env(), check=True
    )
    return list(eval(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "code",
    [
        "import cbeal",
        "import cbeal.cli",
        "from cbeal.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass",
        "from cbeal.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass",
    ],
    ids=["import-cbeal", "import-cli", "version", "help"],
)
def test_start_up_loads_no_numeric_library(code: str) -> None:
    assert _loaded_by(code) == []


def test_a_commands_help_still_lists_the_catalogs_names() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cbeal", "run", "--help"], capture_output=True, text=True, env=_env()
    )
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert f"the recommended {RECOMMENDED}" in text and "CBEAL-6" in text and "logreg-l1" in text
    assert "<catalog:" not in text
    # the catalog's names load without scikit-learn (its agents that need it load on use)
    code = (
        "from cbeal.cli import main\ntry:\n    main(['run', '--help'])\nexcept SystemExit:\n    0"
    )
    loaded = _loaded_by(code)
    assert "sklearn" not in loaded and "pandas" not in loaded, loaded
    rep = subprocess.run(
        [sys.executable, "-m", "cbeal", "reproduce", "--help"],
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert "one of loky, threading, dask, ray" in " ".join(rep.stdout.split())


def test_an_unknown_backend_is_refused_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cbeal", "reproduce", "--backend", "nosuch"],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "cbeal: error: unknown backend 'nosuch'; choose one of loky, threading, dask, ray"
    )
    assert not any(tmp_path.iterdir())  # refused before anything was written


@pytest.mark.parametrize(
    "command", [["reproduce"], ["casestudy", "--dataset", "secom"], ["benchmark"]]
)
def test_a_study_command_without_the_studies_says_how_to_install_them(
    command: list[str], tmp_path: Path
) -> None:
    code = (
        "import sys; sys.modules['cbeal_studies'] = None\n"  # as if studies/ were not installed
        f"from cbeal.cli import main\nsys.exit(main({command!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(), cwd=tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"cbeal: error: `cbeal {command[0]}` runs a study, and the studies are a separate "
        "package in the cbeal repository: from the cbeal folder, `pip install -e studies`"
    )
    assert not any(tmp_path.iterdir())
    helped = subprocess.run(
        [sys.executable, "-c", code.replace(f"{command!r}", f"{[command[0], '--help']!r}")],
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert helped.returncode == 0 and "Traceback" not in helped.stderr


@pytest.fixture(scope="module")
def line(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # long enough (about 7 s on an idle 2-core machine) that the last moment falls inside the
    # run: a Ctrl-C during the interpreter's exit, after the report is written, is not caught
    return write(line_frame(n=1500, seed=3), tmp_path_factory.mktemp("ctrl-c") / "line.csv")


# seconds after the start: while Python and the command line load, while scikit-learn and
# pandas load, while the file is read, while the methods run
MOMENTS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.5, 2.5)


def _python_handles_sigint(pid: int, timeout: float = 20.0) -> None:
    """Wait until the interpreter of `pid` has installed its SIGINT handler (on a busy
    machine a signal sent earlier kills the process before any Python runs)."""
    bit = 1 << (signal.SIGINT - 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status").read_text()
        caught = next(ln for ln in status.splitlines() if ln.startswith("SigCgt:"))
        if int(caught.split()[1], 16) & bit:
            return
        time.sleep(0.001)
    raise AssertionError("the interpreter never installed its SIGINT handler")


@pytest.mark.parametrize("after", MOMENTS)
def test_ctrl_c_at_any_moment_of_a_run_says_one_line(
    line: Path, tmp_path: Path, after: float
) -> None:
    command = [sys.executable, "-m", "cbeal", "run", "--data", str(line), "--label", "quality"]
    command += ["--time", "when", "--compare", "RS,ENT", "--repeats", "5", "--out", "rep"]
    child = subprocess.Popen(
        command, cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    _python_handles_sigint(child.pid)  # before that, no program can answer Ctrl-C
    time.sleep(after)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=120)
    said = err.decode().strip().splitlines()
    assert child.returncode == 130, err.decode()
    assert len(said) == 1 and said[0].startswith("cbeal: interrupted"), err.decode()
    assert not (tmp_path / "rep").exists()  # nothing half-written
