"""Shared fixtures: small, fast streams."""

from __future__ import annotations

import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import SimulatedStream, make_stream


@pytest.fixture(scope="session")
def stream() -> SimulatedStream:
    return make_stream(n=420, pc=0.1, random_state=7)


@pytest.fixture
def logreg() -> LogisticRegression:
    return LogisticRegression()
