"""The tokens routes: create, list and revoke API tokens (an unscoped admin's work)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from cbeal.service.names import STREAM_NAME, TOKEN_NAME, Role

__all__ = ["RevokedOut", "TokenIn", "TokenListOut", "TokenOut", "TokenRow"]

StreamRef = Annotated[str, Field(pattern=STREAM_NAME)]


class TokenIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(
        pattern=TOKEN_NAME,
        description="who uses it: 1 to 100 letters, digits, '_', '.', '@' or '-', "
        "the first a letter or digit",
    )
    role: Role
    streams: list[StreamRef] | None = Field(
        default=None,
        min_length=1,
        max_length=1000,
        description="the streams the token may act on; none: every stream",
    )


class TokenRow(BaseModel):
    id: int
    name: str
    role: str
    streams: list[str] | None = Field(description="the token's streams; null: every stream")
    created_at: float
    created_by: str | None = Field(description="the token that created it (null: the CLI)")
    last_used_at: float | None = Field(description="its last request, to the minute")
    revoked_at: float | None = None
    revoked_by: str | None = None


class TokenOut(TokenRow):
    token: str = Field(description="the token: shown this once, only its hash is stored")


class TokenListOut(BaseModel):
    tokens: list[TokenRow]


class RevokedOut(BaseModel):
    name: str
    revoked: list[int] = Field(description="the ids of the tokens revoked")
