"""Quota counters in Firestore, so a limit holds across API instances.

One document per user and window (``quotas/{tenant}:{kind}:{window}``). No
transactions: a flood from one user would make them contend on one document
(the emulator aborts them with "Transaction lock timeout"; production throttles a
hot document). Instead:

1. read the counter; already at the limit → refused, nothing written (the cheap
   path a flood takes);
2. otherwise add with a server-side ``Increment`` and read the total back; if it
   passed the limit, subtract again and refuse.

A request is granted only if the total after its own increment is within the
limit, so the limit is never overshot; under concurrency a request near the limit
may be refused when a concurrent one was later rolled back (undershoot, never more
than the number of concurrent requests). ``expiresAt`` is the field of the
collection's TTL policy (infra/firestore.tf): finished windows are deleted.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

QUOTAS = "quotas"


class FirestoreQuotaCounter:
    def __init__(self, client: Any) -> None:
        from google.cloud import firestore

        self.client = client
        self._fs = firestore

    def _add(self, ref: Any, amount: int, expires_at: datetime | None) -> None:
        doc: dict[str, Any] = {"count": self._fs.Increment(amount)}
        if expires_at is not None:
            doc["expiresAt"] = expires_at
        ref.set(doc, merge=True)

    def consume(self, key: str, amount: int, limit: int, expires_at: datetime | None) -> int | None:
        ref = self.client.collection(QUOTAS).document(key)
        if amount <= 0:  # a release always applies
            self._add(ref, amount, expires_at)
            return self.value(key)
        if self.value(key) + amount > limit:
            return None
        self._add(ref, amount, expires_at)
        total = self.value(key)
        if total > limit:
            self._add(ref, -amount, None)
            return None
        return total

    def value(self, key: str) -> int:
        snap = self.client.collection(QUOTAS).document(key).get()
        count = (snap.to_dict() or {}).get("count", 0) if snap.exists else 0
        return max(int(count), 0)
