"""Quota counters in process memory: one API instance (tests, NOTE_STORE=memory)."""

from __future__ import annotations

import threading
from datetime import datetime


class MemoryQuotaCounter:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: dict[str, int] = {}

    def consume(self, key: str, amount: int, limit: int, expires_at: datetime | None) -> int | None:
        with self._lock:
            total = self.counts.get(key, 0) + amount
            if amount > 0 and total > limit:
                return None
            self.counts[key] = max(total, 0)
            return self.counts[key]

    def value(self, key: str) -> int:
        with self._lock:
            return self.counts.get(key, 0)
