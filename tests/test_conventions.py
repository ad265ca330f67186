"""Conventions every component follows (river-style generic suite) and the package layering."""

from __future__ import annotations

import ast
import inspect
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import cbeal
import cbeal.baselines
import cbeal.core
from cbeal import CbeAL, SingleAgentLearner, make_stream
from cbeal.core import Agent, AgentEnsemble, Context, Exp4P, Params, SingleAgentPolicy

SRC = Path(cbeal.__file__).parent


def _concrete(base: type) -> list[type]:
    found = {}
    for mod in (cbeal, cbeal.core, cbeal.baselines):
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


AGENTS = _concrete(Agent)


def example(cls: type) -> Any:
    """A non-default instance of each component."""
    if issubclass(cls, Agent):
        params = {"LowDensityAgent": {"window_size": 30, "sparsity_fraction": 0.02},
                  "SpaceFillingAgent": {"window_size": 25},
                  "ReinforcedAgent": {"theta0": 0.8, "eta": 0.02},
                  "RandomAgent": {"rate": 0.2},
                  "UncertaintyAgent": {"threshold": 0.8},
                  "VariableUncertaintyAgent": {"budget_fraction": 0.2},
                  "SplitAgent": {"budget_fraction": 0.2, "random_share": 0.5},
                  "DBALStreamAgent": {"budget_fraction": 0.2, "window_size": 50},
                  "QBCPYPAgent": {"discount": 0.3}}[cls.__name__]
        return cls(**params)
    if cls is cbeal.LabelCount:
        return cbeal.LabelCount(total=12)
    if cls is cbeal.LabelRate:
        return cbeal.LabelRate(rate=0.05, window=100, max_in_window=3)
    if cls is Exp4P:
        return Exp4P(horizon=500, limits="shewhart")
    if cls is AgentEnsemble:
        return AgentEnsemble(agents=cbeal.preset_agents("CBEAL-4*"), epsilon=0.05)
    if cls is SingleAgentPolicy:
        return SingleAgentPolicy(agent=cbeal.ReinforcedAgent(), epsilon=0.01)
    if cls is CbeAL:
        return CbeAL.from_preset("CBEAL-4", estimator=LogisticRegression(), budget=9,
                                 random_state=3)
    if cls is SingleAgentLearner:
        return SingleAgentLearner(agent=cbeal.SpaceFillingAgent(), estimator=LogisticRegression(),
                                  budget=9, random_state=3)
    raise AssertionError(cls)


COMPONENTS = [*_concrete(Params)]


def test_every_agent_is_covered() -> None:
    assert {c.__name__ for c in AGENTS} >= {"LowDensityAgent", "SpaceFillingAgent",
                                            "ReinforcedAgent"}
    assert {c.__name__ for c in COMPONENTS} >= {"Exp4P", "AgentEnsemble", "SingleAgentPolicy",
                                                "CbeAL", "SingleAgentLearner"}


@pytest.mark.parametrize("cls", COMPONENTS, ids=lambda c: c.__name__)
def test_keyword_only_params_stored_unchanged(cls: type) -> None:
    sig = inspect.signature(cls.__init__)
    params = [p for n, p in sig.parameters.items() if n != "self"]
    assert all(p.kind is p.KEYWORD_ONLY for p in params)
    obj = example(cls)
    got = obj.get_params(deep=False)
    assert list(got) == [p.name for p in params]
    for name, value in got.items():
        assert getattr(obj, name) is value


@pytest.mark.parametrize("cls", COMPONENTS, ids=lambda c: c.__name__)
def test_clone_set_params_repr(cls: type) -> None:
    obj = example(cls)
    twin = obj.clone()
    assert type(twin) is cls and twin is not obj
    assert repr(twin) == repr(obj) and repr(obj).startswith(cls.__name__ + "(")
    assert not [k for k in vars(twin) if k.endswith("_")]  # no learned state
    first = next(iter(obj.get_params(deep=False)))
    assert twin.set_params(**{first: obj.get_params()[first]}) is twin
    with pytest.raises(ValueError, match="no parameter"):
        twin.set_params(nonsense=1)


@pytest.mark.parametrize("cls", COMPONENTS, ids=lambda c: c.__name__)
def test_public_class_has_doctested_examples(cls: type) -> None:
    assert "Examples" in (cls.__doc__ or "") or ">>>" in (cls.__doc__ or "")


def _feed(agent: Agent, X: np.ndarray) -> list[float]:
    rng = np.random.default_rng(0)
    out = []
    for x in X:
        p1 = rng.uniform(0.5, 1.0)
        out.append(agent.advise_one(Context(x, np.array([p1, 1 - p1]))))
        agent.reward_one(out[-1], 1.0 if rng.random() < 0.3 else -0.5, -0.5)
    return out


@pytest.mark.parametrize("cls", AGENTS, ids=lambda c: c.__name__)
def test_agent_protocol_pickle_and_determinism(cls: type) -> None:
    X = make_stream(n=200, random_state=0).X_stream
    agent = example(cls)
    y0 = np.arange(20) % 2
    assert agent.fit(X[:20], np.random.default_rng(0), y0) is agent
    assert agent.kind in ("exploration", "exploitation", "hybrid")
    head = _feed(agent, X[20:100])
    assert all(0.0 <= p <= 1.0 for p in head)
    copy = pickle.loads(pickle.dumps(agent))
    assert _feed(copy, X[100:]) == _feed(agent, X[100:])
    again = example(cls).fit(X[:20], np.random.default_rng(0), y0)
    assert _feed(again, X[20:100]) == head  # seeded: same draws, same advice
    refit = agent.fit(X[:20], np.random.default_rng(0), y0)  # fit resets all state
    assert _feed(refit, X[20:100]) == head


@pytest.mark.parametrize("cls", [CbeAL, SingleAgentLearner], ids=lambda c: c.__name__)
def test_models_seeding_and_pickle(cls: type) -> None:
    s = make_stream(n=160, random_state=1)
    a = example(cls).fit(s.X0, s.y0)
    b = example(cls).fit(s.X0, s.y0)
    da = [a.query_one(x).acquire for x in s.X_stream[:60]]
    assert da == [b.query_one(x).acquire for x in s.X_stream[:60]]
    c = pickle.loads(pickle.dumps(a))
    assert [a.query_one(x).p_acquire for x in s.X_stream[60:]] == [
        c.query_one(x).p_acquire for x in s.X_stream[60:]
    ]


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
    "models": {"core", "learners", "modelfile"},
    "modelfile": {"core", "learners", "_version"},
    "evaluation": {"core", "learners"},
    "streams": {"core", "learners"},
    "tablerun": {"core", "baselines", "evaluation", "learners", "models", "simulation", "streams",
                 "trace"},
    "reports": {"core", "evaluation", "plotting", "provenance", "tablerun", "trace",
                "_version"},
    "service": {"core", "learners", "models", "_version"},
    "adapters": {"core", "models"},
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
        if path.name != "cli.py":
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
        importlib.import_module(info.name)
    for name in cbeal.__all__:
        assert not isinstance(getattr(cbeal, name), types.ModuleType), name
