"""Idempotency keys in Firestore (``idempotencyKeys/{key}``), shared by every API
instance.

A key is claimed by creating its document (``create`` fails if it exists: one
claimer wins, no transaction). A record past ``expiresAt`` (the field of the
collection's TTL policy, infra/firestore.tf, which deletes it within a day or so)
or pending past its lease is purged when read, with a precondition on the version
read, so two purgers cannot delete a fresh claim.
"""

from __future__ import annotations

from contextlib import suppress
from datetime import datetime
from typing import Any

from footnote.adapters.memory_idempotency import _dead
from footnote.errors import Contention
from footnote.ports import IdempotencyRecord, StoredResponse

IDEMPOTENCY = "idempotencyKeys"


class FirestoreIdempotencyStore:
    def __init__(self, client: Any) -> None:
        self.client = client

    def claim(
        self, key: str, record: IdempotencyRecord, now: datetime, lease_s: float
    ) -> IdempotencyRecord | None:
        from google.api_core.exceptions import AlreadyExists, FailedPrecondition, NotFound

        ref = self.client.collection(IDEMPOTENCY).document(key)
        for _ in range(5):
            try:
                ref.create(_doc(record))
                return None
            except AlreadyExists:
                pass
            snap = ref.get()
            if not snap.exists:
                continue  # purged meanwhile: claim again
            found = _record(snap.to_dict() or {})
            if not _dead(found, now, lease_s):
                return found
            # Someone else may have purged or claimed it meanwhile: then look again.
            with suppress(FailedPrecondition, NotFound):
                ref.delete(option=self.client.write_option(last_update_time=snap.update_time))
        raise Contention("this Idempotency-Key")

    def complete(self, key: str, response: StoredResponse) -> None:
        self.client.collection(IDEMPOTENCY).document(key).update({"response": _response(response)})

    def release(self, key: str) -> None:
        self.client.collection(IDEMPOTENCY).document(key).delete()


def _doc(r: IdempotencyRecord) -> dict[str, Any]:
    return {
        "fingerprint": r.fingerprint,
        "tenantId": r.tenant_id,
        "startedAt": r.started_at,
        "expiresAt": r.expires_at,
        "response": None if r.response is None else _response(r.response),
    }


def _response(r: StoredResponse) -> dict[str, Any]:
    return {
        "status": r.status,
        "body": r.body,
        "mimetype": r.mimetype,
        "headers": [{"name": k, "value": v} for k, v in r.headers],
    }


def _record(d: dict[str, Any]) -> IdempotencyRecord:
    stored = d.get("response")
    response = None
    if isinstance(stored, dict):
        response = StoredResponse(
            status=int(stored["status"]),
            body=bytes(stored["body"]),
            mimetype=str(stored["mimetype"]),
            headers=tuple((h["name"], h["value"]) for h in stored.get("headers", [])),
        )
    return IdempotencyRecord(
        fingerprint=str(d.get("fingerprint", "")),
        started_at=d["startedAt"],
        expires_at=d["expiresAt"],
        response=response,
        tenant_id=str(d.get("tenantId", "")),
    )
