"""GET /conversations through the real API and services (memory store): a user's
conversations, latest activity first, paged; never another user's; bad input is 400."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta
from typing import Any

import pytest

from footnote.api import schemas
from footnote.domain import CONVERSATION_TITLE_MAX_CHARS, Turn, conversation_title, with_turns
from tests.factories import NOW, all_conversation_pages
from tests.inproc import Harness, envelope


def _chat(h: Harness, tenant: str, message: str, conversation_id: str | None = None) -> str:
    body: dict[str, Any] = {"message": message}
    if conversation_id:
        body["conversationId"] = conversation_id
    r = h.call("POST", "/chat", tenant, json=body)
    assert r.status_code == 200, r.get_data(as_text=True)
    return str(r.get_json()["conversationId"])


def _page(h: Harness, tenant: str, query: str = "") -> dict[str, Any]:
    r = h.call("GET", f"/conversations{query}", tenant)
    assert r.status_code == 200, r.get_data(as_text=True)
    body: dict[str, Any] = r.get_json()
    schemas.ConversationPage.model_validate(body)  # the shape the description states
    return body


def _all(h: Harness, tenant: str, limit: int) -> list[dict[str, Any]]:
    return all_conversation_pages(
        lambda cursor: _page(
            h, tenant, f"?limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        ),
        limit,
    )


def test_latest_activity_first_with_title_times_and_count() -> None:
    h = Harness()
    assert _page(h, "ann") == {"conversations": [], "cursor": None, "hasMore": False}
    first = _chat(h, "ann", "  What did we\n decide about   pricing? ")
    second = _chat(h, "ann", "Who owns the launch?")
    follow = _chat(h, "ann", "And when?", first)
    assert follow == first
    listed = _page(h, "ann")["conversations"]
    assert [c["id"] for c in listed] == [first, second]  # the follow-up moved it up
    top = listed[0]
    assert top["title"] == "What did we decide about pricing?"  # first question, one line
    assert top["messageCount"] == 4
    assert datetime.fromisoformat(top["createdAt"]) < datetime.fromisoformat(top["updatedAt"])
    assert listed[1]["messageCount"] == 2 and listed[1]["createdAt"] == listed[1]["updatedAt"]
    # The count is the turns .../messages returns.
    messages = h.call("GET", f"/conversations/{first}/messages", "ann").get_json()["messages"]
    assert len(messages) == top["messageCount"]
    assert messages[-1]["createdAt"] == top["updatedAt"]


def test_pages_cover_every_conversation_once_in_order() -> None:
    h = Harness()
    ids = [_chat(h, "pat", f"question number {i}?") for i in range(7)]
    for limit in (1, 2, 3, 7, 100):
        got = _all(h, "pat", limit)
        assert [c["id"] for c in got] == ids[::-1], limit
    last = _page(h, "pat", "?limit=7")
    assert last["hasMore"] is False and last["cursor"] is None
    # A conversation active while paging moves to the front; the pages after the
    # cursor still hold every older one exactly once.
    page1 = _page(h, "pat", "?limit=3")
    _chat(h, "pat", "more?", ids[0])
    rest = _all_from(h, "pat", page1["cursor"], 3)
    assert [c["id"] for c in rest] == ids[3::-1][:-1]  # ids[3..1], without the moved ids[0]


def _all_from(h: Harness, tenant: str, cursor: str, limit: int) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    while cursor:
        body = _page(h, tenant, f"?limit={limit}&cursor={cursor}")
        seen += body["conversations"]
        cursor = body["cursor"]
    return seen


def test_another_users_conversations_are_never_listed() -> None:
    h = Harness()
    mine = {_chat(h, "ann", f"ann asks {i}?") for i in range(3)}
    theirs = _chat(h, "bob", "bob asks?")
    assert {c["id"] for c in _all(h, "ann", 2)} == mine
    assert [c["id"] for c in _all(h, "bob", 2)] == [theirs]
    assert _page(h, "carol")["conversations"] == []
    # Ann's cursor in Bob's hands pages Bob's conversations only.
    cursor = _page(h, "ann", "?limit=1")["cursor"]
    got = _page(h, "bob", f"?cursor={cursor}")["conversations"]
    assert not {c["id"] for c in got} & mine


def _forged(payload: Any) -> str:
    raw = json.dumps(payload).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("limit=0", "limit must be between 1 and 100"),
        ("limit=101", "limit must be between 1 and 100"),
        ("limit=-1", "limit must be a whole number"),
        ("limit=abc", "limit must be a whole number"),
        ("limit=%C2%B2", "limit must be a whole number"),
        ("limit=" + "9" * 5000, "limit must be between 1 and 100"),
        ("cursor=garbage!", "cursor is not valid"),
        ("cursor=" + "c" * 1001, "cursor is not valid"),
        ("cursor=" + _forged({"t": "2026-01-01T00:00:00+00:00"}), "cursor is not valid"),
        ("cursor=" + _forged({"t": "2026-01-01T00:00:00", "id": "x"}), "cursor is not valid"),
        ("cursor=" + _forged({"t": "2026-01-01T00:00:00+00:00", "id": "a/b"}), "cursor is not valid"),
        ("cursor=" + _forged({"t": "2026-01-01T00:00:00+00:00", "id": "__x__"}), "cursor is not valid"),
        ("cursor=" + _forged({"t": 5, "id": "x"}), "cursor is not valid"),
        ("cursor=" + _forged({"t": "0001-01-01T00:00:00+01:00", "id": "x"}), "cursor is not valid"),
        ("cursor=" + _forged({"t": "9999-12-31T23:59:59-01:00", "id": "x"}), "cursor is not valid"),
        ("cursor=" + _forged([1, 2]), "cursor is not valid"),
    ],
)  # fmt: skip
def test_bad_limit_or_cursor_is_400(query: str, message: str) -> None:
    h = Harness()
    _chat(h, "ann", "anything?")
    response = h.call("GET", f"/conversations?{query}", "ann")
    assert response.status_code == 400, response.get_data(as_text=True)
    assert envelope(response)["message"] == message


def test_listing_needs_a_token() -> None:
    response = Harness().call("GET", "/conversations")
    assert response.status_code == 401
    assert envelope(response)["code"] == "unauthenticated"


def test_a_long_first_question_is_cut_at_a_word() -> None:
    question = "Why " + "did we really choose the managed database " * 5 + "?"
    title = conversation_title(question)
    assert len(title) <= CONVERSATION_TITLE_MAX_CHARS and title.endswith("\u2026")
    assert question.startswith(title[:-1]) and title[-2] != " "
    one_word = "x" * 200
    assert conversation_title(one_word) == "x" * (CONVERSATION_TITLE_MAX_CHARS - 1) + "\u2026"
    assert conversation_title(" short\tone \n") == "short one"
    h = Harness()
    cid = _chat(h, "ann", question)
    listed = _page(h, "ann")["conversations"][0]
    assert (listed["id"], listed["title"]) == (cid, title)


def test_summary_folds_turns_and_never_moves_back() -> None:
    later = NOW + timedelta(minutes=5)
    start = with_turns(
        None,
        [
            Turn("a1", "c", "t", "assistant", "answer", NOW),
            Turn("u1", "c", "t", "user", "the question", NOW),
        ],
    )
    assert (start.id, start.tenant_id, start.title) == ("c", "t", "the question")
    assert start.created_at == start.updated_at == NOW and start.message_count == 2
    on = with_turns(start, [Turn("u2", "c", "t", "user", "next", later)])
    assert (on.title, on.created_at, on.updated_at, on.message_count) == (
        "the question",
        NOW,
        later,
        3,
    )
    late = with_turns(on, [Turn("u0", "c", "t", "user", "stale", NOW)])
    assert late.updated_at == later and late.message_count == 4
