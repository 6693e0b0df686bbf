"""Idempotent requests: a retry with the same ``Idempotency-Key`` gets the first
response and does nothing again.

A key belongs to one user and one endpoint (``POST /notes``, ``POST /chat``): the
record's name is a hash of the three, so users and endpoints never collide and no
key is stored as sent. The first request claims the key (pending) and, when it
succeeds, stores its response; a retry with the same request (same body bytes)
gets that response back; with another body it is 422; while the first still runs
it is 409 with Retry-After. A failed request (any 4xx or 5xx) is not remembered:
its claim is released, so the retry runs again (nothing was stored by it).

Records live ``IDEMPOTENCY_TTL_HOURS`` (24 h): an older record is purged when read
(and deleted by the store's TTL policy in production), and the key can be used
again. A claim whose request died without releasing it (the process was killed)
is taken over after ``_LEASE_S``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from footnote.config import Settings
from footnote.errors import IdempotencyInProgress, IdempotencyKeyReused, InvalidRequest
from footnote.ports import IdempotencyRecord, IdempotencyStore, StoredResponse

KEY_MAX_CHARS = 255
# Longer than any request may run (the functions' timeout is 60 s): a pending claim
# older than this belongs to a request that died.
_LEASE_S = 300.0


class IdempotencyService:
    def __init__(
        self,
        settings: Settings,
        store: IdempotencyStore,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._ttl = timedelta(hours=settings.idempotency_ttl_hours)
        self._store = store
        self._clock = clock

    @staticmethod
    def check_key(key: str) -> str:
        """A usable key: 1-255 visible ASCII characters (a UUID, say)."""
        if not 0 < len(key) <= KEY_MAX_CHARS or not all(" " < c <= "~" for c in key):
            raise InvalidRequest(
                f"Idempotency-Key must be 1-{KEY_MAX_CHARS} visible ASCII characters"
            )
        return key

    @staticmethod
    def record_key(tenant_id: str, endpoint: str, key: str) -> str:
        return hashlib.sha256(f"{tenant_id}\n{endpoint}\n{key}".encode()).hexdigest()

    def begin(
        self, record_key: str, fingerprint: str, tenant_id: str = ""
    ) -> StoredResponse | None:
        """None: this request holds the key now and runs (then ``complete`` or
        ``release``). A response: the first request's, to answer with."""
        now = self._clock()
        mine = IdempotencyRecord(fingerprint, now, now + self._ttl, tenant_id=tenant_id)
        found = self._store.claim(record_key, mine, now, _LEASE_S)
        if found is None:
            return None
        if found.fingerprint != fingerprint:
            raise IdempotencyKeyReused(
                "this Idempotency-Key was used with another request: use a new key "
                "for a new request"
            )
        if found.response is None:
            raise IdempotencyInProgress(
                "the first request with this Idempotency-Key is still running; retry"
            )
        return found.response

    def complete(self, record_key: str, response: StoredResponse) -> None:
        self._store.complete(record_key, response)

    def release(self, record_key: str) -> None:
        self._store.release(record_key)
