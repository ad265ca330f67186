"""Replies every route may give: errors, and the operations routes' replies."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

__all__ = ["ALWAYS", "ERRORS", "ErrorOut", "HealthOut", "MeOut", "errors"]


class ErrorOut(BaseModel):
    """Every error reply: what went wrong and what to do, in ``detail``."""

    detail: str | list[dict[str, Any]] = Field(
        description="one line saying what to do; for invalid input (422) either one line "
        "or the list of problems, each with its location (loc), message (msg) and type"
    )
    retry_after: int | None = Field(
        default=None, description="503: seconds to wait before sending the request again"
    )
    error_id: str | None = Field(
        default=None, description="500: the id under which the server logged the error"
    )


class HealthOut(BaseModel):
    status: str = Field(description="'ok' while the process serves")
    streams_served: int = Field(description="streams this process owns now")


class MeOut(BaseModel):
    name: str = Field(description="the token's name")
    role: str = Field(description="ingest, annotate or admin")
    undo_seconds: float = Field(description="how long a label can be undone")


#: the error replies a route may give, by status code
ERRORS: dict[int, str] = {
    401: "no token, or an unknown or revoked one",
    403: "the token's role may not do this",
    404: "no such stream or task",
    409: "the request contradicts the current state (or the stream is served elsewhere: "
    "retry after the Retry-After header)",
    413: "the request body is too large",
    422: "invalid input: the detail says what to change",
    500: "an unexpected error, logged under error_id",
    503: "an outage (the database connection lost, a full disk): nothing to change in the "
    "request; retry after the Retry-After header",
}

_RETRY = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}}
_HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"description": "Bearer", "schema": {"type": "string"}}},
    409: _RETRY,
    503: _RETRY,
}
#: what any route may answer: a token refused, an unexpected error, an outage
ALWAYS = (401, 403, 500, 503)


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for the error codes a route may answer, with ``ALWAYS``."""
    out: dict[int | str, dict[str, Any]] = {}
    for c in sorted({*ALWAYS, *codes}):
        out[c] = {"model": ErrorOut, "description": ERRORS[c]}
        if c in _HEADERS:
            out[c]["headers"] = _HEADERS[c]
    return out
