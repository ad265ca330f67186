"""Model files are safe: loading never runs code from the file, and every failure is typed."""

from __future__ import annotations

import io
import json
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import skops.io
from sklearn.linear_model import LogisticRegression

from cbeal import (
    CbeAL,
    LabelRate,
    ModelFileError,
    SimulatedStream,
    SingleAgentLearner,
    simulate,
)
from cbeal.baselines import (
    DBALStreamAgent,
    QBCPYPAgent,
    RandomAgent,
    SplitAgent,
    UncertaintyAgent,
    VariableUncertaintyAgent,
)
from cbeal.core import Agent, Context
from cbeal.learners import PlattSVC
from cbeal.modelfile import FORMAT_VERSION


class Exploit(BaseException):
    """What a crafted file would run, if it could."""


def _evil_marker(path: Path) -> tuple[Any, tuple[str]]:
    return (os.system, (f"touch {path}",))


class Crafted:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return _evil_marker(self.marker)


def model_on(stream: SimulatedStream, **kw: Any) -> CbeAL:
    params: dict[str, Any] = {
        "estimator": LogisticRegression(),
        "budget": 40,
        "random_state": 0,
        **kw,
    }
    model = CbeAL.from_preset("CBEAL-6", **params).fit(stream.X0, stream.y0)
    simulate(model, stream.X_stream[:100], stream.y_stream[:100])
    return model


def test_a_pickle_that_runs_code_is_refused_before_it_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "model.cbeal"
    path.write_bytes(pickle.dumps({"format": "cbeal-model", "model": Crafted(marker)}))
    with pytest.raises(ModelFileError, match="pickle"):
        CbeAL.load(path)
    assert not marker.exists()


