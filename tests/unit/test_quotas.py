"""Per-user quotas through the real API and services (memory store, in process), and\nthe notes service's accounting of note writes on its own."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from footnote.adapters.memory_quota import MemoryQuotaCounter
from footnote.adapters.memory_store import MemoryStore
from footnote.domain import Note, NoteChanges, NoteEdit
from footnote.errors import NotFound, QuotaExceeded
from footnote.services.notes import NotesService
from footnote.services.quotas import QuotaService
from tests.inproc import Faulty, Harness, envelope, settings


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
    # Refused by the request model (blank text) before anything is reserved: nothing
    # kept. A store write failing after the reservation: the NotesService test below.
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


def test_a_failed_chat_spends_no_quota() -> None:
    """Someone else's conversation id is 404: nothing was done for the caller, so
    their minute's allowance is untouched."""
    h = Harness(quotas=True, QUOTA_CHAT_PER_MINUTE=2)
    convo = h.call("POST", "/chat", "bob", json={"message": "hi"}).get_json()["conversationId"]
    for _ in range(5):
        foreign = h.call("POST", "/chat", "alice", json={"message": "hi", "conversationId": convo})
        assert foreign.status_code == 404
    for _ in range(2):
        assert h.call("POST", "/chat", "alice", json={"message": "hi"}).status_code == 200
    assert h.call("POST", "/chat", "alice", json={"message": "hi"}).status_code == 429


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


# -- NotesService: the quota accounting of note writes, below the HTTP edge --------------


class RacingDelete(MemoryStore):
    """A memory store in which another request's work (``racer``) commits just before
    the next delete's transaction: the interleaving a read ahead of the delete would
    miss. Real store, one chosen schedule: no threads, so the test cannot flake."""

    def __init__(self) -> None:
        super().__init__()
        self.racer: Callable[[], object] | None = None

    def delete_note(
        self, tenant_id: str, note_id: str, if_match: frozenset[int] | None = None
    ) -> Note | None:
        racer, self.racer = self.racer, None
        if racer is not None:
            racer()
        return super().delete_note(tenant_id, note_id, if_match)


class RacingUpdate(MemoryStore):
    """As ``RacingDelete``, for the next update: ``racer`` commits after the service
    has read the note (to size its reservation) and before the update's transaction."""

    def __init__(self) -> None:
        super().__init__()
        self.racer: Callable[[], object] | None = None

    def update_note(
        self,
        tenant_id: str,
        note_id: str,
        changes: NoteChanges,
        now: datetime,
        if_match: frozenset[int] | None = None,
    ) -> NoteEdit | None:
        racer, self.racer = self.racer, None
        if racer is not None:
            racer()
        return super().update_note(tenant_id, note_id, changes, now, if_match)


def _service(
    store: MemoryStore | None = None, **limits: Any
) -> tuple[NotesService, MemoryStore, QuotaService]:
    s = settings(**limits)
    store = store if store is not None else MemoryStore()
    quotas = QuotaService(s, MemoryQuotaCounter())
    return NotesService(s, store, store, quotas=quotas), store, quotas


def test_a_create_over_the_stored_characters_is_refused_and_stores_nothing() -> None:
    notes, store, quotas = _service(QUOTA_STORED_CHARS=100)
    notes.create("alice", "a" * 60, None, None, None)
    with pytest.raises(QuotaExceeded) as caught:
        notes.create("alice", "b" * 41, None, None, None)
    assert caught.value.details["quota"] == "storedChars"
    assert [n.text for n in store.notes.values()] == ["a" * 60]
    assert quotas.stored_chars("alice") == 60
    notes.create("alice", "c" * 40, None, None, None)  # exactly up to the limit fits
    assert quotas.stored_chars("alice") == 100


def test_a_create_over_the_notes_per_day_is_refused_and_stores_nothing() -> None:
    notes, store, quotas = _service(QUOTA_NOTES_PER_DAY=2, QUOTA_STORED_CHARS=1000)
    notes.create("alice", "one", None, None, None)
    notes.create("alice", "two", None, None, None)
    with pytest.raises(QuotaExceeded) as caught:
        notes.create("alice", "three", None, None, None)
    assert caught.value.details["quota"] == "notesPerDay"
    assert len(store.notes) == 2
    assert quotas.stored_chars("alice") == len("one") + len("two")


