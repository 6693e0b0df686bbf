"""The HTTP edge against the running stack: bad input gets a clear 4xx and stores nothing."""

from __future__ import annotations

import json

import pytest
import requests

pytestmark = pytest.mark.emulator


def _count(user) -> int:  # type: ignore[no-untyped-def]
    return len(user.call("GET", "/notes", params={"limit": 100}).json()["notes"])


def _raw(stack, user, method: str, path: str, data: bytes, content_type: str):  # type: ignore[no-untyped-def]
    return requests.request(
        method,
        f"{stack.api_url}{path}",
        data=data,
        timeout=30,
        headers={"Authorization": f"Bearer {user.token}", "Content-Type": content_type},
    )


@pytest.mark.parametrize(
    ("body", "content_type", "status", "code"),
    [
        (b'{"text": "ok"', "application/json", 400, "invalid_argument"),
        (b"\xff\xfe\x00bad", "application/json", 400, "invalid_argument"),
        (b'{"text": "hi"}', "text/plain", 415, "unsupported_media_type"),
        (b"[1, 2]", "application/json", 400, "invalid_argument"),
        (b'{"text": "   "}', "application/json", 400, "invalid_argument"),
        (b'{"text": 42}', "application/json", 400, "invalid_argument"),
        (b'{"text": "x", "tenantId": "someone"}', "application/json", 400, "invalid_argument"),
        (
            json.dumps({"text": "x" * 100_001}).encode(),
            "application/json",
            413,
            "payload_too_large",
        ),
        (
            b'{"text": "x", "a": ' + b"[" * 5000 + b"]" * 5000 + b"}",
            "application/json",
            400,
            "invalid_argument",
        ),
        (
            json.dumps({"text": "y" * 600_000}).encode(),
            "application/json",
            413,
            "payload_too_large",
        ),
    ],
)
def test_bad_note_bodies_get_4xx_and_store_nothing(
    stack, new_user, body, content_type, status, code
) -> None:  # type: ignore[no-untyped-def]
    user = new_user()
    response = _raw(stack, user, "POST", "/notes", body, content_type)
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code
    assert _count(user) == 0


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"limit": "0"}, 400),
        ({"limit": "101"}, 400),
        ({"limit": "abc"}, 400),
        ({"limit": "-1"}, 400),
        ({"cursor": "garbage"}, 400),
        ({"cursor": "x" * 2000}, 400),
        ({"limit": "5"}, 200),
    ],
)
def test_list_parameters_are_validated(new_user, params, status) -> None:  # type: ignore[no-untyped-def]
    user = new_user()
    response = user.call("GET", "/notes", params=params)
    assert response.status_code == status, response.text


def test_chat_input_limits(new_user) -> None:  # type: ignore[no-untyped-def]
    user = new_user()
    assert user.call("POST", "/chat", json={"message": "x" * 2001}).status_code == 400
    assert user.call("POST", "/chat", json={"message": ""}).status_code == 400
    assert (
        user.call(
            "POST", "/chat", json={"message": "hi", "ragConfig": {"maxSources": 99}}
        ).status_code
        == 400
    )
    assert (
        user.call("POST", "/chat", json={"message": "hi", "conversationId": "../../x"}).status_code
        == 400
    )
    assert user.call("POST", "/search", json={"query": "hi", "k": 0}).status_code == 400
    assert user.call("GET", "/nope").status_code == 404
    assert user.call("PUT", "/notes").status_code == 405


def test_patch_validation_and_unknown_note(new_user) -> None:  # type: ignore[no-untyped-def]
    user = new_user()
    note_id = user.add_note("Original text.")
    assert user.call("PATCH", f"/notes/{note_id}", json={}).status_code == 400
    assert user.call("PATCH", f"/notes/{note_id}", json={"text": None}).status_code == 400
    assert user.call("PATCH", f"/notes/{note_id}", json={"type": "gossip"}).status_code == 400
    assert user.call("PATCH", "/notes/does-not-exist", json={"text": "x"}).status_code == 404
    assert user.call("GET", f"/notes/{note_id}").json()["text"] == "Original text."


def test_notes_pages_with_cursor(new_user) -> None:  # type: ignore[no-untyped-def]
    user = new_user()
    ids = [user.add_note(f"Paged note {i}.") for i in range(5)]
    seen, cursor = [], None
    while True:
        params = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        body = user.call("GET", "/notes", params=params).json()
        seen += [n["id"] for n in body["notes"]]
        if not body["hasMore"]:
            assert body["cursor"] is None
            break
        cursor = body["cursor"]
    assert seen == list(reversed(ids))


def test_chat_streams_server_sent_events_and_records_sources(new_user) -> None:  # type: ignore[no-untyped-def]
    user = new_user()
    note_id = user.add_note("The espresso machine is descaled every first Monday of the month.")
    user.wait_indexed(note_id)
    response = user.call(
        "POST",
        "/chat",
        json={"message": "When is the espresso machine descaled?"},
        headers={"Accept": "text/event-stream"},
        stream=True,
    )
    assert response.headers["Content-Type"].startswith("text/event-stream")
    events = [block for block in response.text.split("\n\n") if block.strip()]
    names = [e.split("\n")[0].removeprefix("event: ") for e in events]
    assert names[0] == "meta" and names[-1] == "done" and "delta" in names
    done = json.loads(events[-1].split("data: ", 1)[1])
    assert done["citations"][0]["noteId"] == note_id
    listed = user.call("GET", f"/conversations/{done['conversationId']}/messages")
    assert listed.status_code == 200, listed.text
    messages = listed.json()["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    sources = user.call("GET", f"/messages/{done['messageId']}/sources").json()["sources"]
    assert sources == done["citations"]


def test_cors_preflight_and_api_prefix(stack, new_user) -> None:  # type: ignore[no-untyped-def]
    response = requests.options(
        f"{stack.api_url}/chat",
        headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST"},
        timeout=10,
    )
    assert response.status_code == 204
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "Authorization" in response.headers["Access-Control-Allow-Headers"]
    user = new_user()
    assert user.call("GET", "/api/notes").status_code == 200
