"""Idempotency-Key on POST /notes and POST /chat: a retry gets the first response
and creates nothing; the key with another body is 422; keys expire."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from footnote.adapters.memory_idempotency import MemoryIdempotencyStore
from footnote.ports import IdempotencyRecord
from footnote.services.idempotency import IdempotencyService
from tests.inproc import Harness, envelope


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def h(clock: Clock) -> Harness:
    harness = Harness(quotas=True, QUOTA_CHAT_PER_MINUTE=5)
    c = harness.container
    c._built["idempotency"] = IdempotencyService(c.settings, MemoryIdempotencyStore(), clock)
    return harness


def _post(h: Harness, path: str, body: dict[str, Any], key: str | None, **headers: str) -> Any:
    if key is not None:
        headers["Idempotency-Key"] = key
    return h.call(
        "POST",
        path,
        "alice",
        data=json.dumps(body),
        headers={"Content-Type": "application/json", **headers},
    )


def test_a_retried_create_returns_the_first_response_and_stores_one_note(h: Harness) -> None:
    first = _post(h, "/notes", {"text": "Bought milk."}, "k-1")
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    again = _post(h, "/notes", {"text": "Bought milk."}, "k-1")
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert again.headers["Location"] == first.headers["Location"]
    assert again.headers["ETag"] == first.headers["ETag"]
    assert len(h.store.notes) == 1
    # Without a key, the same body is a new note, as before.
    assert _post(h, "/notes", {"text": "Bought milk."}, None).status_code == 201
    assert len(h.store.notes) == 2


def test_the_same_key_with_another_body_is_422_and_creates_nothing(h: Harness) -> None:
    assert _post(h, "/notes", {"text": "one"}, "k-2").status_code == 201
    other = _post(h, "/notes", {"text": "two"}, "k-2")
    assert other.status_code == 422
    assert envelope(other)["code"] == "idempotency_key_reused"
    assert [n.text for n in h.store.notes.values()] == ["one"]


def test_keys_belong_to_one_user_and_one_endpoint(h: Harness) -> None:
    assert _post(h, "/notes", {"text": "mine"}, "shared").status_code == 201
    bob = h.call(
        "POST", "/notes", "bob", json={"text": "mine"}, headers={"Idempotency-Key": "shared"}
    )
    assert bob.status_code == 201 and "Idempotent-Replayed" not in bob.headers
    assert len(h.store.notes) == 2


def test_a_key_expires_after_24_hours(h: Harness, clock: Clock) -> None:
    assert _post(h, "/notes", {"text": "daily"}, "k-3").status_code == 201
    clock.now += timedelta(hours=23, minutes=59)
    assert _post(h, "/notes", {"text": "daily"}, "k-3").headers.get("Idempotent-Replayed")
    assert len(h.store.notes) == 1
    clock.now += timedelta(minutes=2)
    late = _post(h, "/notes", {"text": "daily"}, "k-3")
    assert late.status_code == 201 and "Idempotent-Replayed" not in late.headers
    assert len(h.store.notes) == 2


def test_a_failed_request_is_not_remembered(h: Harness) -> None:
    bad = _post(h, "/notes", {"text": "   "}, "k-4")
    assert bad.status_code == 400
    fixed = _post(h, "/notes", {"text": "now with text"}, "k-4")
    assert fixed.status_code == 201 and "Idempotent-Replayed" not in fixed.headers


def test_a_request_still_running_answers_409_with_retry_after(h: Harness, clock: Clock) -> None:
    service = h.container.idempotency
    record = service.record_key("alice", "notes_create", "k-5")
    fingerprint = hashlib.sha256(b"json\n" + json.dumps({"text": "x"}).encode()).hexdigest()
    assert service.begin(record, fingerprint) is None  # another request holds the key
    busy = _post(h, "/notes", {"text": "x"}, "k-5")
    assert busy.status_code == 409 and busy.headers["Retry-After"] == "1"
    assert envelope(busy)["code"] == "idempotency_in_progress"
    assert h.store.notes == {}
    # The holder died: after its lease the key is taken over.
    clock.now += timedelta(minutes=6)
    taken = _post(h, "/notes", {"text": "x"}, "k-5")
    assert taken.status_code == 201 and "Idempotent-Replayed" not in taken.headers
    assert len(h.store.notes) == 1


@pytest.mark.parametrize("key", ["", "x" * 256, "caf\u00e9", "a b"])
def test_unusable_keys_are_400(h: Harness, key: str) -> None:
    response = _post(h, "/notes", {"text": "x"}, key)
    assert response.status_code == 400, response.get_data(as_text=True)
    assert h.store.notes == {}


def test_a_retried_chat_answers_once_and_is_charged_once(h: Harness) -> None:
    h.add_note("alice", "We chose Firestore for sync.")
    h.index_all()
    body = {"message": "What did we choose for sync?"}
    first = _post(h, "/chat", body, "c-1")
    assert first.status_code == 200
    again = _post(h, "/chat", body, "c-1")
    assert again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    conversation = first.get_json()["conversationId"]
    turns = h.call("GET", f"/conversations/{conversation}/messages", "alice").get_json()
    assert len(turns["messages"]) == 2  # one question, one answer
    key = next(k for k in h.container.quotas._counter.counts if k.startswith("alice:chat:"))  # type: ignore[attr-defined]
    assert h.container.quotas._counter.counts[key] == 1  # type: ignore[attr-defined]


def test_a_retried_streamed_chat_replays_the_stream(h: Harness) -> None:
    h.add_note("alice", "Revenue grew 12% in March.")
    h.index_all()
    stream = {"Accept": "text/event-stream"}
    first = _post(h, "/chat", {"message": "Revenue?"}, "s-1", **stream)
    text = first.get_data(as_text=True)
    assert "event: done" in text
    again = _post(h, "/chat", {"message": "Revenue?"}, "s-1", **stream)
    assert again.get_data(as_text=True) == text
    assert again.mimetype == "text/event-stream"
    # The same key asking for JSON this time is another request.
    assert _post(h, "/chat", {"message": "Revenue?"}, "s-1").status_code == 422


def test_the_memory_store_purges_an_expired_record_on_claim() -> None:
    store = MemoryIdempotencyStore()
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    old = IdempotencyRecord("a", t0, t0 + timedelta(hours=24))
    assert store.claim("k", old, t0, 300) is None
    assert store.claim("k", IdempotencyRecord("b", t0, t0), t0 + timedelta(seconds=1), 300) == old
    later = t0 + timedelta(hours=25)
    assert store.claim("k", IdempotencyRecord("b", later, later), later, 300) is None
    assert store.records["k"].fingerprint == "b"


def test_the_description_states_the_idempotency_key(h: Harness) -> None:
    spec = h.call("GET", "/openapi.json").get_json()
    for path in ("/notes", "/chat"):
        op = spec["paths"][path]["post"]
        params = {p["name"]: p for p in op["parameters"]}
        assert params["Idempotency-Key"]["in"] == "header"
        assert params["Idempotency-Key"]["schema"]["maxLength"] == 255
        assert {"409", "422"} <= set(op["responses"])
        success = op["responses"]["201" if path == "/notes" else "200"]
        assert "Idempotent-Replayed" in success["headers"]
