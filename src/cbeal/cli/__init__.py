"""The command line, the only package that knows flags: one module per command group.

``demo`` (:mod:`.demo`), ``run`` (:mod:`.run`), ``reproduce``/``casestudy``/``benchmark``
(:mod:`.study`), ``serve``/``token`` (:mod:`.serve`), ``replay``/``mqtt``
(:mod:`.bridges`), ``labelstudio`` (:mod:`.labelstudio`), ``opcua`` (:mod:`.opcua`) and
``data`` (:mod:`.data`); each module registers its parsers next to their handlers.
Library errors name parameters in backticks (`test_fraction`), which
:func:`~cbeal.cli._common.as_flags` turns into flags (--test-fraction).
"""

from __future__ import annotations

import signal
import sys

_SIGINT_SEEN = False


def _on_sigint(signum: int, frame: object) -> None:
    """Python's own Ctrl-C, remembered: an interrupt that lands inside a C extension's import
    (numpy's, for one) can surface as another error, which must still say one line."""
    global _SIGINT_SEEN
    _SIGINT_SEEN = True
    raise KeyboardInterrupt


if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when embedded
    signal.signal(signal.SIGINT, _on_sigint)

try:  # Ctrl-C while the command line loads: one line too (the imports are light: no numpy)
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from cbeal._version import __version__
    from cbeal.cli import bridges, data, demo, opcua, run, serve, study
    from cbeal.cli._common import HelpFormatter, as_flags, subparser_of
except KeyboardInterrupt:  # pragma: no cover - a race with the user's finger
    print("\ncbeal: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

__all__ = ["build_parser", "main"]

DESCRIPTION = """cbeal: stream-based active learning for manufacturing (CbeAL).
Commands: 'demo' runs a preset on a built-in simulated stream; 'run' runs CbeAL on your
own CSV/Parquet file and writes a report folder; 'casestudy' runs the paper's case study
on bundled SECOM or AI4I data; 'reproduce' runs the paper's simulation study; 'benchmark'
runs the label-efficiency suite; 'serve' and 'token' run the annotation service, 'replay',
'mqtt', 'opcua' and 'labelstudio' feed it; 'data' exports a bundled dataset."""

GROUPS = (demo, run, study, serve, bridges, opcua, data)
SERVICE_COMMANDS = ("serve", "token", "replay", "mqtt", "labelstudio", "opcua")
EXTRA_OF = {"opcua": "opcua"}  # commands whose own extra is not the service's

INTERRUPTED = {  # what an interruption leaves behind, per command
    "run": "interrupted; nothing was written and any previous report in {out} is unchanged",
    "reproduce": "interrupted; finished runs are kept in {out}: rerun the same command to resume",
    "casestudy": "interrupted; finished replications are kept in {out}: rerun the same "
    "command to resume",
    "demo": "interrupted",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cbeal", description=DESCRIPTION, formatter_class=HelpFormatter
    )
    parser.add_argument(
        "--version", action="version", version=f"cbeal {__version__}", help="print the version"
    )
    sub = parser.add_subparsers(dest="command", required=True, title="commands")
    for group in GROUPS:
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args: argparse.Namespace | None = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        return int(args.func(args))
    except KeyboardInterrupt:  # Ctrl-C: a short message, not a traceback; 130 = 128 + SIGINT
        return _interrupted(args)
    except Exception as exc:
        if _SIGINT_SEEN:  # the interrupt came out of an import as another error
            return _interrupted(args)
        code = None if args is None else _failed(exc, parser, args)
        if code is None:
            raise
        return code


def _interrupted(args: argparse.Namespace | None) -> int:
    """Ctrl-C at any moment — loading, parsing, computing, writing — says one line."""
    command = getattr(args, "command", None)
    note = INTERRUPTED.get(command or "", "interrupted").format(out=getattr(args, "out", ""))
    print(f"\ncbeal: {note}", file=sys.stderr)
    # A Ctrl-C that landed inside an exec() of a string (scipy runs one while it loads)
    # leaves CPython's "unhandled KeyboardInterrupt" flag set, and `python -m cbeal` would
    # then die by SIGINT (exit -2) instead of returning 130. Evaluating a string resets it.
    exec("pass")
    return 130


def _failed(exc: Exception, parser: argparse.ArgumentParser, args: Any) -> int | None:
    """A failure the user can act on, in one line, and its exit code (None: a defect)."""
    from cbeal.bridges.client import ServiceError  # loaded on failure only: it needs numpy

    if isinstance(exc, ServiceError):  # one line that says what to do, never a traceback
        print(f"cbeal: error: {exc}", file=sys.stderr)
        return 1
    if isinstance(exc, (ValueError, TypeError)):
        message = as_flags(str(exc), subparser_of(parser, args.command))
        print(f"cbeal: error: {message}", file=sys.stderr)
        return 2
    if isinstance(exc, ModuleNotFoundError):  # an optional extra is missing: say which
        extra = EXTRA_OF.get(args.command, "service" if args.command in SERVICE_COMMANDS else "all")
        print(
            f"cbeal: error: `cbeal {args.command}` needs {exc.name or exc}, which is not "
            "installed; install the extras from the cbeal folder: "
            f"pip install -e '.[{extra}]'",
            file=sys.stderr,
        )
        return 2
    return None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
