"""Each setting of the service and each name rule is written in one place (issue 29, design
problem 2): the CLI's flags and the engine read the defaults of ``Settings``; stream names,
token names and roles come from ``service/names.py``."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import pytest

import cbeal
from cbeal.cli import build_parser

pytest.importorskip("fastapi")

from cbeal.service.engine.background import Background
from cbeal.service.engine.holds import TaskBase
from cbeal.service.engine.streams import Streams
from cbeal.service.names import ROLES, STREAM_NAME, TOKEN_NAME
from cbeal.service.settings import Settings, default_of

SRC = Path(cbeal.__file__).parent


def test_the_serve_flags_take_their_defaults_from_the_settings() -> None:
    args = build_parser().parse_args(["serve"])
    fixed = [f for f in dataclasses.fields(Settings) if f.default is not dataclasses.MISSING]
    checked = 0
    for f in fixed:
        if hasattr(args, f.name):
            assert getattr(args, f.name) == f.default, f.name
            checked += 1
    assert checked >= 8  # undo, leases, checkpoints, retrain, sqlite sync, ...
    assert default_of("checkpoint_every") == args.checkpoint_every == 5000


def test_the_engine_declares_no_second_default_of_a_setting() -> None:
    names = {f.name for f in dataclasses.fields(Settings)}
    names |= {"lease_seconds", "undo_seconds"}  # TaskBase's lease is task_lease_seconds
    for cls in (Background, TaskBase, Streams):
        for p in inspect.signature(cls.__init__).parameters.values():
            if p.name in names:
                assert p.default is inspect.Parameter.empty, f"{cls.__name__}({p.name}=...)"


def test_names_and_roles_are_written_once() -> None:
    # the patterns' bodies and the role list, as they would be spelt in a second copy
    copies = {
        STREAM_NAME: re.escape("[A-Za-z0-9][A-Za-z0-9_.-]{0,99}"),
        TOKEN_NAME: re.escape("[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}"),
        "roles": r"""["']ingest["'],\s*["']annotate["'],\s*["']review["'],\s*["']admin["']""",
    }
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).as_posix() == "service/names.py":
            continue
        text = path.read_text()
        for what, pattern in copies.items():
            assert not re.search(pattern, text), f"{path.relative_to(SRC)} writes {what} again"
    assert ROLES == ("ingest", "annotate", "review", "admin")


def test_a_bad_mode_is_refused_by_the_settings_themselves() -> None:
    with pytest.raises(ValueError, match="retrain must be one of background, sync, off"):
        Settings(retrain="nightly")
    with pytest.raises(ValueError, match="sqlite_sync must be one of NORMAL, FULL"):
        Settings(sqlite_sync="OFF")
