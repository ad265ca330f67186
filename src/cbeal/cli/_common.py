"""What every command shares: the help format, the progress flag, names from the catalog,
secrets from the environment, and library messages turned into flag names."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

__all__ = [
    "HelpFormatter",
    "RetryNotice",
    "add_progress",
    "add_url",
    "as_flags",
    "catalog_choices",
    "say_retry",
    "secret",
    "subparser_of",
]


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, except where there is none to show (None), and the
    catalog's names where a help text asks for them (:func:`catalog_choices`)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is argparse.SUPPRESS:
            text = action.help
        else:
            text = super()._get_help_string(action)
        return None if text is None else _CHOICES.sub(lambda m: _names(m.group(1)), text)


def add_progress(parser: argparse.ArgumentParser, default: bool | None) -> None:
    auto = " (default: shown on a terminal when the run takes more than a few seconds)"
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=default,
        help="show progress" + (auto if default is None else ""),
    )


_CHOICES = re.compile(r"<catalog:(\w+)>")


def catalog_choices(what: str) -> str:
    """A place in a help text for the catalog's names of `what` (presets, agents, learners,
    regressors, or the recommended preset), filled in only when the help is shown: the
    catalog needs scikit-learn, which `cbeal --version` and every other command's start
    should not pay for."""
    return f"<catalog:{what}>"


def _names(what: str) -> str:
    from cbeal import catalog

    if what == "backends":
        try:  # the studies are a separate package (studies/): their help still shows
            from cbeal_studies.reproduction.tasks import BACKENDS
        except ModuleNotFoundError:
            return "loky, threading, dask, ray (once the studies are installed)"
        return ", ".join(BACKENDS)
    if what == "recommended":
        return catalog.RECOMMENDED
    if what == "budget":  # argparse formats the help with %: a share's % is written %%
        return catalog.DEFAULT_BUDGET.replace("%", "%%")
    if what == "presets":
        return ", ".join(f"{n} ({e.label})" for n, e in catalog.PRESETS.items())
    if what == "agents":
        return ", ".join(catalog.AGENTS)
    if what == "regressors":
        return ", ".join(catalog.REGRESSORS)
    return ", ".join(catalog.LEARNERS)


def secret(variable: str) -> str | None:
    """A secret from the environment: never from the command line, where `ps` shows it."""
    value = os.environ.get(variable)
    return value.strip() if value and value.strip() else None


def as_flags(message: str, sub: argparse.ArgumentParser | None) -> str:
    """Library errors name parameters (`test_fraction`); on the command line say --test-fraction."""
    if sub is None:
        return message
    flags = {
        o.lstrip("-").replace("-", "_"): o
        for a in sub._actions
        for o in a.option_strings
        if o.startswith("--")
    }

    def repl(match: re.Match[str]) -> str:
        return flags.get(match.group(1), match.group(0))

    return re.sub(r"`([a-z_]+)`", repl, message)


def subparser_of(parser: argparse.ArgumentParser, command: str) -> Any:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(command)
    return None


@contextlib.contextmanager
def loading_quietly() -> Iterator[None]:
    """Hold a Ctrl-C while compiled libraries load (numpy, pandas, scikit-learn): inside a C
    extension's import an interrupt can surface as an ImportError, or be swallowed by a
    library's optional import. Held here, it arrives a moment later, in cbeal's own code,
    and ends the command with its one line."""
    holds = hasattr(signal, "pthread_sigmask") and threading.current_thread() is (
        threading.main_thread()
    )
    if not holds:
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def add_url(parser: argparse.ArgumentParser) -> None:
    """The --url flag of every client of the service (``cbeal serve``'s own address)."""
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="service address")


class RetryNotice:
    """Tell the operator once that the service is away and how long the bridge waits, then
    one short line per retry (a new line first only after a progress line on a terminal).

    >>> import contextlib, io
    >>> say, err = RetryNotice(30.0), io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     say(OSError("cannot reach http://x"), 1.0); say(OSError("cannot reach http://x"), 2.0)
    >>> print(err.getvalue(), end="")
    cbeal: cannot reach http://x; waiting for it up to 30 s, trying again with growing pauses
    cbeal: still waiting; next try in 2.0 s
    """

    def __init__(self, wait: float | None = None) -> None:
        self.wait = wait
        self.told = False

    def __call__(self, exc: Exception, pause: float) -> None:
        lead = "\n" if sys.stderr.isatty() else ""
        if not self.told:
            self.told = True
            limit = f" up to {self.wait:g} s" if self.wait else ""
            text = f"{exc}; waiting for it{limit}, trying again with growing pauses"
        else:
            text = f"still waiting; next try in {pause:.1f} s"
        print(f"{lead}cbeal: {text}", file=sys.stderr, flush=True)


def say_retry(exc: Exception, pause: float) -> None:
    """One retry notice of a client with no wait limit (see :class:`RetryNotice`)."""
    RetryNotice()(exc, pause)
