"""Only the command line knows command-line flags: no string literal of a module outside
``cbeal/cli`` — messages, report text, docstrings — names one (``--something``).

Library messages name parameters in backticks (`test_fraction`); the command line turns
them into its flags (:func:`cbeal.cli._common.as_flags`), so the same message reads right
in Python and in a terminal.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import cbeal

SRC = Path(cbeal.__file__).parent
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")

# Flags of other programs, which a message may tell the user to run.
FOREIGN = {
    "--force-reinstall",  # pip
    "--no-deps",  # pip
    "--short",  # git rev-parse
    "--show-toplevel",  # git rev-parse
}

# modules still allowed to name a flag (none: keep it that way)
ALLOWED: dict[str, set[str]] = {}


def flags_in(path: Path) -> list[tuple[int, str]]:
    """(line, flag) of every command-line flag in the string literals of `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [(node.lineno, f) for f in FLAG.findall(node.value) if f not in FOREIGN]
    return found


def test_no_library_module_names_a_command_line_flag() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("cli/"):
            continue
        allowed = ALLOWED.get(rel, set())
        offenders += [
            f"{rel}:{line}: {flag}" for line, flag in flags_in(path) if flag not in allowed
        ]
    assert not offenders, "name the parameter in backticks instead:\n" + "\n".join(offenders)


def test_the_allow_list_holds_only_offenders_still_there() -> None:
    for rel, flags in ALLOWED.items():
        present = {flag for _, flag in flags_in(SRC / rel)}
        assert flags <= present, f"{rel} no longer names {sorted(flags - present)}: drop them"


def test_the_scan_finds_flags_in_messages_and_f_strings(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        'def f(k):\n    raise ValueError(f"use --refit-every {k} or a smaller `budget`")\n'
        'X = "pip install --no-deps -e ."  # another program\'s flag\n'
        'Y = "| --- |  −0.5 -- a dash"\n'
    )
    assert flags_in(module) == [(2, "--refit-every")]