def test_a_crafted_skops_part_is_refused(stream: SimulatedStream, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    good = model_on(stream).to_bytes()
    zin = zipfile.ZipFile(io.BytesIO(good))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for name in zin.namelist():
            data = zin.read(name)
            if name.startswith("blobs/"):
                data = skops.io.dumps(Crafted(marker))  # an object whose loading runs code
            zout.writestr(name, data)
    with pytest.raises(ModelFileError, match="not trusted"):
        CbeAL.from_bytes(out.getvalue())
    assert not marker.exists()


def test_an_unknown_class_in_the_state_is_refused(stream: SimulatedStream) -> None:
    data = model_on(stream).to_bytes()
    zin = zipfile.ZipFile(io.BytesIO(data))
    manifest = json.loads(zin.read("cbeal.json"))
    text = json.dumps(manifest).replace("cbeal.core.reinforced.ReinforcedAgent", "os.system", 1)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for name in zin.namelist():
            zout.writestr(name, text if name == "cbeal.json" else zin.read(name))
    with pytest.raises(ModelFileError, match="class os.system"):
        CbeAL.from_bytes(out.getvalue())


def test_arrays_are_read_without_pickle(stream: SimulatedStream) -> None:
    data = model_on(stream).to_bytes()
    zin = zipfile.ZipFile(io.BytesIO(data))
    arrays = io.BytesIO()
    np.savez(arrays, a0=np.array([Crafted(Path("x"))], dtype=object))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for name in zin.namelist():
            zout.writestr(name, arrays.getvalue() if name == "arrays.npz" else zin.read(name))
    with pytest.raises(ModelFileError, match="corrupt|pickle"):
        CbeAL.from_bytes(out.getvalue())


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"", "not a readable"),
        (b"hello, this is a CSV\n1,2,3\n", "not a readable"),
        ("truncated", "not a readable"),
        ("foreign-zip", "not a cbeal model file"),
        ("newer", "Upgrade cbeal"),
    ],
)
def test_foreign_corrupt_truncated_or_newer_files(
    stream: SimulatedStream, tmp_path: Path, content: Any, match: str
) -> None:
    good = model_on(stream).to_bytes()
    if content == "truncated":
        content = good[: len(good) // 2]
    elif content == "foreign-zip":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("readme.txt", "hi")
        content = buf.getvalue()
    elif content == "newer":
        zin = zipfile.ZipFile(io.BytesIO(good))
        manifest = json.loads(zin.read("cbeal.json"))
        manifest["format_version"] = FORMAT_VERSION + 1
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zout:
            for name in zin.namelist():
                data = json.dumps(manifest) if name == "cbeal.json" else zin.read(name)
                zout.writestr(name, data)
        content = buf.getvalue()
    path = tmp_path / "model.cbeal"
    path.write_bytes(content)
    with pytest.raises(ModelFileError, match=match):
        CbeAL.load(path)
    with pytest.raises(ModelFileError, match="no model file"):
        CbeAL.load(tmp_path / "missing.cbeal")


def test_a_failed_save_leaves_no_file_behind(
    stream: SimulatedStream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = model_on(stream)
    model.save(tmp_path / "model.cbeal")
    before = (tmp_path / "model.cbeal").read_bytes()

    def crash(*args: Any) -> None:
        raise OSError("power cut")

    with monkeypatch.context() as patch:  # the write succeeded, the rename did not
        patch.setattr("cbeal.modelfile.archive.os.replace", crash)
        with pytest.raises(OSError, match="power cut"):
            model.save(tmp_path / "model.cbeal")
    model.set_params(estimator=(x for x in ()))  # not a thing a model file can hold
    with pytest.raises(ModelFileError, match="cannot save"):
        model.save(tmp_path / "model.cbeal")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.cbeal"]
    assert (tmp_path / "model.cbeal").read_bytes() == before


AGENTS = [
    RandomAgent(rate=0.2),
    UncertaintyAgent(),
    VariableUncertaintyAgent(),
    SplitAgent(),
    DBALStreamAgent(),
    QBCPYPAgent(),
]


@pytest.mark.parametrize(
    "make",
    [
        lambda: CbeAL.from_preset("CBEAL-8", estimator=PlattSVC(), budget=30, random_state=1),
        lambda: CbeAL.from_preset(
            "CBEAL-4*",
            estimator=LogisticRegression(),
            budget=LabelRate(rate=0.08, window=50, max_in_window=3),
            random_state=1,
            refit_every=3,
        ),
        *[
            (
                lambda a=a: SingleAgentLearner(
                    agent=a, estimator=LogisticRegression(), budget=30, random_state=1
                )
            )
            for a in AGENTS
        ],
    ],
    ids=["cbeal8-svm", "cbeal4-rate", *[type(a).__name__ for a in AGENTS]],
)
def test_saved_mid_stream_continues_exactly(
    stream: SimulatedStream, tmp_path: Path, make: Any
) -> None:
    model = make().fit(stream.X0, stream.y0)
    X, y = stream.X_stream, stream.y_stream
    simulate(model, X[:150], y[:150], delay=7)  # labels still pending at the save
    model.save(tmp_path / "m.cbeal")
    twin = type(model).load(tmp_path / "m.cbeal")
    assert [p.id for p in twin.pending] == [p.id for p in model.pending]
    a = simulate(model, X[150:], y[150:], delay=3)
    b = simulate(twin, X[150:], y[150:], delay=3)
    np.testing.assert_array_equal(a.acquired, b.acquired)
    np.testing.assert_array_equal(a.weights_after, b.weights_after)
    np.testing.assert_array_equal(
        model.predict_proba(stream.X_test), twin.predict_proba(stream.X_test)
    )


class HalfAgent(Agent):
    """A user's own agent."""

    kind: ClassVar[str] = "exploration"

    def __init__(self, *, p: float = 0.5) -> None:
        self.p = p

    def _start(self, X0: np.ndarray) -> None:
        self.seen_ = 0

    def advise_one(self, ctx: Context) -> float:
        self.seen_ += 1
        return float(self.p)


def test_own_classes_load_only_when_trusted(stream: SimulatedStream, tmp_path: Path) -> None:
    model = CbeAL.from_agents(
        [("half", HalfAgent()), ("ral", UncertaintyAgent())],
        estimator=LogisticRegression(),
        budget=20,
        random_state=0,
    )
    simulate(model.fit(stream.X0, stream.y0), stream.X_stream[:50], stream.y_stream[:50])
    model.save(tmp_path / "m.cbeal")
    with pytest.raises(ModelFileError, match="HalfAgent.*trusted"):
        CbeAL.load(tmp_path / "m.cbeal")
    twin = CbeAL.load(tmp_path / "m.cbeal", trusted=[HalfAgent])
    assert twin.policy_.named_agents[0][1].seen_ == 50


def test_loaded_type_is_checked(stream: SimulatedStream, tmp_path: Path) -> None:
    model = model_on(stream)
    model.save(tmp_path / "m.cbeal")
    with pytest.raises(ModelFileError, match="not a SingleAgentLearner"):
        SingleAgentLearner.load(tmp_path / "m.cbeal")
