"""The command line's help: every option explained, defaults shown, plain text only."""

from __future__ import annotations

import argparse
import re

import pytest

from cbeal.cli import build_parser, main


def _subcommands(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every (nested) subcommand, e.g. ("run",) and ("token", "create")."""
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[(*prefix, name)] = sub
                found.update(_subcommands(sub, (*prefix, name)))
    return found


SUBCOMMANDS = _subcommands(build_parser())
COMMANDS = [" ".join(k) for k in SUBCOMMANDS]


def subparser(name: str) -> argparse.ArgumentParser:
    return SUBCOMMANDS[tuple(name.split())]


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_is_plain_text(command: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main([*command.split(), "--help"] if command else ["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: cbeal")
    for markup in ("``", "%%", ":func:", ":class:", ":mod:", "§", "spec"):
        assert markup not in text, (markup, text)
    assert not re.search(r"%\(\w+\)", text)  # every format field was filled in


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_has_help_and_a_visible_default(command: str) -> None:
    sub = subparser(command)
    text = " ".join(sub.format_help().split())  # a default may wrap onto the next line
    for action in sub._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        assert action.help, f"{command} {action.option_strings} has no help"
        shown = action.default not in (None, argparse.SUPPRESS)
        if shown and not action.required:
            assert f"default: {action.default}" in text, (command, action.option_strings)


def test_run_help_names_the_safety_options(capsys: pytest.CaptureFixture[str]) -> None:
    text = subparser("run").format_help()
    for flag in ("--refit-every", "--repeats", "--id", "--initial", "--progress"):
        assert flag in text
    assert "default: 10%" in text and "default: logreg-l1" in text
