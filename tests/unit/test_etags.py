"""Optimistic concurrency over HTTP: every note carries an ETag; PATCH and DELETE
with If-Match change only that version and answer 412 with the current note."""

from __future__ import annotations

from typing import Any

import pytest

from footnote.api import schemas
from tests.inproc import Harness, envelope


@pytest.fixture
def h() -> Harness:
    return Harness(quotas=True)


def _patch(h: Harness, note_id: str, body: dict[str, Any], if_match: str | None = None) -> Any:
    headers = {"If-Match": if_match} if if_match is not None else {}
    return h.call("PATCH", f"/notes/{note_id}", "alice", json=body, headers=headers)


def test_every_note_answer_carries_its_etag_in_the_header_and_the_body(h: Harness) -> None:
    created = h.call("POST", "/notes", "alice", json={"text": "first"})
    assert created.status_code == 201
    etag = created.headers["ETag"]
    assert etag == created.get_json()["etag"] and etag.startswith('"')
    note_id = created.get_json()["id"]
    got = h.call("GET", f"/notes/{note_id}", "alice")
    assert got.headers["ETag"] == got.get_json()["etag"] == etag
    listed = h.call("GET", "/notes", "alice").get_json()["notes"]
    assert [n["etag"] for n in listed] == [etag]
    for body in (created.get_json(), got.get_json(), listed[0]):
        schemas.Note.model_validate(body)
    edited = _patch(h, note_id, {"title": "t"})
    assert edited.status_code == 200
    assert edited.headers["ETag"] == edited.get_json()["etag"] != etag


def test_a_stale_if_match_is_412_with_the_current_note_and_changes_nothing(h: Harness) -> None:
    created = h.call("POST", "/notes", "alice", json={"text": "phone"})
    note_id, first = created.get_json()["id"], created.headers["ETag"]
    laptop = _patch(h, note_id, {"text": "laptop edit"}, if_match=first)
    assert laptop.status_code == 200, laptop.get_data(as_text=True)
    phone = _patch(h, note_id, {"text": "phone edit"}, if_match=first)
    assert phone.status_code == 412
    error = envelope(phone)
    assert error["code"] == "precondition_failed"
    current = error["details"]["current"]
    schemas.Note.model_validate(current)
    assert current["text"] == "laptop edit" and current["etag"] == laptop.headers["ETag"]
    assert phone.headers["ETag"] == laptop.headers["ETag"]
    assert h.call("GET", f"/notes/{note_id}", "alice").get_json()["text"] == "laptop edit"
    # Merged and sent again with the current ETag, it goes through.
    retried = _patch(h, note_id, {"text": "merged"}, if_match=phone.headers["ETag"])
    assert retried.status_code == 200 and retried.get_json()["text"] == "merged"


@pytest.mark.parametrize(
    ("if_match", "status"),
    [
        ("*", 200),  # any current version
        ('W/"1"', 412),  # weak tags never match (strong comparison)
        ('"nope"', 412),
        ('"7", "1"', 200),  # one of the listed versions
        ("1", 200),  # unquoted, as some clients send it
    ],
)
def test_if_match_forms(h: Harness, if_match: str, status: int) -> None:
    created = h.call("POST", "/notes", "alice", json={"text": "x"})
    assert created.headers["ETag"] == '"1"'
    response = _patch(h, created.get_json()["id"], {"title": "y"}, if_match=if_match)
    assert response.status_code == status, response.get_data(as_text=True)


def test_delete_with_a_stale_if_match_is_412_and_keeps_the_note(h: Harness) -> None:
    created = h.call("POST", "/notes", "alice", json={"text": "keep me"})
    note_id, first = created.get_json()["id"], created.headers["ETag"]
    _patch(h, note_id, {"text": "edited elsewhere"})
    stale = h.call("DELETE", f"/notes/{note_id}", "alice", headers={"If-Match": first})
    assert stale.status_code == 412
    assert envelope(stale)["details"]["current"]["text"] == "edited elsewhere"
    assert h.call("GET", f"/notes/{note_id}", "alice").status_code == 200
    current = stale.headers["ETag"]
    gone = h.call("DELETE", f"/notes/{note_id}", "alice", headers={"If-Match": current})
    assert gone.status_code == 204
    assert h.call("GET", f"/notes/{note_id}", "alice").status_code == 404


def test_a_stale_text_edit_reserves_no_quota(h: Harness) -> None:
    created = h.call("POST", "/notes", "alice", json={"text": "abc"})
    note_id, first = created.get_json()["id"], created.headers["ETag"]
    _patch(h, note_id, {"title": "moved"})
    before = h.container.quotas.stored_chars("alice")
    assert _patch(h, note_id, {"text": "a much longer text"}, if_match=first).status_code == 412
    assert h.container.quotas.stored_chars("alice") == before == 3


def test_the_description_states_etag_if_match_and_412(h: Harness) -> None:
    spec = h.call("GET", "/openapi.json").get_json()
    note = spec["paths"]["/notes/{noteId}"]
    for method in ("patch", "delete"):
        params = {p["name"]: p for p in note[method]["parameters"]}
        assert params["If-Match"]["in"] == "header"
        assert "ETag" in note[method]["responses"]["412"]["headers"]
    assert "ETag" in note["get"]["responses"]["200"]["headers"]
    assert "ETag" in spec["paths"]["/notes"]["post"]["responses"]["201"]["headers"]
    assert "etag" in spec["components"]["schemas"]["Note"]["required"]