def test_an_edit_that_grows_past_the_quota_is_refused_and_changes_nothing() -> None:
    notes, store, quotas = _service(QUOTA_STORED_CHARS=100)
    note_id = notes.create("alice", "a" * 60, "title", None, None).note.id
    before = store.notes[note_id]
    with pytest.raises(QuotaExceeded):
        notes.update("alice", note_id, {"text": "b" * 101, "title": "new title"})
    assert store.notes[note_id] == before
    assert quotas.stored_chars("alice") == 60
    # Growing within the limit counts the growth; shrinking gives characters back.
    notes.update("alice", note_id, {"text": "c" * 100})
    assert quotas.stored_chars("alice") == 100
    notes.update("alice", note_id, {"text": "d" * 10})
    assert quotas.stored_chars("alice") == 10
    notes.update("alice", note_id, {"title": "only the title"})
    assert quotas.stored_chars("alice") == 10


def test_a_delete_gives_its_characters_back_exactly() -> None:
    notes, _, quotas = _service(QUOTA_STORED_CHARS=1000)
    keep = notes.create("alice", "k" * 123, None, None, None).note.id
    gone = notes.create("alice", "g" * 456, None, None, None).note.id
    notes.create("bob", "b" * 789, None, None, None)
    notes.delete("alice", gone)
    assert quotas.stored_chars("alice") == 123
    assert quotas.stored_chars("bob") == 789
    with pytest.raises(NotFound):
        notes.delete("alice", gone)  # twice: nothing more given back
    with pytest.raises(NotFound):
        notes.delete("bob", keep)  # another user's note: not found, not counted
    assert (quotas.stored_chars("alice"), quotas.stored_chars("bob")) == (123, 789)
    notes.delete("alice", keep)
    assert quotas.stored_chars("alice") == 0


def test_a_delete_counts_the_note_it_deleted_not_an_earlier_read() -> None:
    """An edit (counted: 100 -> 300) commits after the delete request arrived but
    before the delete's transaction: the delete gives back 300, ending at exactly 0.
    A length read ahead of the delete would give back 100 and leave 200 counted."""
    store = RacingDelete()
    notes, _, quotas = _service(store, QUOTA_STORED_CHARS=1000)
    note_id = notes.create("alice", "a" * 100, None, None, None).note.id
    store.racer = lambda: notes.update("alice", note_id, {"text": "b" * 300})
    notes.delete("alice", note_id)
    assert store.racer is None  # the edit did run in between
    assert quotas.stored_chars("alice") == 0


@pytest.mark.parametrize(("racing", "mine"), [(300, 200), (300, 50), (10, 150)])
def test_an_edit_counts_the_text_its_update_replaced_not_an_earlier_read(
    racing: int, mine: int
) -> None:
    """Another edit of the note (100 -> ``racing`` chars) commits between this edit's
    read (100) and its update (to ``mine`` chars): the count ends at exactly ``mine``.
    Counting from the earlier read would leave it at ``racing`` + ``mine`` - 100.
    With a limit of 150, the racing shrink (10) still lets this edit to 150 in."""
    store = RacingUpdate()
    notes, _, quotas = _service(store, QUOTA_STORED_CHARS=1000 if racing > 150 else 150)
    note_id = notes.create("alice", "a" * 100, None, None, None).note.id
    store.racer = lambda: notes.update("alice", note_id, {"text": "b" * racing})
    notes.update("alice", note_id, {"text": "c" * mine})
    assert store.racer is None  # the other edit did run in between
    assert store.notes[note_id].text == "c" * mine
    assert quotas.stored_chars("alice") == mine
    notes.delete("alice", note_id)
    assert quotas.stored_chars("alice") == 0


def test_a_failed_store_write_gives_its_reservation_back() -> None:
    store = MemoryStore()
    failing = Faulty(store, ("create_note",))
    s = settings(QUOTA_NOTES_PER_DAY=1, QUOTA_STORED_CHARS=100)
    quotas = QuotaService(s, MemoryQuotaCounter())
    notes = NotesService(s, failing, store, quotas=quotas)
    failing.fail = RuntimeError("Firestore unavailable")
    with pytest.raises(RuntimeError):
        notes.create("alice", "a" * 100, None, None, None)
    assert failing.calls == 1 and store.notes == {}
    assert quotas.stored_chars("alice") == 0
    failing.fail = None
    notes.create("alice", "a" * 100, None, None, None)  # the day's one note, all 100 chars
