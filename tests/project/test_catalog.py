"""The catalog: one place for every name a user types, and one meaning for a budget at every
front door (the Python API, `cbeal run`, `cbeal serve`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from sklearn.linear_model import LogisticRegression

import cbeal
from cbeal import CbeAL, SingleAgentLearner
from cbeal.catalog import (
    AGENTS,
    LEARNERS,
    PRESETS,
    RECOMMENDED,
    UnknownNameError,
    agent,
    agent_entry,
    budget,
    describe_budget,
    learner,
    preset_entry,
    strategy_entry,
    strategy_names,
)
from cbeal.core import DEFAULT_PACE, LabelCount, LabelRate, ParameterError
from cbeal.models import stream_model
from cbeal.tablerun.options import comparison_methods, ensemble, run_budget

from .test_conventions import AGENTS as CHECKED_AGENTS

SRC = Path(cbeal.__file__).parent
# the studies live beside the package, in the same repository (studies/)
STUDIES = Path(__file__).resolve().parents[2] / "studies" / "src" / "cbeal_studies"


@pytest.mark.parametrize("name", list(AGENTS))
def test_every_agent_has_words_a_kind_and_passes_the_conventions(name: str) -> None:
    entry = AGENTS[name]
    assert entry.label and entry.label == entry.label.lower() and len(entry.label) <= 40
    assert 20 <= len(entry.description) <= 140 and "\n" not in entry.description
    assert entry.kind in ("exploration", "exploitation", "hybrid")
    built = entry.build(0.05)
    assert type(built) is entry.cls
    assert entry.cls in CHECKED_AGENTS  # tests/project/test_conventions.py runs cbeal.checks on it


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_builds_with_a_rate_and_names_real_agents(name: str) -> None:
    entry = PRESETS[name]
    assert all(a in AGENTS for a in entry.agents) and len(entry.agents) >= 2
    model = CbeAL.from_preset(name, estimator=LogisticRegression(), budget="5%")
    assert [n for n, _ in model.agents] == list(entry.agents)
    assert entry.label and entry.description


def test_the_recommended_preset_is_the_default_of_every_front_door() -> None:
    from cbeal.service.schemas.streams import StreamConfig

    assert preset_entry().name == RECOMMENDED and PRESETS[RECOMMENDED].family == "recommended"
    model = CbeAL.from_preset(estimator=LogisticRegression(), budget=0.05)
    assert [n for n, _ in model.agents] == list(PRESETS[RECOMMENDED].agents)
    assert ensemble(None, None) == (RECOMMENDED, None)  # cbeal run
    config = StreamConfig(name="line1", features=["a"], classes=["ok", "fail"])
    assert config.preset == RECOMMENDED  # cbeal serve


def test_names_are_found_in_any_case_with_aliases_and_suggestions() -> None:
    assert agent_entry("ral1").name == "RAL1" and agent_entry("VariableUncertainty").name == "VU"
    assert preset_entry("cbeal_4u").name == "CBEAL-4U"
    assert strategy_entry("ent").name == "ENT" and strategy_entry("CBEAL-6").name == "CBEAL-6"
    with pytest.raises(UnknownNameError, match="did you mean 'CBEAL-6'"):
        preset_entry("CBEAL6")
    with pytest.raises(UnknownNameError, match="choose one of: logreg, logreg-l1"):
        learner("logistic")
    assert isinstance(UnknownNameError("x"), ParameterError)


def test_every_strategy_builds_a_stream_model_and_run_compares_with_it() -> None:
    names = strategy_names()
    assert set(names) == set(PRESETS) | set(AGENTS)
    assert comparison_methods(",".join(n.lower() for n in names)) == names
    for name in names:
        model = stream_model(name, estimator=LogisticRegression(), budget=30, n_stream=600)
        expected = SingleAgentLearner if name in AGENTS else CbeAL
        assert type(model) is expected, name


def test_agents_that_pace_take_the_budgets_share_of_the_stream() -> None:
    # a count alone is paced at the default pace; a count's own pace or budget_fraction wins
    alone = CbeAL.from_preset("CBEAL-4U", estimator=LogisticRegression(), budget=30)
    assert alone.agents[2][1].budget_fraction == DEFAULT_PACE
    paced = CbeAL.from_preset(
        "CBEAL-4U", estimator=LogisticRegression(), budget=LabelCount(total=30, pace=0.02)
    )
    assert paced.agents[2][1].budget_fraction == 0.02
    model = CbeAL.from_preset(
        "CBEAL-4U", estimator=LogisticRegression(), budget=30, budget_fraction=0.05
    )
    assert model.agents[2][1].budget_fraction == 0.05
    assert agent("ENT", 0.02).budget_fraction == 0.02


@pytest.mark.parametrize(
    ("text", "kind"), [("10%", LabelRate), ("0.1", LabelRate), ("50", LabelCount)]
)
def test_one_meaning_for_a_budget_at_every_front_door(text: str, kind: type) -> None:
    from cbeal.service.engine.models import build_model
    from cbeal.service.schemas.streams import StreamConfig

    assert isinstance(budget(text), kind)  # the Python API's reading
    assert isinstance(run_budget(text, 1000)[0], kind)  # cbeal run
    config = StreamConfig(
        name="line1", features=["a"], classes=["ok", "fail"], preset="CBEAL-6", budget=text
    )
    model = build_model(config)  # cbeal serve
    import numpy as np

    model.fit(np.zeros((2, 1)), ["ok", "fail"])
    assert isinstance(model.budget_, kind)


def test_budget_words_say_paced_or_at_will() -> None:
    words = describe_budget("10%", 1230)  # a rate: its token bucket over 1230 parts
    assert "paced" in words and "up to 5 ahead" in words and "128 over these 1230" in words
    # cbeal run's reading of the same text over a file of 1230 rows: at most 10 % of it
    assert "123 over these 1230" in describe_budget(run_budget("10%", 1230)[0], 1230)
    assert describe_budget(86) == "86 labels, spent whenever the agents ask"


def test_every_learner_builds() -> None:
    for name, entry in LEARNERS.items():
        est = entry.build(random_state=0)
        assert hasattr(est, "fit") and entry.label, name


def _string_constants(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def test_the_paper_agent_names_are_written_once() -> None:
    # the review found the eight agent names in 7 places; now the paper's table holds them
    # and every other module asks the catalog (docstrings and figures' picks excepted)
    names = {"LD1", "LD2", "LD3", "SPF1", "RAL1", "RAL2", "RAL3", "RAL4"}
    holders = set()
    for root in (SRC, STUDIES):
        for path in sorted(root.rglob("*.py")):
            found = names & set(_string_constants(path))
            if len(found) >= 4:  # a list of them, not one name in an example
                holders.add(str(path.relative_to(root)))
    # reproduction/figures.py: the methods the paper's toy figure shows, by name
    allowed = {"core/presets.py", "catalog/agents.py", "reproduction/figures.py"}
    suite = {p for p in holders if p.startswith("label_efficiency/")}  # candidate pools
    assert holders - suite <= allowed, holders - suite
