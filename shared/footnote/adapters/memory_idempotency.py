"""Idempotency keys in process memory: one API instance (tests, NOTE_STORE=memory)."""

from __future__ import annotations

import dataclasses
import threading
from datetime import datetime, timedelta

from footnote.ports import IdempotencyRecord, StoredResponse


class MemoryIdempotencyStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.records: dict[str, IdempotencyRecord] = {}

    def claim(
        self, key: str, record: IdempotencyRecord, now: datetime, lease_s: float
    ) -> IdempotencyRecord | None:
        with self._lock:
            found = self.records.get(key)
            if found is not None and not _dead(found, now, lease_s):
                return found
            self.records[key] = record
            return None

    def complete(self, key: str, response: StoredResponse) -> None:
        with self._lock:
            found = self.records.get(key)
            if found is not None:
                self.records[key] = dataclasses.replace(found, response=response)

    def release(self, key: str) -> None:
        with self._lock:
            self.records.pop(key, None)


def _dead(record: IdempotencyRecord, now: datetime, lease_s: float) -> bool:
    """Expired, or pending past its lease (the request that claimed it died)."""
    if record.expires_at <= now:
        return True
    return record.response is None and record.started_at + timedelta(seconds=lease_s) <= now
