"""Shared fixtures: small, fast streams, and the databases of the service tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import SimulatedStream, make_stream

from .service_helpers import pg_available, pg_schema


@pytest.fixture(scope="session")
def stream() -> SimulatedStream:
    return make_stream(n=420, pc=0.1, random_state=7)


@pytest.fixture
def logreg() -> LogisticRegression:
    return LogisticRegression()


DATABASES = [
    "sqlite",
    pytest.param(
        "postgresql",
        marks=pytest.mark.skipif(not pg_available(), reason="no PostgreSQL on 127.0.0.1:5432"),
    ),
]


@pytest.fixture(params=DATABASES)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A service test runs on the embedded SQLite and on the real PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'service.db'}"
    else:
        with pg_schema() as url:
            yield url
