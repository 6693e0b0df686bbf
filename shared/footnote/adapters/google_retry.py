"""What every Google adapter shares: retries with backoff and jitter, endpoints, credentials.

The SDKs' own retry settings differ per client (google-genai retries nothing by
default; the GAPIC clients retry some methods, on some codes). Footnote turns
them off and retries every call the same way here: 429 and 5xx (and dropped
connections) are retried with exponential backoff and full jitter, within an
attempt limit and an optional deadline; anything else fails at once.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

from footnote.config import Settings
from footnote.errors import BackendUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})

# A local fake (tests, a developer's stub) is named by an http:// endpoint. It
# gets this token instead of an Application Default Credentials lookup.
LOCAL_TOKEN = "footnote-local-token"


def status_of(exc: BaseException) -> int | None:
    """The HTTP status behind an SDK exception, or None when there is none.

    google-genai raises ``errors.APIError`` (``.code`` is the HTTP status);
    google-api-core raises ``GoogleAPICallError`` (``.code`` is the HTTP status
    for REST, and the mapped HTTP status for gRPC).
    """
    code = getattr(exc, "code", None)
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def is_retryable(exc: BaseException) -> bool:
    status = status_of(exc)
    if status is not None:
        return status in RETRYABLE_STATUS
    return _is_transient_transport_error(exc)


def _is_transient_transport_error(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    # httpx (google-genai), requests/urllib3 (GAPIC REST): connection dropped or reset.
    transient = {
        "ConnectError",
        "RemoteProtocolError",
        "ReadError",
        "ConnectionError",
        "ProtocolError",
        "ChunkedEncodingError",
        "ServiceUnavailable",
    }
    return bool(names & transient)


@dataclass
class RetryPolicy:
    """Exponential backoff with full jitter: sleep U(0, min(max, initial·2^n))."""

    attempts: int = 5
    initial_s: float = 0.5
    max_s: float = 10.0
    multiplier: float = 2.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    rand: Callable[[], float] = field(default=random.random, repr=False)

    @classmethod
    def from_settings(cls, s: Settings) -> RetryPolicy:
        return cls(
            attempts=s.google_retry_attempts,
            initial_s=s.google_retry_initial_ms / 1000,
            max_s=s.google_retry_max_ms / 1000,
        )

    def delay(self, retry_number: int) -> float:
        cap = min(self.max_s, self.initial_s * self.multiplier**retry_number)
        return cap * self.rand()

    def call(self, what: str, fn: Callable[[], T], deadline_s: float | None = None) -> T:
        """Run ``fn``, retrying retryable failures; ``deadline_s`` bounds the whole call."""
        started = time.monotonic()
        for attempt in range(self.attempts):
            try:
                return fn()
            except Exception as exc:
                last = attempt == self.attempts - 1
                if last or not is_retryable(exc):
                    raise
                pause = self.delay(attempt)
                if deadline_s is not None and time.monotonic() - started + pause >= deadline_s:
                    raise
                log.warning(
                    "%s failed (%s, status %s); retry %d/%d in %.2fs",
                    what,
                    type(exc).__name__,
                    status_of(exc),
                    attempt + 1,
                    self.attempts - 1,
                    pause,
                )
                self.sleep(pause)
        raise AssertionError("unreachable")  # pragma: no cover


@cache
def sdk_errors() -> tuple[type[BaseException], ...]:
    """What the Google SDKs raise when the service or the network fails, beyond
    OSError (sockets, timeouts, requests' errors), which services catch as it is:
    API errors (any status, after the retries), credentials that cannot be fetched,
    httpx transport errors (google-genai). A TypeError or KeyError is not among them."""
    import httpx
    from google.api_core import exceptions as api_core
    from google.auth import exceptions as auth
    from google.genai import errors as genai

    return (
        api_core.GoogleAPIError,
        genai.APIError,
        auth.GoogleAuthError,
        httpx.HTTPError,
    )


@contextmanager
def unavailable_on_sdk_errors(what: str) -> Iterator[None]:
    """Re-raise the SDK's and the network's errors as BackendUnavailable, the error a
    service's fallback catches (services never import an SDK); bugs pass unchanged."""
    try:
        yield
    except BackendUnavailable:
        raise
    except sdk_errors() as exc:
        raise BackendUnavailable(f"{what} failed: {type(exc).__name__}: {exc}") from exc


def is_local(endpoint: str) -> bool:
    return endpoint.startswith("http://")


def credentials_for(endpoint: str, credentials: Any = None) -> Any:
    """Credentials for a client: the given ones, a static token for a local fake,
    else None (the SDK then uses Application Default Credentials)."""
    if credentials is not None:
        return credentials
    if is_local(endpoint):
        from google.oauth2.credentials import Credentials

        return Credentials(token=LOCAL_TOKEN)  # type: ignore[no-untyped-call]
    return None


def gapic_client_options(endpoint: str) -> dict[str, Any] | None:
    return {"api_endpoint": endpoint} if endpoint else None


def gapic_transport(endpoint: str) -> str:
    """Always REST: the transport the wire fakes speak is the one production uses."""
    return "rest"


def resource_name(value: str, project: str, location: str, collection: str) -> str:
    """A full resource name from either a full name or a bare id."""
    if value.startswith("projects/"):
        return value
    return f"projects/{project}/locations/{location}/{collection}/{value}"
