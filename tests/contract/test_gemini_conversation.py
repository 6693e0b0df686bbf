"""Follow-ups with Gemini, through /chat with a conversationId: one structured call reads
the follow-up (the standalone question, its window, types, intent, keywords) and the last
turns go into the answer prompt (the real google-genai client against the wire-level
fake). At most two model calls per /chat."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from footnote.adapters.gemini_generator import GeminiGenerator
from footnote.generation.prompt import READ_INSTRUCTION
from tests.factories import NOW, note
from tests.fakes.google_apis import FakeGoogleApis
from tests.fakes.vertex import vertex_settings
from tests.inproc import Harness


def _system(body: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in body.get("systemInstruction", {}).get("parts", []))


def _prompt(body: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for c in body["contents"] for p in c.get("parts", []))


def test_a_follow_up_is_rewritten_for_retrieval_and_answered_with_the_last_turns(
    google: FakeGoogleApis,
) -> None:
    def reading(body: dict[str, Any]) -> dict[str, Any]:
        assert _system(body) == READ_INSTRUCTION
        assert "Which group did Caroline join?" in _prompt(body)
        return {"question": "When did Caroline join the LGBTQ support group?"}

    google.read = reading
    h = Harness()
    h.container._built["generator"] = GeminiGenerator.from_settings(vertex_settings(google))
    h.add_note("alice", "Caroline joined the LGBTQ support group downtown in May.")
    h.add_note("alice", "Melanie painted a lake sunrise for the kitchen.")
    h.index_all()

    first = h.call("POST", "/chat", "alice", json={"message": "Which group did Caroline join?"})
    assert first.status_code == 200
    conversation = first.get_json()["conversationId"]
    assert len(google.calls("generate")) == 1  # a first question: the answer alone

    follow = h.call(
        "POST",
        "/chat",
        "alice",
        json={"message": "When did she join it?", "conversationId": conversation},
    )
    assert follow.status_code == 200, follow.get_data(as_text=True)
    reply = follow.get_json()
    calls = google.calls("generate")
    readings = [c for c in calls if _system(c.body) == READ_INSTRUCTION]
    answers = [c for c in calls if _system(c.body) != READ_INSTRUCTION]
    assert len(readings) == 1 and len(calls) == 3  # two calls for the follow-up
    last = _prompt(answers[-1].body)
    # the answer prompt carries the earlier turns, then the sources of the standalone question
    assert "<conversation>" in last and "Which group did Caroline join?" in last
    assert "Question: When did Caroline join the LGBTQ support group?" in last
    assert "Caroline joined the LGBTQ support group" in last.split("<sources>", 1)[1]
    assert reply["meta"]["followUp"] is True
    assert reply["citations"] and "Caroline" in reply["citations"][0]["snippet"]


def test_a_failed_rewrite_falls_back_to_the_offline_follow_up(google: FakeGoogleApis) -> None:
    h = Harness()
    h.container._built["generator"] = GeminiGenerator.from_settings(vertex_settings(google))
    h.add_note("alice", "Caroline joined the LGBTQ support group downtown in May.")
    h.index_all()
    first = h.call("POST", "/chat", "alice", json={"message": "Which group did Caroline join?"})
    conversation = first.get_json()["conversationId"]
    google.fail("generate", 400, times=1)  # the rewrite call is refused; no retry of a 400
    follow = h.call(
        "POST",
        "/chat",
        "alice",
        json={"message": "When did she join it?", "conversationId": conversation},
    )
    assert follow.status_code == 200
    body = follow.get_json()
    assert "rewrite_skipped" in body["meta"]["fallbacks"]
    assert body["meta"]["followUp"] is True


def _asked_twice(google: FakeGoogleApis, follow_up: str) -> tuple[Harness, dict[str, Any]]:
    h = Harness()
    h.container._built["generator"] = GeminiGenerator.from_settings(vertex_settings(google))
    # factories.NOW is 22 November 2026: one note of March 2026, one of June 2025
    march = (NOW - datetime(2026, 3, 10, tzinfo=UTC)).days
    june = (NOW - datetime(2025, 6, 1, tzinfo=UTC)).days
    h.store.create_note(note("m", "Caroline joined the LGBTQ support group.", days_ago=march))
    h.store.create_note(note("j", "Caroline ran the charity 10k, her best time.", days_ago=june))
    h.index_all()
    first = h.call("POST", "/chat", "alice", json={"message": "What did Caroline do?"})
    conversation = first.get_json()["conversationId"]
    google.requests.clear()
    body = {"message": follow_up, "conversationId": conversation, "timeZone": "Europe/Madrid"}
    follow = h.call("POST", "/chat", "alice", json=body)
    assert follow.status_code == 200, follow.get_data(as_text=True)
    return h, follow.get_json()


def _sources(google: FakeGoogleApis) -> str:
    answer = [c for c in google.calls("generate") if _system(c.body) != READ_INSTRUCTION][-1]
    return _prompt(answer.body).split("<sources>", 1)[1]


def test_the_models_reading_is_the_plan_in_two_calls_at_most(google: FakeGoogleApis) -> None:
    """The structured reading's window, types and keywords are what retrieval reads: a
    window that holds no note is no answer, though the question's words are in one."""

    def reading(body: dict[str, Any]) -> dict[str, Any]:
        config = body["generationConfig"]
        schema = config["responseSchema"]
        assert config["responseMimeType"] == "application/json"
        assert set(schema["properties"]) >= {"question", "first_day", "last_day", "keywords"}
        return {
            "question": "What else did Caroline do that spring?",
            "first_day": "2026-03-01",
            "last_day": "2026-03-31",
            "memory_types": [],
            "intent": "summary",
            "keywords": ["Caroline"],
        }

    google.read = reading
    _, reply = _asked_twice(google, "and what else that spring?")
    assert len(google.calls("generate")) == 2  # the reading and the answer
    # the window the model read is what was searched: March 2026's note alone
    sources = _sources(google)
    assert "support group" in sources and "10k" not in sources
    assert reply["meta"]["intent"] == "summary"  # the model's intent

    # the same reading without its window: both notes
    google.read = lambda body: {
        **reading(body),
        "question": "What else did Caroline do?",
        "first_day": None,
        "last_day": None,
    }
    _asked_twice(google, "and what else that spring?")
    sources = _sources(google)
    assert "support group" in sources and "10k" in sources


def test_a_reading_that_is_no_json_falls_back_to_the_offline_reader(
    google: FakeGoogleApis,
) -> None:
    google.read = lambda body: "When did she join?"  # text, not the JSON asked for
    _, reply = _asked_twice(google, "When did she join it?")
    assert "rewrite_skipped" in reply["meta"]["fallbacks"]
    assert len(google.calls("generate")) == 2  # the failed reading (not retried), the answer
