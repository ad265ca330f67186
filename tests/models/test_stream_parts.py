"""StreamLearner is composed of parts in several modules (models/stream_*.py); the split
must not change the names under which a model's state is stored."""

from __future__ import annotations

import io
import pickle
import zipfile
from typing import Any

from sklearn.linear_model import LogisticRegression

from cbeal import CbeAL, make_stream


class _Spy(pickle.Unpickler):
    """Records the classes a pickle names."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self.names: list[tuple[str, str]] = []

    def find_class(self, module: str, name: str) -> Any:
        self.names.append((module, name))
        return super().find_class(module, name)


def test_a_pending_acquisition_keeps_its_stored_class_name() -> None:
    # files and pickles written before the split name the record cbeal.models.stream._Pending
    s = make_stream(n=120, random_state=0)
    model = CbeAL.from_preset(estimator=LogisticRegression(), budget=0.3, random_state=0)
    model.fit(s.X0, s.y0)
    for x in s.X_stream[:60]:
        model.query_one(x)
    assert model.pending, "no acquisition is pending: the test would check nothing"
    data = model.to_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        tree = zf.read("cbeal.json").decode()
    assert '"__obj__": "cbeal.models.stream._Pending"' in tree
    spy = _Spy(pickle.dumps(model))
    twin = spy.load()
    assert ("cbeal.models.stream", "_Pending") in spy.names
    for copy in (twin, CbeAL.from_bytes(data)):
        assert [d.to_dict() for d in copy.pending] == [d.to_dict() for d in model.pending]
