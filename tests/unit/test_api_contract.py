"""The API's limits come from the settings through one set of request models: the
answers (status, code, message) a caller sees for each rule."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from footnote.api import schemas
from footnote.api.schemas import request_models
from tests.inproc import Harness, envelope


@pytest.fixture(scope="module")
def harness() -> Harness:
    return Harness(NOTE_MAX_CHARS=200, NOTE_TITLE_MAX_CHARS=10, NOTE_MAX_TAGS=2)


def _post(h: Harness, path: str, body: Any, method: str = "POST") -> Any:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return h.call(method, path, "limits", data=data, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"text": "x" * 201}, 413, "note text is longer than 200 characters"),
        ({"text": " \t\n "}, 400, "note text is empty"),
        ({"text": "\u200b"}, 400, "note text is empty"),  # blank once normalised
        ({"text": "ok", "title": "t" * 11}, 400, "title is longer than 10 characters"),
        ({"text": "ok", "tags": ["a", "b", "c"]}, 400, "at most 2 tags"),
        ({"text": "ok", "tags": ["t" * 51]}, 400, "a tag is longer than 50 characters"),
        ({"text": 5}, 400, "request body is not valid"),
        ({"text": "x" * 201, "title": 5}, 400, "request body is not valid"),  # types first
        (b'{"text": "ok"', 400, "request body is not valid JSON"),
        (b"\xff\xfe{}", 400, "request body is not valid UTF-8"),
        (b"[1, 2]", 400, "request body must be a JSON object"),
        (b'{"text": "a\\ud800"}', 400, "request body is not valid: strings must be valid Unicode"),
        (b'{"text": "ok"} trailing', 400, "request body is not valid JSON"),
        (b"", 400, "request body is not valid JSON"),
        (b'{"t": ' + b"[" * 300 + b"]" * 300 + b"}", 400, "request body is nested too deeply"),
    ],
)
def test_note_rules_answer_with_their_status_and_message(
    harness: Harness, body: Any, status: int, message: str
) -> None:
    before = dict(harness.store.notes)
    response = _post(harness, "/notes", body)
    assert response.status_code == status, response.get_data(as_text=True)
    assert envelope(response)["message"].startswith(message)
    assert dict(harness.store.notes) == before


def test_text_is_stored_normalised_and_limits_apply_to_what_is_stored(harness: Harness) -> None:
    # 200 characters once the trailing spaces go: within the limit.
    response = _post(harness, "/notes", {"text": "y" * 200 + "   ", "tags": [" a ", "a"]})
    assert response.status_code == 201, response.get_data(as_text=True)
    note = response.get_json()
    assert note["text"] == "y" * 200 and note["tags"] == ["a"] and note["title"] == ""
    patched = _post(harness, f"/notes/{note['id']}", {"title": None, "text": "z\r\nz"}, "PATCH")
    assert patched.get_json()["text"] == "z\nz"
    too_long = _post(harness, f"/notes/{note['id']}", {"text": "x" * 201}, "PATCH")
    assert too_long.status_code == 413


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("limit=0", "limit must be between 1 and 100"),
        ("limit=101", "limit must be between 1 and 100"),
        ("limit=abc", "limit must be a whole number"),
        ("limit=%C2%B2", "limit must be a whole number"),  # "²" is a digit int() refuses
        ("cursor=" + "c" * 1001, "cursor is not valid"),
    ],
)
def test_list_parameters(harness: Harness, query: str, message: str) -> None:
    response = harness.call("GET", f"/notes?{query}", "limits")
    assert response.status_code == 400
    assert envelope(response)["message"] == message


def test_question_rules_for_chat_and_search(harness: Harness) -> None:
    for path, key in (("/chat", "message"), ("/search", "query")):
        empty = _post(harness, path, {key: "   "})
        assert (empty.status_code, envelope(empty)["message"]) == (400, "the question is empty")
        long = _post(harness, path, {key: "q" * 2001})
        assert envelope(long)["message"] == "the question is longer than 2000 characters"


def test_the_question_limit_is_the_setting_checked_once_by_the_request_model() -> None:
    """CHAT_MAX_QUERY_LENGTH is enforced by the request model alone (the chat service
    no longer checks it again), for JSON and streamed answers alike."""
    h = Harness(CHAT_MAX_QUERY_LENGTH=20)
    for accept in ("application/json", "text/event-stream"):
        headers = {"Accept": accept}
        long = h.call("POST", "/chat", "limit", json={"message": "x" * 21}, headers=headers)
        assert (long.status_code, envelope(long)["message"]) == (
            400,
            "the question is longer than 20 characters",
        )
        blank = h.call("POST", "/chat", "limit", json={"message": " \t"}, headers=headers)
        assert (blank.status_code, envelope(blank)["message"]) == (400, "the question is empty")
        assert (
            h.call(
                "POST", "/chat", "limit", json={"message": "x" * 20}, headers=headers
            ).status_code
            == 200
        )


def test_models_are_built_once_per_set_of_limits(harness: Harness) -> None:
    settings = harness.container.settings
    assert request_models(settings) is request_models(settings)
    schema = request_models(settings).note_create.model_json_schema()
    assert schema["properties"]["text"]["maxLength"] == 200


# Every operation and status the hand-written description (before it was generated
# from the models and the route table) listed: the generated one lists them all.
_DESCRIBED_BEFORE = {
    ("GET", "/healthz"): {200},
    ("GET", "/openapi.json"): {200},
    ("POST", "/notes"): {201, 400, 401, 413, 415, 429},
    ("GET", "/notes"): {200, 400, 401},
    ("GET", "/notes/changes"): {200, 400, 401, 410},  # added since: the change feed
    ("GET", "/notes/{noteId}"): {200, 401, 404},
    ("PATCH", "/notes/{noteId}"): {200, 400, 401, 404, 413, 415, 429},
    ("DELETE", "/notes/{noteId}"): {204, 401, 404},
    ("POST", "/chat"): {200, 400, 401, 404, 413, 415, 429},
    ("POST", "/search"): {200, 400, 401, 413, 415, 429},
    ("GET", "/conversations"): {200, 400, 401},  # added since, with the route table
    ("GET", "/conversations/{conversationId}/messages"): {200, 401, 404},
    ("GET", "/messages/{messageId}/sources"): {200, 401, 404},
    ("DELETE", "/account"): {202, 400, 401, 404, 413, 415},  # issue 24
    ("POST", "/imports"): {202, 400, 401, 403, 404, 413, 415, 429},  # issue 23
    ("POST", "/uploads"): {201, 400, 401, 404, 413, 415, 429},  # issues 23 and 24
    ("GET", "/imports/{importId}"): {200, 401, 404},
    ("DELETE", "/imports/{importId}"): {200, 401, 404},
    ("POST", "/exports"): {202, 401, 429},  # issue 24
    ("GET", "/exports/{exportId}"): {200, 401, 404},
    ("GET", "/exports/{exportId}/archive"): {200, 401, 404},
}


def test_generated_description_keeps_every_operation_and_status(harness: Harness) -> None:
    spec = harness.call("GET", "/openapi.json").get_json()
    described = {
        (method.upper(), path): {int(s) for s in op["responses"]}
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method != "parameters"
    }
    assert described.keys() == _DESCRIBED_BEFORE.keys()
    for key, statuses in _DESCRIBED_BEFORE.items():
        assert statuses <= described[key], key
    error = {"$ref": "#/components/schemas/Error"}
    for item in spec["paths"].values():
        for method, op in item.items():
            for status, response in (
                op.get("responses", {}).items() if method != "parameters" else ()
            ):
                if int(status) >= 400:
                    assert response["content"]["application/json"]["schema"] == error
    chat = spec["paths"]["/chat"]["post"]["responses"]["200"]["content"]
    assert set(chat) == {"application/json", "text/event-stream"}
    assert spec["components"]["securitySchemes"]["firebase"]["scheme"] == "bearer"
    assert spec["paths"]["/healthz"]["get"]["security"] == []
    props = spec["components"]["schemas"]["NoteCreate"]["properties"]
    assert props["text"]["maxLength"] == 200 and props["tags"]["anyOf"][0]["maxItems"] == 2


def test_every_response_matches_its_described_model() -> None:
    """The bodies api/wire.py writes against the response models the description is
    generated from (they forbid extra keys: a key written but not described fails)."""
    h = Harness()
    t = "shapes"

    def ok(response: Any, model: type[BaseModel]) -> dict[str, Any]:
        assert response.status_code < 300, response.get_data(as_text=True)
        body: dict[str, Any] = response.get_json()
        model.model_validate(body)
        return body

    a = ok(h.call("POST", "/notes", t, json={"text": "We chose Firestore for sync."}), schemas.Note)
    ok(h.call("POST", "/notes", t, json={"text": "Revenue grew 12% in March."}), schemas.Note)
    h.index_all()
    assert "chunkCount" in ok(h.call("GET", f"/notes/{a['id']}", t), schemas.Note)
    ok(h.call("GET", "/notes?limit=1", t), schemas.NotePage)
    answer = ok(
        h.call("POST", "/chat", t, json={"message": "What did we choose for sync?"}),
        schemas.ChatResponse,
    )
    assert answer["citations"], answer
    ok(h.call("POST", "/search", t, json={"query": "revenue in March"}), schemas.SearchResponse)
    ok(h.call("POST", "/search", "nobody", json={"query": "anything"}), schemas.SearchResponse)
    ok(h.call("GET", f"/conversations/{answer['conversationId']}/messages", t), schemas.Messages)
    listed = ok(h.call("GET", "/conversations?limit=1", t), schemas.ConversationPage)
    assert listed["conversations"][0]["id"] == answer["conversationId"]
    sources = ok(h.call("GET", f"/messages/{answer['messageId']}/sources", t), schemas.Sources)
    assert sources["sources"] == answer["citations"]
    ok(h.call("GET", "/healthz"), schemas.Health)
    ok(h.call("PATCH", f"/notes/{a['id']}", t, json={"type": "decision"}), schemas.Note)
    stream = h.call(
        "POST", "/chat", t, json={"message": "Revenue?"}, headers={"Accept": "text/event-stream"}
    ).get_data(as_text=True)
    done = [b for b in stream.split("\n\n") if b.startswith("event: done")]
    schemas.ChatResponse.model_validate_json(done[0].split("data: ", 1)[1])
    error = h.call("GET", "/notes/missing", t)
    schemas.Error.model_validate(error.get_json())
