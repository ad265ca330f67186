"""Model files written by the mixin StreamLearner (commit 5fbd5b0) still load and continue
exactly as that code did: the same next decisions, labels and weights; so do copies in the
layouts of the passes that turned its mixins into objects."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from cbeal.models.stream import StreamLearner

DATA = Path(__file__).parents[1] / "data" / "modelfile_compat"


def _maker() -> Any:
    spec = importlib.util.spec_from_file_location("compat_make", DATA / "make.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKE = _maker()


@pytest.mark.parametrize("name", sorted(MAKE.MODELS))
def test_an_old_model_file_loads_and_decides_as_before(name: str) -> None:
    _, data = MAKE.MODELS[name]
    _, _, X, y = data()
    model = StreamLearner.load(DATA / f"{name}.cbeal")
    assert len(model.pending) == 1
    expected = json.loads((DATA / f"{name}.json").read_text())
    assert MAKE.continuation(model, X, y) == expected


def test_a_copy_of_the_old_flat_layout_is_migrated_too() -> None:
    # pickles and deep copies made by the mixin StreamLearner hold the pool and the learner
    # as flat fields; __setstate__ rebuilds the objects from them
    _, data = MAKE.MODELS["cbeal5d"]
    _, _, X, y = data()
    model = StreamLearner.load(DATA / "cbeal5d.cbeal")
    twin = StreamLearner.load(DATA / "cbeal5d.cbeal")
    state = _first_pass_layout(twin.__getstate__())
    pool, slot = state.pop("_pool"), state.pop("_slot")
    state.update(
        _pool_X=pool.X_,
        _pool_y=pool.y_,
        _pending=pool.pending_,
        _labelled=pool.labelled_,
        _cancelled=pool.cancelled_,
        _learner=slot.learner_,
        _since_refit=slot.since_refit_,
    )
    old = object.__new__(type(twin))
    old.__setstate__(state)
    assert "_pool_X" not in old.__dict__ and "_names" not in old.__dict__
    assert MAKE.continuation(old, X, y) == MAKE.continuation(model, X, y)


def _first_pass_layout(state: dict[str, Any]) -> dict[str, Any]:
    """The fields of the StreamLearner whose pool and learner were objects but whose
    decision path (its draws, open step and stamp) were flat fields of the model."""
    state = dict(state)
    path = state.pop("_path")
    stamp = path.stamp_
    state.update(
        _rng=path.rng_,
        _step_open=path.step_open_,
        _names=stamp.names_,
        _kinds=stamp.kinds_,
        _plain_classes=stamp.classes_,
        model_token_=stamp.token_,
    )
    return state


@pytest.mark.parametrize("name", sorted(MAKE.MODELS))
def test_a_copy_of_the_first_pass_layout_is_migrated_too(name: str) -> None:
    # pickles and deep copies made while the decision path was a mixin hold its parts,
    # the random generator the policy shares included, as flat fields of the model
    _, data = MAKE.MODELS[name]
    _, _, X, y = data()
    model = StreamLearner.load(DATA / f"{name}.cbeal")
    twin = StreamLearner.load(DATA / f"{name}.cbeal")
    old = object.__new__(type(twin))
    old.__setstate__(_first_pass_layout(twin.__getstate__()))
    assert "_names" not in old.__dict__ and old.model_token_ == model.model_token_
    assert MAKE.continuation(old, X, y) == MAKE.continuation(model, X, y)
