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
        self.details = details

    def envelope(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


class InvalidRequest(FootnoteError):
    status = 400
    code = "invalid_argument"


class Unauthenticated(FootnoteError):
    status = 401
    code = "unauthenticated"


class NotFound(FootnoteError):
    status = 404
    code = "not_found"


class MethodNotAllowed(FootnoteError):
    status = 405
    code = "method_not_allowed"


class Conflict(FootnoteError):
    status = 409
    code = "conflict"


class PayloadTooLarge(FootnoteError):
    status = 413
    code = "payload_too_large"


class UnsupportedMediaType(FootnoteError):
    status = 415
    code = "unsupported_media_type"


class BackendUnavailable(FootnoteError):
    """A dependency (embedder, index, generator, store) failed or timed out."""

    status = 503
    code = "unavailable"


class BadEvent(FootnoteError):
    """An event that can never be processed: acknowledged, logged, not retried."""

    status = 400
    code = "bad_event"
