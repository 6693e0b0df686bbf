"""One exception tree. Each error knows its HTTP status and a stable code.

Messages are written for the caller and never carry note text or secrets.
"""

from __future__ import annotations

from typing import Any


class FootnoteError(Exception):
    status = 500
    code = "internal"

    def __init__(self, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details  # the API writes all three in its error envelope (api/wire.py)


class InvalidRequest(FootnoteError):
    status = 400
    code = "invalid_argument"


class MalformedBody(InvalidRequest):
    """The body's framing is broken (a bad chunk size in ``Transfer-Encoding:
    chunked``): it cannot be read, so nothing was stored."""


class ClientClosedRequest(FootnoteError):
    """The client went away before its body arrived whole. Nothing was stored and no
    one reads the answer: logged as the client's doing, with the 499 of the common
    convention (nginx's "client closed request"), not as a server error."""

    status = 499
    code = "client_closed_request"


class Unauthenticated(FootnoteError):
    status = 401
    code = "unauthenticated"


class Forbidden(FootnoteError):
    """The caller named something that is plainly not theirs (a file outside their
    own ``users/{uid}/`` prefix): refused on the name alone, so nothing is learnt
    about whether it exists."""

    status = 403
    code = "permission_denied"


class NotFound(FootnoteError):
    status = 404
    code = "not_found"


class MethodNotAllowed(FootnoteError):
    status = 405
    code = "method_not_allowed"

    def __init__(self, message: str, allowed: tuple[str, ...] = ()) -> None:
        super().__init__(message, {"allowed": list(allowed)} if allowed else None)
        self.allowed = allowed  # the API sends them in an Allow header (RFC 9110)


class Conflict(FootnoteError):
    status = 409
    code = "conflict"


class PreconditionFailed(FootnoteError):
    """``If-Match`` named a version of the note that is no longer current: nothing
    was changed. ``current`` is the note as it is now (a ``domain.Note``), which the
    API returns in ``details`` so the client can merge without another read."""

    status = 412
    code = "precondition_failed"

    def __init__(self, current: Any, details: Any = None) -> None:
        super().__init__("the note has changed since that version (If-Match)", details)
        self.current = current


class SyncTokenExpired(FootnoteError):
    """A change-feed token older than the deletions kept: the client must sync in
    full (``GET /notes/changes`` without ``since``)."""

    status = 410
    code = "sync_token_expired"


class IdempotencyKeyReused(FootnoteError):
    """An ``Idempotency-Key`` sent again with another request than the first."""

    status = 422
    code = "idempotency_key_reused"


class IdempotencyInProgress(Conflict):
    """The first request with this ``Idempotency-Key`` is still running: retry after
    ``retry_after`` seconds to get its response."""

    code = "idempotency_in_progress"
    retry_after = 1


class MalformedNote(FootnoteError):
    """A stored note that does not have the shape the API writes (written behind the
    API's back, e.g. with admin credentials): it cannot be indexed or served, and
    retrying will not change that."""

    status = 409
    code = "malformed_note"

    def __init__(self, note_id: str, problem: str, tenant_id: str = "") -> None:
        super().__init__(f"note {note_id} is malformed: {problem}", {"noteId": note_id})
        self.note_id = note_id
        self.problem = problem
        self.tenant_id = tenant_id


class PayloadTooLarge(FootnoteError):
    status = 413
    code = "payload_too_large"


class UnsupportedMediaType(FootnoteError):
    status = 415
    code = "unsupported_media_type"


class QuotaExceeded(FootnoteError):
    """A per-user quota is used up: 429 with Retry-After; nothing was done."""

    status = 429
    code = "quota_exceeded"

    def __init__(self, message: str, quota: str, limit: int, retry_after: int) -> None:
        super().__init__(
            message, {"quota": quota, "limit": limit, "retryAfterSeconds": retry_after}
        )
        self.retry_after = retry_after


class BackendUnavailable(FootnoteError):
    """A dependency (embedder, index, generator, store) failed or timed out."""

    status = 503
    code = "unavailable"


class SearchUnavailable(BackendUnavailable):
    """A candidate source (Vector Search, Firestore vector search, the in-memory
    index) could not answer a query: the error of the retriever's candidate-source
    port (``retrieval/candidates.py``). The retriever asks the next source and names
    it in ``meta.fallbacks``; when no source is left, the request fails with 503
    (the client sees ``unavailable``, as for any dependency)."""


class QuotaExhausted(BackendUnavailable):
    """A Google API kept answering RESOURCE_EXHAUSTED (its quota) for the whole time a
    write may wait (``GOOGLE_QUOTA_WAIT_S``). Transient by nature: the indexer leaves
    the note pending and raises, so the event is delivered again after the trigger's
    or the subscription's own backoff; nothing is marked failed."""

    code = "resource_exhausted"


class Contention(FootnoteError):
    """Other requests held the same records (two edits of one note at once, say) and
    the store gave up after its retries. Nothing was changed; the client retries
    after ``retry_after`` seconds (503 with Retry-After)."""

    status = 503
    code = "contention"
    retry_after = 1

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} is being changed by another request; try again", None)


class BadEvent(FootnoteError):
    """An event that can never be processed: acknowledged, logged, not retried."""

    status = 400
    code = "bad_event"


# What a fallback catches: a dependency that failed (adapters raise BackendUnavailable
# for their SDK's errors) or the network (OSError: ConnectionError, TimeoutError,
# socket and requests errors). Anything else is a bug and must surface as one.
UPSTREAM_ERRORS: tuple[type[Exception], ...] = (BackendUnavailable, OSError)

# What a port raises when its backend failed or gave up: an outage or the network
# (UPSTREAM_ERRORS), or a store whose transaction lost to other writers for all its
# retries (Contention). What a service may record and leave to a retry (the indexer
# marks the note failed, an import leaves it to its trigger event); anything else is
# a bug, which surfaces as itself and is never recorded as the note's failure.
PORT_ERRORS: tuple[type[Exception], ...] = (*UPSTREAM_ERRORS, Contention)
