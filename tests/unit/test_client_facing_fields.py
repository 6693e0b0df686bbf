"""Fields the web client needs to show what is true: each listed note's index state,
the conversation a stream answers in, and how a stored answer was found."""

from __future__ import annotations

import json
from typing import Any

from footnote.api import schemas
from footnote.domain import IndexState, IndexStatus
from tests.inproc import Harness


def _statuses(h: Harness, tenant: str) -> dict[str, str | None]:
    response = h.call("GET", "/notes?limit=10", tenant)
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    schemas.NotePage.model_validate(body)
    return {n["id"]: n.get("indexStatus") for n in body["notes"]}


def test_the_notes_list_carries_each_notes_current_index_state() -> None:
    h = Harness()
    first = h.add_note("alice", "We chose Firestore for sync.")
    second = h.add_note("alice", "Revenue grew 12% in March.")
    assert _statuses(h, "alice") == {first: "pending", second: "pending"}

    h.index_all()
    assert _statuses(h, "alice") == {first: "indexed", second: "indexed"}

    # An edit makes it pending again; a failure is listed as failed.
    assert (
        h.call("PATCH", f"/notes/{first}", "alice", json={"text": "Postgres."}).status_code == 200
    )
    h.store.set_index_state(IndexState(second, "alice", IndexStatus.FAILED, error="boom"))
    assert _statuses(h, "alice") == {first: "pending", second: "failed"}
    # ... and the same as GET /notes/{id} says, note by note
    for note_id, status in _statuses(h, "alice").items():
        assert h.call("GET", f"/notes/{note_id}", "alice").get_json()["indexStatus"] == status


def _fed_statuses(h: Harness, tenant: str) -> dict[str, tuple[str | None, str | None]]:
    response = h.call("GET", "/notes/changes?limit=10", tenant)
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    schemas.ChangePage.model_validate(body)
    return {
        c["id"]: (c["note"].get("indexStatus"), c["note"].get("memoryType"))
        for c in body["changes"]
        if not c["deleted"]
    }


def test_the_change_feed_carries_each_notes_index_state_as_the_list_does() -> None:
    """A note that reaches the client by the feed (an import, another device) shows
    its state like a listed one, not none until the poller asks."""
    h = Harness()
    first = h.add_note("alice", "We decided to ship the beta on Friday.")
    second = h.add_note("alice", "Revenue grew 12% in March.")
    assert _fed_statuses(h, "alice") == {first: ("pending", None), second: ("pending", None)}

    h.index_all()
    h.store.set_index_state(IndexState(second, "alice", IndexStatus.FAILED, error="boom"))
    fed = _fed_statuses(h, "alice")
    assert fed[first][0] == "indexed" and fed[first][1] is not None  # and its indexed type
    assert fed[second] == ("failed", None)
    assert {i: s for i, (s, _) in fed.items()} == _statuses(h, "alice")


def test_a_note_without_a_recorded_state_is_listed_pending() -> None:
    h = Harness()
    note_id = h.add_note("alice", "Call the bank on Monday.")
    del h.store.states[note_id]
    assert _statuses(h, "alice") == {note_id: "pending"}


def _events(raw: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def _stream(h: Harness, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    response = h.call("POST", "/chat", "alice", json=body, headers={"Accept": "text/event-stream"})
    assert response.status_code == 200, response.get_data(as_text=True)
    return _events(response.get_data(as_text=True))


def test_a_streams_meta_names_the_conversation_before_the_answer() -> None:
    h = Harness()
    h.add_note("alice", "Firestore stores the notes and the conversations.")
    h.index_all()
    events = _stream(h, {"message": "Where are the notes stored?"})
    (name, meta), (last, done) = events[0], events[-1]
    assert name == "meta" and last == "done"
    assert meta["conversationId"], meta  # a new conversation is named at once
    assert done["conversationId"] == meta["conversationId"]
    # A follow-up in it keeps the same id from the start.
    again = _stream(
        h, {"message": "And the conversations?", "conversationId": done["conversationId"]}
    )
    assert again[0][1]["conversationId"] == again[-1][1]["conversationId"] == meta["conversationId"]
    listed = h.call("GET", "/conversations", "alice").get_json()["conversations"]
    assert [c["id"] for c in listed] == [meta["conversationId"]]


def test_a_reopened_answer_says_how_it_was_found() -> None:
    h = Harness()
    h.add_note("alice", "Firestore stores the notes and the conversations.")
    h.index_all()
    answer = h.call("POST", "/chat", "alice", json={"message": "Where are the notes stored?"})
    body = answer.get_json()
    response = h.call("GET", f"/conversations/{body['conversationId']}/messages", "alice")
    messages = response.get_json()
    schemas.Messages.model_validate(messages)
    question, reply = messages["messages"]
    assert "meta" not in question
    assert reply["meta"] == {
        "confidence": body["meta"]["confidence"],
        "strategy": body["meta"]["retrieval"]["strategy"],
    }


def test_notes_say_the_memory_type_they_were_indexed_as() -> None:
    h = Harness()
    chosen = h.add_note("alice", "Lunch with the team on Friday.", type="decision")
    detected = h.add_note("alice", "Revenue grew 12% in March to 40k MRR.")
    listed = h.call("GET", "/notes", "alice").get_json()["notes"]
    assert all("memoryType" not in n for n in listed)  # not indexed yet: not known
    h.index_all()
    listed = {n["id"]: n for n in h.call("GET", "/notes", "alice").get_json()["notes"]}
    assert listed[chosen]["memoryType"] == "decision"  # the note's own type
    assert listed[detected]["type"] is None
    assert listed[detected]["memoryType"] == "metric"  # the classifier's
    one = h.call("GET", f"/notes/{detected}", "alice").get_json()
    schemas.Note.model_validate(one)
    assert one["memoryType"] == "metric"
    # Edited, it is pending again: the old type is not reported as current.
    h.call("PATCH", f"/notes/{detected}", "alice", json={"text": "Call the bank."})
    assert "memoryType" not in h.call("GET", f"/notes/{detected}", "alice").get_json()


def test_search_hits_carry_their_notes_title() -> None:
    h = Harness()
    h.add_note("alice", "We chose Firestore because it syncs.", title="Storage choice")
    h.add_note("alice", "Firestore bills per read.")
    h.index_all()
    body = h.call("POST", "/search", "alice", json={"query": "Firestore"}).get_json()
    schemas.SearchResponse.model_validate(body)
    titles = {hit["title"] for hit in body["results"]}
    assert titles == {"Storage choice", ""}
    titled = next(hit for hit in body["results"] if hit["title"])
    assert titled["text"].startswith("Storage choice")  # what the client strips
