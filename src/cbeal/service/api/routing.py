"""Strict JSON for every route: standard JSON only, and text a database can store.

Request bodies are parsed by orjson, which refuses what JSON does not allow (``NaN``,
``Infinity``, lone surrogates such as ``"\\ud800"``), and a body whose text holds the NUL
character (``\\u0000``, which PostgreSQL cannot store and SQLite would) is refused
too, so that every database behaves the same: a 422 that says what is wrong, before
anything is read or stored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from fastapi import Request, Response
from fastapi.routing import APIRoute

__all__ = ["StrictRoute", "strict_json"]

# a \u0000 escape that is not itself escaped (preceded by an even number of backslashes)
_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")


def strict_json(body: bytes) -> Any:
    """`body` parsed as standard JSON whose text is storable; :class:`json.JSONDecodeError`
    (FastAPI's 422 ``json_invalid``) saying why not.

    >>> strict_json(b'{"id": "a\\\\\\\\u0000"}')  # an escaped backslash, then "u0000"
    {'id': 'a\\\\u0000'}
    >>> strict_json(b'{"id": "a\\\\u0000"}')
    Traceback (most recent call last):
    ...
    json.decoder.JSONDecodeError: text may not hold the NUL character ...: line 1 column 10 (char 9)
    """
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        text = body.decode("utf-8", "replace")
        raise json.JSONDecodeError(_said(exc.msg), text, exc.pos) from None
    if b"\\u0000" in body:
        found = _NUL.search(body)
        if found is not None:
            text = body.decode("utf-8", "replace")
            at = found.end() - 6
            raise json.JSONDecodeError("text may not hold the NUL character (\\u0000)", text, at)
    return value


def _said(msg: str) -> str:
    if "surrogate" in msg:
        return "text may not hold a lone UTF-16 surrogate (such as \\ud800)"
    return f"not standard JSON ({msg}); numbers such as NaN or Infinity are not JSON: send null"


class _StrictRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = strict_json(await self.body())
        return self._json


class StrictRoute(APIRoute):
    """A route whose request body is parsed by :func:`strict_json`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(_StrictRequest(request.scope, request.receive))

        return strict
