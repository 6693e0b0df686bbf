"""One contract for the IdempotencyStore port: in memory, and Firestore on the emulator."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from footnote.ports import IdempotencyRecord, IdempotencyStore, StoredResponse

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
LEASE_S = 300.0


@pytest.fixture(params=["memory", pytest.param("firestore", marks=pytest.mark.stack)])
def store(request: pytest.FixtureRequest) -> IdempotencyStore:
    if request.param == "memory":
        from footnote.adapters.memory_idempotency import MemoryIdempotencyStore

        return MemoryIdempotencyStore()
    from footnote.adapters.firestore_idempotency import FirestoreIdempotencyStore

    return FirestoreIdempotencyStore(request.getfixturevalue("direct_firestore_client"))


def _record(fingerprint: str, at: datetime = T0) -> IdempotencyRecord:
    return IdempotencyRecord(fingerprint, at, at + timedelta(hours=24))


def test_one_claim_wins_and_the_response_is_kept(store: IdempotencyStore) -> None:
    assert isinstance(store, IdempotencyStore)
    key = uuid.uuid4().hex
    assert store.claim(key, _record("a"), T0, LEASE_S) is None
    pending = store.claim(key, _record("b"), T0, LEASE_S)
    assert pending is not None and pending.fingerprint == "a" and pending.response is None
    response = StoredResponse(201, b'{"id":"n1"}', "application/json", (("ETag", '"1"'),))
    store.complete(key, response)
    done = store.claim(key, _record("a"), T0 + timedelta(hours=1), LEASE_S)
    assert done is not None and done.response == response


def test_expired_and_abandoned_claims_are_purged_on_claim(store: IdempotencyStore) -> None:
    key = uuid.uuid4().hex
    assert store.claim(key, _record("a"), T0, LEASE_S) is None
    store.complete(key, StoredResponse(200, b"{}", "application/json"))
    later = T0 + timedelta(hours=24, seconds=1)
    assert store.claim(key, _record("b", later), later, LEASE_S) is None  # expired: purged
    stuck = store.claim(key, _record("c", later), later + timedelta(seconds=10), LEASE_S)
    assert stuck is not None and stuck.fingerprint == "b"  # pending, within its lease
    after_lease = later + timedelta(seconds=LEASE_S + 1)
    assert store.claim(key, _record("c", after_lease), after_lease, LEASE_S) is None
    released = uuid.uuid4().hex
    assert store.claim(released, _record("x"), T0, LEASE_S) is None
    store.release(released)
    assert store.claim(released, _record("y"), T0, LEASE_S) is None
