"""GET /conversations on the running stack (Firestore emulator, real tokens): each
user's conversations, latest activity first, across pages; never another user's."""

from __future__ import annotations

import base64
import json
from datetime import datetime

import pytest

from tests.factories import all_conversation_pages

pytestmark = pytest.mark.emulator


def _pages(user, limit: int) -> list[dict]:  # type: ignore[type-arg]
    def fetch(cursor: str | None) -> dict:  # type: ignore[type-arg]
        params = {"limit": limit} | ({"cursor": cursor} if cursor else {})
        response = user.call("GET", "/conversations", params=params)
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]

    return all_conversation_pages(fetch, limit, most=20)


def test_a_user_lists_their_conversations_and_only_theirs(new_user) -> None:
    ann, bob = new_user(), new_user()
    # No notes: each answer says so at once, and the turns are recorded all the same.
    first = ann.chat("What did we decide about pricing?")["conversationId"]
    second = ann.chat("Who owns   the launch?")["conversationId"]
    streamed = ann.call(
        "POST",
        "/chat",
        json={"message": "Anything about hiring?"},
        headers={"Accept": "text/event-stream"},
    )
    done = [b for b in streamed.text.split("\n\n") if b.startswith("event: done")]
    third = json.loads(done[0].split("data: ", 1)[1])["conversationId"]
    assert ann.chat("And the date?", conversationId=first)["conversationId"] == first
    theirs = bob.chat("Bob's own question?")["conversationId"]

    for limit in (1, 2, 10):
        listed = _pages(ann, limit)
        assert [c["id"] for c in listed] == [first, third, second], limit
    top, _, last = _pages(ann, 10)
    assert top["title"] == "What did we decide about pricing?" and top["messageCount"] == 4
    assert datetime.fromisoformat(top["createdAt"]) < datetime.fromisoformat(top["updatedAt"])
    assert last["title"] == "Who owns the launch?" and last["messageCount"] == 2
    messages = ann.call("GET", f"/conversations/{first}/messages").json()["messages"]
    assert len(messages) == 4 and messages[-1]["createdAt"] == top["updatedAt"]

    # Bob sees his own only, with or without Ann's cursor.
    assert [c["id"] for c in _pages(bob, 10)] == [theirs]
    cursor = ann.call("GET", "/conversations", params={"limit": 1}).json()["cursor"]
    with_hers = bob.call("GET", "/conversations", params={"cursor": cursor}).json()
    assert with_hers["conversations"] == []
    assert bob.call("GET", f"/conversations/{first}/messages").status_code == 404


def _forged(payload: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "params",
    [
        {"limit": "0"},
        {"limit": "101"},
        {"limit": "abc"},
        {"cursor": "garbage"},
        {"cursor": "x" * 2000},
        {"cursor": _forged({"t": "2026-01-01T00:00:00+00:00", "id": "a/b"})},
        {"cursor": _forged({"t": "2026-01-01T00:00:00+00:00", "id": "__x__"})},
        {"cursor": _forged({"t": "2026-01-01T00:00:00", "id": "x"})},
        {"cursor": _forged({"t": "0001-01-01T00:00:00+01:00", "id": "x"})},
    ],
)
def test_bad_limit_or_cursor_is_400(new_user, params) -> None:
    response = new_user().call("GET", "/conversations", params=params)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "invalid_argument"


def test_listing_needs_a_token(client) -> None:
    response = client.call("GET", "/conversations", "not-a-token")
    assert response.status_code == 401
