"""What every Google adapter shares: retries with backoff and jitter, endpoints, credentials.

The SDKs' own retry settings differ per client (google-genai retries nothing by
default; the GAPIC clients retry some methods, on some codes). Footnote turns
them off and retries every call the same way here, through google-api-core's
own retry loop (``retry_target`` with ``exponential_sleep_generator``: capped
exponential backoff with full jitter, the algorithm the GAPIC clients use): 429
and 5xx (and dropped connections) are retried within an attempt limit and an
optional deadline; anything else fails at once.

``RESOURCE_EXHAUSTED`` (HTTP 429, gRPC code 8) is a quota, not a fault. A call
that writes (embedding chunks, Vector Search upserts and removals) passes
``wait_out_quota``: a quota error is then retried past the attempt limit, for up
to ``quota_wait_s`` seconds, and when that budget is spent the call raises
``QuotaExhausted``, which the indexer answers by leaving the note pending and
raising, so Eventarc or Pub/Sub delivers the event again later (their own
backoff) instead of the note being marked failed.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from footnote.config import Settings
from footnote.errors import BackendUnavailable, Contention, QuotaExhausted

log = logging.getLogger(__name__)

T = TypeVar("T")
C = TypeVar("C", bound=type)

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})
RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"  # gRPC status code 8

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


def is_quota_exhausted(exc: BaseException) -> bool:
    """A quota error: HTTP 429, or the gRPC status RESOURCE_EXHAUSTED (code 8).

    google-api-core maps gRPC code 8 to ``ResourceExhausted`` (``.code`` 429, and
    ``grpc_status_code``) and a REST 429 to ``TooManyRequests``; google-genai's
    ``ClientError`` carries the HTTP code and the status name."""
    if status_of(exc) == 429:
        return True
    grpc_code = getattr(exc, "grpc_status_code", None)
    if grpc_code is not None and getattr(grpc_code, "name", None) == RESOURCE_EXHAUSTED:
        return True
    return getattr(exc, "status", None) == RESOURCE_EXHAUSTED


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
    """Exponential backoff with full jitter: sleep U(0, min(max, initial·2^n)).

    ``attempts`` bounds every retryable failure; with ``wait_out_quota`` a quota
    error is instead retried until ``quota_wait_s`` has passed (0: as any other)."""

    attempts: int = 5
    initial_s: float = 0.5
    max_s: float = 10.0
    multiplier: float = 2.0
    quota_wait_s: float = 0.0

    @classmethod
    def from_settings(cls, s: Settings) -> RetryPolicy:
        return cls(
            attempts=s.google_retry_attempts,
            initial_s=s.google_retry_initial_ms / 1000,
            max_s=s.google_retry_max_ms / 1000,
            quota_wait_s=s.google_quota_wait_s,
        )

    def call(
        self,
        what: str,
        fn: Callable[[], T],
        deadline_s: float | None = None,
        *,
        wait_out_quota: bool = False,
    ) -> T:
        """Run ``fn``, retrying retryable failures; ``deadline_s`` bounds the whole
        call. ``wait_out_quota``: a write that a quota refuses keeps backing off for
        ``quota_wait_s`` seconds, then raises ``QuotaExhausted``."""
        from google.api_core.retry import (
            RetryFailureReason,
            exponential_sleep_generator,
            retry_target,
        )

        patient = wait_out_quota and self.quota_wait_s > 0
        failures = 0

        def retryable(exc: Exception) -> bool:
            nonlocal failures
            failures += 1
            if patient and is_quota_exhausted(exc):
                return True  # bounded by the timeout below, not by the attempts
            return failures < self.attempts and is_retryable(exc)

        def log_retry(exc: Exception) -> None:
            log.warning(
                "%s failed (%s, status %s); retry %d",
                what,
                type(exc).__name__,
                status_of(exc),
                failures,
            )

        def give_up(
            errors: list[Exception], reason: RetryFailureReason, _timeout: float | None
        ) -> tuple[Exception, Exception | None]:
            last = errors[-1]
            if patient and reason is RetryFailureReason.TIMEOUT and is_quota_exhausted(last):
                waited = f"{self.quota_wait_s:g}"
                problem = f"{what}: quota exhausted (RESOURCE_EXHAUSTED) for {waited} s, {len(errors)} tries"
                return QuotaExhausted(problem), last
            return last, None  # the SDK's own error, as if there had been no retry

        timeout = deadline_s
        if patient:
            timeout = (
                self.quota_wait_s if deadline_s is None else min(deadline_s, self.quota_wait_s)
            )
        result: T = retry_target(
            fn,
            retryable,
            exponential_sleep_generator(self.initial_s, self.max_s, self.multiplier),
            timeout=timeout,
            on_error=log_retry,
            exception_factory=give_up,
        )
        return result


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


def port_errors_only(cls: C) -> C:
    """Make every public method of a Firestore adapter raise its port's errors: the
    SDK's and the network's as ``BackendUnavailable`` (``unavailable_on_sdk_errors``),
    and a transaction that lost to other writers for all its attempts (the SDK's
    ``ValueError`` from ``Aborted``) as ``Contention``. So a service records or
    retries a failed backend by the errors it knows (``errors.PORT_ERRORS``), and a
    bug (a TypeError, a KeyError, a ValueError of our own) passes unchanged.

    Applied to the methods ``cls`` defines itself (a subclass's own methods are
    wrapped where it is defined); a method that yields is wrapped as it runs."""
    for name, fn in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(fn):
            setattr(cls, name, _raising_port_errors(fn, f"{cls.__name__}.{name}"))
    return cls


def _raising_port_errors(fn: Callable[..., Any], what: str) -> Callable[..., Any]:
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def pages(*args: Any, **kwargs: Any) -> Iterator[Any]:
            with _port_errors(what):
                yield from fn(*args, **kwargs)

        return pages

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        with _port_errors(what):
            return fn(*args, **kwargs)

    return call


@contextmanager
def _port_errors(what: str) -> Iterator[None]:
    from google.api_core.exceptions import Aborted

    try:
        with unavailable_on_sdk_errors(what):
            yield
    except ValueError as exc:
        if isinstance(exc.__cause__, Aborted):  # the SDK's "failed to commit in n attempts"
            raise Contention("a record this request writes") from exc
        raise


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


def gapic_client(client_class: Any, endpoint: str, credentials: Any = None) -> Any:
    """A generated (GAPIC) client at ``endpoint`` (empty: Google's public one), always
    over REST: the transport the wire fakes speak is the one production uses."""
    return client_class(
        credentials=credentials_for(endpoint, credentials),
        transport="rest",
        client_options={"api_endpoint": endpoint} if endpoint else None,
    )


def resource_name(value: str, project: str, location: str, collection: str) -> str:
    """A full resource name from either a full name or a bare id."""
    if value.startswith("projects/"):
        return value
    return f"projects/{project}/locations/{location}/{collection}/{value}"
