"""Conventions every component follows (the public suite :mod:`cbeal.checks`, run over every
component, the adapters' included) and the package layering."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cbeal
import cbeal.baselines
import cbeal.core
from cbeal import checks
from cbeal.core import Agent, Params

SRC = Path(cbeal.__file__).parent


def _concrete(base: type) -> list[type]:
    found = {}
    for mod in _modules():
        for name in mod.__all__:
            obj = getattr(mod, name)
            if (
                inspect.isclass(obj)
                and issubclass(obj, base)
                and not inspect.isabstract(obj)
                and "__init__" in vars(obj)  # a concrete component, not a shared base
            ):
                found[obj.__name__] = obj
    return [found[k] for k in sorted(found)]


def _modules() -> list[Any]:
    mods = [cbeal, cbeal.core, cbeal.baselines]
    for name, needs in (
        ("cbeal.adapters.skactiveml", "skactiveml"),
        ("cbeal.adapters.river", "river"),
    ):
        if importlib.util.find_spec(needs) is not None:  # the optional library is installed
            mods.append(importlib.import_module(name))
    return mods


AGENTS = _concrete(Agent)
COMPONENTS = _concrete(Params)
CASES = [
    (obj, run)
    for cls in COMPONENTS
    for obj in checks.instances(cls)
    for run in checks.yield_checks(obj)
]


def test_every_component_is_covered() -> None:
    assert {c.__name__ for c in AGENTS} >= {
        "LowDensityAgent",
        "SpaceFillingAgent",
        "ReinforcedAgent",
    }
    assert {c.__name__ for c in COMPONENTS} >= {
        "Exp4P",
        "AgentEnsemble",
        "SingleAgentPolicy",
        "CbeAL",
        "SingleAgentLearner",
        "LabelRate",
    }
    conventions = {run.convention for _, run in CASES}  # type: ignore[attr-defined]
    assert len(conventions) >= 18  # every family of checks ran on some component


@pytest.mark.parametrize(
    ("obj", "run"), CASES, ids=[f"{type(o).__name__}-{r.convention}" for o, r in CASES]
)
def test_convention(obj: Any, run: Any) -> None:
    run(obj)


# ---------------------------------------------------------------- layering
def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_core_imports_only_numpy_and_stdlib() -> None:
    for path in sorted((SRC / "core").glob("*.py")):
        for name in _imports(path):
            top = name.split(".")[0]
            ok = top in sys.stdlib_module_names or top == "numpy" or name.startswith("cbeal.core")
            assert ok, f"{path.name} imports {name}: the core may use numpy and stdlib only"


def test_sklearn_and_plotting_only_in_their_layers() -> None:
    sklearn_ok = {"learners", "streams", "experiments", "adapters"}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        for name in _imports(path):
            top = name.split(".")[0]
            if top == "sklearn":
                assert rel.parts[0] in sklearn_ok, f"{rel} imports {name}"
            if top == "matplotlib":
                assert rel.parts[0] in {"plotting.py", "experiments"}, f"{rel} imports {name}"


# which cbeal subpackages each layer may import (beside itself); None: anything
LAYERS: dict[str, set[str] | None] = {
    "core": set(),
    "baselines": {"core"},
    "datasets": {"core"},
    "learners": {"core"},
    "catalog": {"baselines", "core", "learners"},
    "models": {"baselines", "catalog", "core", "learners", "modelfile"},
    "modelfile": {"core", "learners", "_version"},
    "evaluation": {"core", "learners"},
    "streams": {"core", "learners"},
    "tablerun": {
        "catalog",
        "core",
        "baselines",
        "evaluation",
        "learners",
        "models",
        "simulation",
        "streams",
        "trace",
    },
    "reports": {
        "catalog",
        "core",
        "evaluation",
        "plotting",
        "provenance",
        "tablerun",
        "trace",
        "_version",
    },
    "service": {"bridges", "catalog", "core", "learners", "models", "_version"},
    "bridges": {"core"},
    "adapters": {"core", "models"},
    "checks": {"core"},
    "experiments": None,
}


def test_each_layer_imports_only_the_layers_below_it() -> None:
    for path in sorted(SRC.rglob("*.py")):
        layer = path.relative_to(SRC).parts[0].removesuffix(".py")
        allowed = LAYERS.get(layer)
        if allowed is None:
            continue
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] != "cbeal" or len(parts) == 1:
                continue
            assert parts[1] in allowed | {layer}, f"{path.relative_to(SRC)} imports {name}"


def test_only_the_cli_knows_command_line_flags() -> None:
    for path in sorted(SRC.rglob("*.py")):
        if "cli" not in path.relative_to(SRC).parts:
            assert "argparse" not in _imports(path), path


def test_importing_core_loads_no_heavy_dependency() -> None:
    code = (
        "import sys, cbeal.core;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'sklearn','scipy','pandas','matplotlib','tqdm','pyarrow'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_public_names_resolve_to_the_api_not_modules() -> None:
    # importing every submodule first must not shadow a lazily exported name
    import importlib
    import pkgutil
    import types

    for info in pkgutil.walk_packages(cbeal.__path__, "cbeal."):
        skip = ("__main__", "skactiveml", ".migrations")
        if any(part in info.name for part in skip):
            continue
        if (
            info.name.startswith("cbeal.adapters.river")
            and importlib.util.find_spec("river") is None
        ):
            continue  # the optional library is not installed
        importlib.import_module(info.name)
    for name in cbeal.__all__:
        assert not isinstance(getattr(cbeal, name), types.ModuleType), name
