"""A client of the annotation service's HTTP API, with one-line errors and a retry policy.

Every failure a bridge or a script can meet is one of a few kinds, each a
:class:`ServiceError` whose message is one line saying what to do:

* :class:`ServiceUnreachable` — nothing answers at the URL (the service is stopped or
  restarting, a wrong host or port);
* :class:`ServiceBusy` — the service answered 5xx or 429 (a database outage, a restart in
  progress, a stream reloading): try again later;
* :class:`TokenRefused` — 401 or 403: the token is missing, unknown, revoked or lacks the
  role or stream;
* :class:`NotFoundError` — 404: an unknown stream or task;
* :class:`Refused` — any other 4xx: the request's content was refused (422, 413, …);
  sending it again cannot help.

The first two are *transient*: :meth:`Client.call` retries them with a growing pause for
``retry_for`` seconds (``None``: forever), honouring ``Retry-After``. The others are
raised at once, because only a person can fix them — a bridge decides whether to wait for
that person (a refused token) or to report and drop (a refused sample).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

__all__ = [
    "Client",
    "NotFoundError",
    "Refused",
    "ServiceBusy",
    "ServiceError",
    "ServiceUnreachable",
    "TokenRefused",
]

log = logging.getLogger("cbeal.client")


class ServiceError(RuntimeError):
    """A failed call to the service; ``str()`` is one line that says what to do."""

    transient = False

    def __init__(self, message: str, *, status: int | None = None, detail: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail


class ServiceUnreachable(ServiceError):
    """Nothing answers at the service's URL."""

    transient = True


class ServiceBusy(ServiceError):
    """The service answered 5xx or 429; the same request may succeed later."""

    transient = True

    def __init__(
        self, message: str, *, status: int | None, detail: Any, retry_after: float | None
    ) -> None:
        super().__init__(message, status=status, detail=detail)
        self.retry_after = retry_after


class TokenRefused(ServiceError):
    """401 or 403: the token is missing, unknown, revoked or not allowed this call."""


class NotFoundError(ServiceError):
    """404: no such stream or task."""


class Refused(ServiceError):
    """Another 4xx: the service refused the request's content; resending cannot help."""


def _detail(response: Any) -> Any:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300]
    return body.get("detail", body) if isinstance(body, dict) else body


def _one_line(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


def _retry_after(response: Any) -> float | None:
    try:
        return max(0.0, float(response.headers["Retry-After"]))
    except (KeyError, ValueError):
        return None


class Client:
    """A thin HTTP client of the service API (httpx).

    `retry_for` is how long transient failures (unreachable, 5xx, 429, 409 with
    Retry-After) are retried before the error is raised; ``None`` retries forever, as a
    bridge that must not lose a message does. `on_retry` is told about each retry (the
    error and the pause), for a log line or a progress message; `sleep` waits (a bridge
    passes one that a stop request interrupts).

    Examples
    --------
    >>> from cbeal.bridges import Client, ServiceUnreachable
    >>> client = Client("http://127.0.0.1:9", token=None, retry_for=0)
    >>> try:
    ...     client.call("GET", "/healthz")
    ... except ServiceUnreachable as exc:
    ...     print(str(exc).split(";")[0])
    cannot reach the cbeal service at http://127.0.0.1:9
    """

    def __init__(
        self,
        url: str,
        token: str | None,
        *,
        timeout: float = 60.0,
        retry_for: float | None = 30.0,
        on_retry: Callable[[ServiceError, float], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.url = url.rstrip("/")
        self.http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout)
        self.retry_for = retry_for
        self.on_retry = on_retry
        self.sleep = sleep

    def close(self) -> None:
        self.http.close()

    def call(self, method: str, path: str, *, retry_for: Any = ..., **kw: Any) -> Any:
        """Send one request; the JSON reply (None for 204), or a :class:`ServiceError`.

        `retry_for` overrides the client's retry time for this call.
        """
        limit = self.retry_for if retry_for is ... else retry_for
        deadline = None if limit is None else time.monotonic() + float(limit)
        pause = 0.25
        while True:
            try:
                return self._once(method, path, **kw)
            except ServiceError as exc:
                if not exc.transient:
                    raise
                wait = getattr(exc, "retry_after", None)
                wait = pause if wait is None else min(max(wait, 0.05), 30.0)
                if deadline is not None and time.monotonic() + wait > deadline:
                    raise
                if self.on_retry is not None:
                    self.on_retry(exc, wait)
                self.sleep(wait)
                pause = min(pause * 2.0, 10.0)

    def _once(self, method: str, path: str, **kw: Any) -> Any:
        import httpx

        try:
            r = self.http.request(method, path, **kw)
        except httpx.TimeoutException:
            raise ServiceBusy(
                f"the cbeal service at {self.url} did not answer {method} {path} in time; "
                "it may be overloaded",
                status=None,
                detail=None,
                retry_after=None,
            ) from None
        except httpx.TransportError as exc:
            raise ServiceUnreachable(
                f"cannot reach the cbeal service at {self.url}; is `cbeal serve` running "
                f"there? ({type(exc).__name__})"
            ) from None
        status = r.status_code
        if status < 400:
            return None if status == 204 or not r.content else r.json()
        detail = _detail(r)
        said = _one_line(detail)
        where = f"{method} {path}"
        if status in (401, 403):
            hint = (
                "it was sent no valid token: check $CBEAL_TOKEN; a token is known only to "
                "the server whose database it was created in: run `cbeal token create` in "
                "the folder where `cbeal serve` was started (its database is "
                "cbeal-service.db there) or pointed at the same database as the server "
                "(`cbeal serve` names its database when it starts)"
                if status == 401
                else "it was sent a token that may not do this: check $CBEAL_TOKEN's role "
                "and streams (`cbeal token list`)"
            )
            raise TokenRefused(
                f"the cbeal service refused {where} ({status}: {said}); {hint}",
                status=status,
                detail=detail,
            )
        if status == 404:
            raise NotFoundError(
                f"{where}: {said} (404); check the stream name (GET /api/v1/streams lists them)",
                status=status,
                detail=detail,
            )
        retry_after = _retry_after(r)
        if status >= 500 or status == 429 or (status == 409 and retry_after is not None):
            raise ServiceBusy(
                f"the cbeal service could not serve {where} now ({status}: {said}); "
                "it will be tried again",
                status=status,
                detail=detail,
                retry_after=retry_after,
            )
        raise Refused(
            f"the cbeal service refused {where} ({status}: {said})", status=status, detail=detail
        )
