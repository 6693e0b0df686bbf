"""Per-user quotas through the real API and services (memory store, in process)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from footnote.adapters.memory_quota import MemoryQuotaCounter
from footnote.errors import QuotaExceeded
from footnote.services.quotas import QuotaService
from tests.inproc import Harness, envelope, settings


def _quota_error(response) -> dict[str, Any]:
    assert response.status_code == 429, response.get_data(as_text=True)
    error = envelope(response)
    assert error["code"] == "quota_exceeded"
    retry_after = int(response.headers["Retry-After"])
    assert retry_after >= 1
    assert error["details"]["retryAfterSeconds"] == retry_after
    return error


@pytest.mark.parametrize(
    ("endpoint", "body"), [("chat", {"message": "Firestore?"}), ("search", {"query": "Firestore"})]
)
def test_requests_per_minute_answer_429_and_leave_other_users_alone(
    endpoint: str, body: dict[str, str]
) -> None:
    h = Harness(quotas=True, QUOTA_CHAT_PER_MINUTE=3, QUOTA_SEARCH_PER_MINUTE=3)
    h.add_note("alice", "We chose Firestore for the notes store.")
    statuses = [h.call("POST", f"/{endpoint}", "alice", json=body).status_code for _ in range(5)]
    # A window boundary between the calls would reset the count: at most one reset.
    assert statuses.count(200) in (3, 4, 5) and statuses[:3] == [200, 200, 200], statuses
    if statuses.count(429):
        error = _quota_error(h.call("POST", f"/{endpoint}", "alice", json=body))
        assert error["details"]["quota"] == f"{endpoint}PerMinute"
        assert int(h.call("POST", f"/{endpoint}", "alice", json=body).headers["Retry-After"]) <= 60
    assert h.call("POST", f"/{endpoint}", "bob", json=body).status_code == 200


def test_notes_per_day_stop_at_the_limit_and_store_nothing_more() -> None:
    h = Harness(quotas=True, QUOTA_NOTES_PER_DAY=3)
    for i in range(3):
        h.add_note("alice", f"Note number {i} about pricing.")
    error = _quota_error(h.call("POST", "/notes", "alice", json={"text": "one too many"}))
    assert error["details"]["quota"] == "notesPerDay"
    assert len([n for n in h.store.notes.values() if n.tenant_id == "alice"]) == 3
    h.add_note("bob", "Bob is not limited by Alice's notes.")


def test_stored_characters_count_creates_edits_and_deletes() -> None:
    h = Harness(quotas=True, QUOTA_STORED_CHARS=1000)
    first = h.add_note("alice", "a" * 600)
    error = _quota_error(h.call("POST", "/notes", "alice", json={"text": "b" * 500}))
    assert error["details"]["quota"] == "storedChars"
    assert len(h.store.notes) == 1  # nothing stored
    # Growing a note past the limit is refused and changes nothing.
    _quota_error(h.call("PATCH", f"/notes/{first}", "alice", json={"text": "c" * 1200}))
    assert h.store.notes[first].text == "a" * 600
    # Shrinking frees room; deleting frees the rest.
    assert h.call("PATCH", f"/notes/{first}", "alice", json={"text": "d" * 200}).status_code == 200
    assert h.container.quotas.stored_chars("alice") == 200
    second = h.add_note("alice", "e" * 800)
    assert h.container.quotas.stored_chars("alice") == 1000
    assert h.call("DELETE", f"/notes/{second}", "alice").status_code == 204
    assert h.container.quotas.stored_chars("alice") == 200


def test_a_failed_write_gives_its_reservation_back() -> None:
    h = Harness(quotas=True, QUOTA_NOTES_PER_DAY=2, QUOTA_STORED_CHARS=1000)
    # Rejected by the service after the reservation (blank text): nothing kept.
    for _ in range(5):
        assert h.call("POST", "/notes", "alice", json={"text": "   "}).status_code == 400
    assert h.container.quotas.stored_chars("alice") == 0
    h.add_note("alice", "first")
    h.add_note("alice", "second")


def test_windows_reset_and_retry_after_points_at_the_next_one() -> None:
    now = [datetime(2026, 11, 23, 15, 30, 50, tzinfo=UTC)]
    quotas = QuotaService(settings(QUOTA_CHAT_PER_MINUTE=2), MemoryQuotaCounter(), lambda: now[0])
    quotas.charge_request("alice", "chat")
    quotas.charge_request("alice", "chat")
    with pytest.raises(QuotaExceeded) as caught:
        quotas.charge_request("alice", "chat")
    assert caught.value.retry_after == 10
    now[0] += timedelta(seconds=10)
    quotas.charge_request("alice", "chat")  # a new minute


def test_quotas_set_to_zero_are_off() -> None:
    h = Harness(quotas=True, QUOTA_CHAT_PER_MINUTE=0)
    for _ in range(20):
        assert h.call("POST", "/chat", "alice", json={"message": "hi"}).status_code == 200


def test_concurrent_requests_of_one_user_do_not_overshoot() -> None:
    """Margin: zero. Every counter change is atomic, in memory as in Firestore."""
    frozen = datetime(2026, 11, 23, 15, 30, 5, tzinfo=UTC)
    quotas = QuotaService(
        settings(QUOTA_SEARCH_PER_MINUTE=25), MemoryQuotaCounter(), lambda: frozen
    )
    allowed = []
    lock = threading.Lock()

    def one(_: int) -> None:
        try:
            quotas.charge_request("alice", "search")
        except QuotaExceeded:
            return
        with lock:
            allowed.append(1)

    with ThreadPoolExecutor(20) as pool:
        list(pool.map(one, range(200)))
    assert len(allowed) == 25
