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
import cbeal.learners.committee
import cbeal.learners.regression_committee
from cbeal import checks
from cbeal.core import Agent, Params

SRC = Path(cbeal.__file__).parent
# the studies: a sibling distribution in the same repository (studies/, issue 29)
STUDIES = Path(__file__).resolve().parents[2] / "studies" / "src" / "cbeal_studies"


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
    mods = [
        cbeal,
        cbeal.core,
        cbeal.baselines,
        cbeal.learners.committee,
        cbeal.learners.regression_committee,
    ]
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
        "ScoreFusion",
        "QuantilePacer",
        "EqualWeights",
        "EvidenceWeights",
    }
    assert {c.__name__ for c in AGENTS} >= {
        "CommitteeAgent",
        "DensityWeightedAgent",
        "MinorityAgent",
        "ReinforcedSpreadAgent",
        "CommitteeVarianceAgent",
        "ExpectedChangeAgent",
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


def test_no_core_modules_import_each_other_in_a_cycle() -> None:
    # a cycle, even through an import inside a function, makes a module's meaning depend
    # on which of the two loads first (window_agent ↔ window_pack was one)
    graph = {
        path.stem: {n.split(".")[2] for n in _cbeal_imports(path) if n.startswith("cbeal.core.")}
        for path in sorted((SRC / "core").glob("*.py"))
        if path.stem != "__init__"  # the package's facade imports every module
    }
    _acyclic({k: v - {k} for k, v in graph.items()})


def test_no_module_over_500_lines_and_no_cycle_anywhere() -> None:
    # the sizes the design reviews count (scripts/code_sizes.py prints them all): a module
    # over 500 lines holds more than one concept; a cycle anywhere, even through an import
    # inside a function, ties two modules' meanings together
    sizes = _code_sizes().measure([SRC, *([STUDIES] if STUDIES.is_dir() else [])])
    assert sizes["over_500"] == [], sizes["over_500"]
    assert sizes["cycles_deferred"] == [], sizes["cycles_deferred"]


def _code_sizes() -> Any:
    script = SRC.parents[1] / "scripts" / "code_sizes.py"
    spec = importlib.util.spec_from_file_location("code_sizes", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sklearn_and_plotting_only_in_their_layers() -> None:
    sklearn_ok = {"learners", "streams", "adapters"}  # the studies (studies/) use it freely
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        for name in _imports(path):
            top = name.split(".")[0]
            if top == "sklearn":
                assert rel.parts[0] in sklearn_ok, f"{rel} imports {name}"
            if top == "matplotlib":
                assert rel.parts[0] == "plotting", f"{rel} imports {name}"


# which cbeal modules each layer may import (beside itself): every top-level package and
# module of src/cbeal has a row, so the test covers all of src/ (issue 18)
LAYERS: dict[str, set[str]] = {
    "_version": set(),
    "core": set(),
    "baselines": {"core"},
    "datasets": {"core"},
    "learners": {"core"},
    "kernels": {"core"},
    "checks": {"core"},
    "streams": {"core"},
    "modelfile": {"core", "_version"},
    "catalog": {"baselines", "core", "learners"},
    "models": {"catalog", "core", "kernels", "learners", "modelfile"},
    "simulation": {"core", "models", "_version"},
    "plotting": {"core", "simulation"},
    "evaluation": {"core", "learners"},
    "adapters": {"core", "models"},
    "bridges": {"core", "streams"},
    "tablerun": {
        "catalog",
        "core",
        "evaluation",
        "learners",
        "models",
        "simulation",
        "streams",
    },
    "reports": {"core", "_version"},
    "runreport": {"catalog", "core", "evaluation", "plotting", "reports", "tablerun", "_version"},
    "service": {"bridges", "catalog", "core", "learners", "models", "_version"},
    "cli": {
        "bridges",
        "catalog",
        "core",
        "datasets",
        "models",
        "reports",
        "runreport",
        "service",
        "simulation",
        "streams",
        "tablerun",
        "_version",
    },
    "__init__": {"catalog", "core", "models", "simulation", "streams", "_version"},
    "__main__": {"cli"},
}

# why each row exists: what the layer is, in one line (issue 29)
WHY: dict[str, str] = {
    "_version": "the package's version, for files and reports",
    "core": "the algorithm as the paper and the spec say it: agents, bandit, pacers (numpy)",
    "baselines": "the comparison strategies of the paper's study, as agents",
    "datasets": "the bundled public data the studies and examples read",
    "learners": "the only scikit-learn-aware layer for models: adapters, PlattSVC, committees",
    "kernels": "compiled twins of core steps, checked against the readable reference",
    "checks": "the conventions checker every component passes (as river ships one)",
    "streams": "streams from data: simulated ones and a user's own table file",
    "modelfile": "the safe model file (no pickle)",
    "catalog": "every name a user types: presets, agents, learners, budgets",
    "models": "the stream models a user fits: CbeAL and one agent alone",
    "simulation": "simulated runs: the oracle loop that streams labels to a model (loop) and "
    "what a run recorded, per step (trace: numpy only, loads without the models)",
    "plotting": "figures of runs by kind: the shared colours (style), one run's panels (run), "
    "methods side by side (compare), regressors' runs (regression)",
    "evaluation": "reference models and scores the studies and `cbeal run` share",
    "adapters": "cbeal inside river and scikit-activeml loops",
    "bridges": "clients that feed the service from a line: replay, MQTT, OPC UA",
    "tablerun": "`cbeal run` on a user's table: the computation, without words",
    "reports": "the pieces every report shares: a document, a folder written all or nothing, "
    "and where a result came from (provenance: git, versions, machine; here because every "
    "report and every study's result row records it); nothing about runs or studies",
    "runreport": "`cbeal run`'s report: the words and figures for what tablerun computed",
    "service": "`cbeal serve`: the annotation service",
    "cli": "the only layer that knows flags",
    "__init__": "the public names, loaded on first use",
    "__main__": "`python -m cbeal`",
}


def test_no_loose_modules_at_the_top_of_the_package() -> None:
    # every part of cbeal is a package named for what it is (issue 29); the top holds only
    # the public names, `python -m cbeal` and the version
    loose = {p.name for p in SRC.glob("*.py")} - {"__init__.py", "__main__.py", "_version.py"}
    assert not loose, f"move {sorted(loose)} into a package"


def test_a_trace_and_its_figures_load_without_the_models() -> None:
    # reading, summarizing and plotting a recorded run needs numpy, not scikit-learn
    loaded = _heavy_loaded_by("cbeal.simulation, cbeal.plotting")
    assert not loaded & {"sklearn", "matplotlib"}, loaded


def test_every_layer_says_why_it_exists() -> None:
    assert set(WHY) == set(LAYERS), set(WHY) ^ set(LAYERS)
    assert all(len(reason) > 10 for reason in WHY.values())
    assert set(STUDY_WHY) == set(STUDY_LAYERS), set(STUDY_WHY) ^ set(STUDY_LAYERS)


# the studies (package cbeal_studies in studies/): research beside the product, as
# scikit-learn and river keep their benchmarks beside the library. They use cbeal's public
# layers, never the service or the command line; cbeal never imports them (but see below)
STUDIES_USE = {
    "adapters",
    "baselines",
    "catalog",
    "core",
    "datasets",
    "evaluation",
    "learners",
    "models",
    "plotting",
    "reports",
    "simulation",
    "streams",
    "_version",
}
STUDY_LAYERS: dict[str, set[str]] = {
    "__init__": set(),
    "reproduction": set(),
    "regression": set(),
    "casestudy": {"reproduction"},
    "label_efficiency": {"reproduction"},
}
STUDY_WHY: dict[str, str] = {
    "__init__": "what the studies are and how to install them",
    "reproduction": "the paper's simulation study: scenarios, methods, runs, tables",
    "regression": "the regression rounds (issue 20) and their fresh workloads",
    "casestudy": "the paper's case study on SECOM and AI4I line data",
    "label_efficiency": "the label-efficiency suite and its tuning rounds (studies/BENCHMARK.md)",
}


def test_the_studies_use_only_cbeals_public_layers() -> None:
    _acyclic(STUDY_LAYERS)
    for path in sorted(STUDIES.rglob("*.py")):
        rel = path.relative_to(STUDIES)
        layer = rel.parts[0].removesuffix(".py")
        assert layer in STUDY_LAYERS, f"studies/{rel}: add its layer to STUDY_LAYERS"
        for name in _cbeal_imports(path):
            used = name.split(".")[1] if "." in name else ""
            assert used in STUDIES_USE, f"studies/{rel} imports {name}"
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] == "cbeal_studies" and len(parts) > 1:
                ok = STUDY_LAYERS[layer] | {layer}
                assert parts[1] in ok, f"studies/{rel} imports {name}"


def _top_level_statements(tree: ast.Module) -> list[ast.stmt]:
    """What runs when the module loads: not the bodies of functions, nor the docstring."""
    skip = (ast.FunctionDef, ast.ClassDef)
    return [n for n in tree.body[1:] if not isinstance(n, skip)]  # body[0]: the docstring


def test_cbeal_imports_the_studies_only_in_the_clis_study_commands_lazily() -> None:
    # `cbeal reproduce`, `casestudy` and `benchmark` stay where users know them; the product
    # installs and starts without the studies
    allowed = {Path("cli/study.py"), Path("cli/_common.py")}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        tree = ast.parse(path.read_text())
        named = {
            n.value.split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        } | {n.split(".")[0] for n in _imports(path)}
        if "cbeal_studies" not in named:
            continue
        assert rel in allowed, f"{rel} imports the studies: only the CLI's study commands may"
        for node in _top_level_statements(tree):
            assert "cbeal_studies" not in ast.dump(node), f"{rel} imports the studies at load"


# inside the service: SQL at the bottom, HTTP at the top
SERVICE_LAYERS: dict[str, set[str]] = {
    "names": set(),
    "store": set(),
    "schemas": {"names"},
    "metrics": set(),
    "middleware": set(),
    "settings": {"store"},
    "engine": {"metrics", "names", "schemas", "settings", "store"},
    "migrations": {"store"},
    "deps": {"engine", "names"},
    "errors": {"engine", "store"},
    "api": {"deps", "engine", "names", "schemas"},
    "fastpath": {"api", "engine", "names", "schemas"},
    "app": {"api", "deps", "engine", "errors", "fastpath", "middleware", "settings"},
    "__init__": set(),
}

SERVICE_WHY: dict[str, str] = {
    "names": "the names a client types (streams, tokens, roles): each rule written once",
    "store": "the database: tables, SQL and transactions, nothing else",
    "schemas": "the wire format of requests and replies (pydantic)",
    "metrics": "the Prometheus counters the engine and the routes update",
    "middleware": "ASGI layers around every request: headers, token before body, body size",
    "settings": "the service's configuration, read once at start",
    "engine": "the service's work without HTTP: streams, tasks, tokens, ingest",
    "migrations": "the database's schema versions (alembic)",
    "deps": "FastAPI's dependencies: the principal, its role and scope, the service",
    "errors": "engine and store errors mapped to HTTP replies",
    "api": "the routes, one module per resource",
    "fastpath": "the samples route's plain success answered without FastAPI's machinery, "
    "by the route's own functions (so it sits above api)",
    "app": "assembles the application: routers, middleware, error handlers",
    "__init__": "the service's public names",
}


def test_every_service_layer_says_why_it_exists() -> None:
    assert set(SERVICE_WHY) == set(SERVICE_LAYERS), set(SERVICE_WHY) ^ set(SERVICE_LAYERS)
    assert all(len(reason) > 10 for reason in SERVICE_WHY.values())


def _cbeal_imports(path: Path) -> set[str]:
    """Dotted cbeal modules `path` imports; ``from cbeal import X`` counts as cbeal.X."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "cbeal":
                found |= {f"cbeal.{a.name}" for a in node.names}
            else:
                found.add(node.module)
    return {n for n in found if n.split(".")[0] == "cbeal"}


def _check_layers(root: Path, prefix: list[str], table: dict[str, set[str]]) -> None:
    for path in sorted(root.rglob("*.py")):
        layer = path.relative_to(root).parts[0].removesuffix(".py")
        assert layer in table, f"{path.relative_to(SRC)}: add its layer to the table"
        for name in _cbeal_imports(path):
            parts = name.split(".")
            if parts[: len(prefix)] != prefix or len(parts) == len(prefix):
                continue
            used = parts[len(prefix)]
            assert used in table[layer] | {layer}, f"{path.relative_to(SRC)} imports {name}"


def _names_from(path: Path, package: str) -> set[str]:
    """What `path` imports from `package` (modules, and names of ``from … import``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == package}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == package:
            found |= {a.name for a in node.names}
    return found


def _acyclic(table: dict[str, set[str]]) -> None:
    done: set[str] = set()
    for _ in table:
        ready = {k for k, v in table.items() if k not in done and v - {k} <= done}
        done |= ready
    assert done == set(table), f"the layers form a cycle among {set(table) - done}"


def test_each_layer_imports_only_the_layers_below_it() -> None:
    _acyclic(LAYERS)
    _check_layers(SRC, ["cbeal"], LAYERS)


def test_inside_the_service_sql_is_at_the_bottom_and_http_at_the_top() -> None:
    _acyclic(SERVICE_LAYERS)
    _check_layers(SRC / "service", ["cbeal", "service"], SERVICE_LAYERS)
    for path in sorted((SRC / "service").rglob("*.py")):
        rel = path.relative_to(SRC / "service")
        if rel.parts[0] not in ("store", "migrations"):  # the engine may hold an Engine
            sql = _names_from(path, "sqlalchemy") - {"Engine"}
            assert not sql, f"service/{rel} imports {sql}: SQL belongs in service/store"
        web = {n for n in _imports(path) if n.split(".")[0] in ("fastapi", "starlette")}
        if rel.parts[0] in ("store", "engine", "schemas"):
            assert not web, f"service/{rel} imports {web}: HTTP stays above the engine"


def test_the_bridges_stand_apart_from_the_server() -> None:
    for path in sorted((SRC / "bridges").rglob("*.py")):
        heavy = {n.split(".")[0] for n in _imports(path)} & {"fastapi", "sqlalchemy", "sklearn"}
        assert not heavy, f"{path.relative_to(SRC)} imports {heavy}"


def test_only_the_cli_knows_command_line_flags() -> None:
    for path in sorted(SRC.rglob("*.py")):
        if "cli" not in path.relative_to(SRC).parts:
            assert "argparse" not in _imports(path), path


def _heavy_loaded_by(modules: str) -> set[str]:
    """The heavy libraries a fresh interpreter has loaded after ``import <modules>``."""
    code = (
        f"import sys, {modules};"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'sklearn','scipy','pandas','matplotlib','tqdm','pyarrow'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(eval(out.stdout))


def test_importing_core_loads_no_heavy_dependency() -> None:
    assert _heavy_loaded_by("cbeal.core") == set()


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
