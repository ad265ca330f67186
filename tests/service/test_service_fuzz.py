"""Fuzz the API from its own OpenAPI schema (schemathesis): no input gives a server error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
schemathesis = pytest.importorskip("schemathesis")
from fastapi.testclient import TestClient  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from cbeal.service.app import Settings, create_app  # noqa: E402
from cbeal.service.engine.tokens import create_token  # noqa: E402

from ..service_helpers import line, stream_config  # noqa: E402


def fuzz_app(tmp: Path) -> tuple[Any, str]:
    app = create_app(Settings(db=f"sqlite:///{tmp / 'fuzz.db'}", undo_seconds=0.0, retrain="sync"))
    token = create_token(app.state.service.engine, role="admin", name="fuzz")
    with TestClient(app) as c:
        s = line()
        c.post(
            "/api/v1/streams", json=stream_config(s), headers={"Authorization": f"Bearer {token}"}
        )
        c.post(
            "/api/v1/streams/line1/samples",
            headers={"Authorization": f"Bearer {token}"},
            json={"samples": [{"id": f"p{i}", "x": s.X_stream[i].tolist()} for i in range(200)]},
        )
    return app, token


APP, TOKEN = fuzz_app(Path(__import__("tempfile").mkdtemp(prefix="cbeal-fuzz-")))
SCHEMA = schemathesis.openapi.from_asgi(
    "/openapi.json", APP, headers={"Authorization": f"Bearer {TOKEN}"}
)
# valid and invalid inputs alike (wrong types, missing fields, out-of-range values)
SCHEMA.config.generation.update(modes=list(schemathesis.GenerationMode), deterministic=True)


@SCHEMA.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_gives_a_server_error(case: Any) -> None:
    from schemathesis.checks import not_a_server_error

    case.call_and_validate(
        headers={"Authorization": f"Bearer {TOKEN}"},
        checks=[not_a_server_error],
        excluded_checks=[],
    )


@SCHEMA.parametrize()
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_reply_conforms_to_the_openapi_document(case: Any) -> None:
    """A short profile of schemathesis's response-conformance checks: each reply's status
    is declared for its route, with its content type, headers and body schema."""
    from schemathesis.checks import (
        content_type_conformance,
        not_a_server_error,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    case.call_and_validate(
        headers={"Authorization": f"Bearer {TOKEN}"},
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_headers_conformance,
            response_schema_conformance,
        ],
        excluded_checks=[],
    )
