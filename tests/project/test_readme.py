"""The README's examples run as printed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


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


# ---------------------------------------------------------------------- the shell blocks
ROOT = README.parent
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]


def shell_blocks(path: Path) -> list[str]:
    """The ```bash blocks of a page, continuation lines joined, comments kept."""
    found = re.findall(r"^ *```bash\n(.*?)^ *```", path.read_text(), flags=re.S | re.M)
    return [re.sub(r"\\\n\s*", " ", b) for b in found]


def commands(block: str) -> list[str]:
    """The commands of a block: comments dropped, `a && b` split, `$(cbeal …)` taken out."""
    out: list[str] = []
    for line in block.splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        if not line or line.startswith("#"):
            continue
        out.extend(re.findall(r"\$\(([^)]*)\)", line))
        out.extend(part.strip().rstrip("&").strip() for part in line.split("&&"))
    return out


def test_the_first_block_activates_the_environment_every_other_block_uses() -> None:
    first = shell_blocks(README)[0]
    assert commands(first)[:2] == ["python3 -m venv .venv", ". .venv/bin/activate"]
    for path in DOCS:
        for block in shell_blocks(path) if path != README else shell_blocks(path)[1:]:
            # activated once: `pip`, `python` and `cbeal` are the environment's, never a path
            assert ".venv/bin/" not in block, f"{path.name}: {block}"


def test_every_pip_line_installs_this_clone_with_extras_that_exist() -> None:
    text = (ROOT / "pyproject.toml").read_text()  # (tomllib is 3.11+; cbeal runs on 3.10)
    block = text.split("[project.optional-dependencies]")[1].split("\n[")[0]
    extras = set(re.findall(r"^([a-z]+) = ", block, flags=re.M))
    assert {"fast", "opcua", "service", "all", "dev"} <= extras
    prose = [README, *DOCS, ROOT / "benchmarks" / "README.md"]
    lines = [c for p in prose for b in shell_blocks(p) for c in commands(b) if "pip install" in c]
    lines += [m for p in prose for m in re.findall(r"`(pip install [^`]*)`", p.read_text())]
    assert len(lines) >= 8
    for line in lines:
        # `pip install "cbeal[fast]"` fails from a clone: cbeal is not on PyPI
        assert "cbeal[" not in line, line
        # cbeal with its extras, the studies beside it (studies/: a package of their own), or both
        spec = re.fullmatch(
            r"pip install (?:-q )?(?:-e (\.|\"\.\[([a-z,]+)\]\") ?)?(-e studies)?", line
        )
        assert spec and (spec.group(1) or spec.group(3)), f"not an editable install: {line}"
        for extra in (spec.group(2) or "").split(",") if spec.group(2) else []:
            assert extra in extras, f"{line}: no extra {extra!r} in pyproject.toml"


def test_every_cbeal_command_in_the_docs_parses_as_written() -> None:
    import shlex

    from cbeal.cli import build_parser

    parser = build_parser()
    seen = 0
    for path in DOCS:
        for block in shell_blocks(path):
            for command in commands(block):
                if not command.startswith("cbeal ") or "..." in command:
                    continue  # `cbeal opcua ... --security`: a fragment of the command above
                argv = shlex.split(command.split(">")[0])[1:]
                try:
                    parser.parse_args(argv)
                except SystemExit as exc:
                    raise AssertionError(f"{path.name}: {command}") from exc
                seen += 1
    assert seen >= 25


def test_the_service_block_runs_as_printed(tmp_path: Path) -> None:
    """The README's service block, line for line, in the activated environment of this
    interpreter, in an empty folder (`pip install` aside: CI's install covers it)."""
    import os
    import socket
    import textwrap

    import pytest

    pytest.importorskip("fastapi")
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "cbeal").exists():
        pytest.skip("cbeal is not installed in this interpreter's environment")
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", 8000)) == 0:
            pytest.skip("port 8000 is taken: the block's `cbeal serve` listens there")
    [block] = [b for b in shell_blocks(README) if "cbeal serve &" in b]
    lines = block.splitlines()
    assert lines[0] == 'pip install -e ".[service]"'
    script = textwrap.dedent(
        """\
        set -euo pipefail
        trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
        {body}
        curl -sf -H "Authorization: Bearer $CBEAL_TOKEN" \\
             http://127.0.0.1:8000/api/v1/streams/secom > status.json
        """
    ).format(body="\n".join(lines[1:]))
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",  # what activating does
        "VIRTUAL_ENV": str(bin_dir.parent),
        "PYTHONPATH": str(ROOT / "src"),
    }
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "replayed 600 rows into 'secom'" in done.stdout, done.stdout
    assert "\r" not in done.stderr  # not a terminal: no progress line rewritten in place
    assert "None" not in done.stdout and "none yet (no label learned" in done.stdout, done.stdout
    assert (tmp_path / "cbeal-service.db").exists() and (tmp_path / "secom.csv").exists()
    import json

    status = json.loads((tmp_path / "status.json").read_text())
    assert status["name"] == "secom", status
