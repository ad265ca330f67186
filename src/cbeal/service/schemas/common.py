"""Replies every route may give: errors, and the operations routes' replies."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

__all__ = ["ERRORS", "ErrorOut", "HealthOut", "MeOut", "errors"]


class ErrorOut(BaseModel):
    """Every error reply: what went wrong and what to do, in ``detail``."""

    detail: str | list[dict[str, Any]] = Field(
        description="one line saying what to do; for invalid input, the list of problems"
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
    409: "the request contradicts the current state (or the stream is served elsewhere)",
    413: "the request body is too large",
    422: "invalid input: the detail says what to change",
    503: "the service cannot serve this now (retry after the Retry-After header)",
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for the error codes a route may answer (401 and 403 always)."""
    wanted = sorted({401, 403, *codes})
    return {c: {"model": ErrorOut, "description": ERRORS[c]} for c in wanted}
