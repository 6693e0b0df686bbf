"""Follow-ups with Gemini, through /chat with a conversationId: a rewrite call makes the
retrieval query standalone and the last turns go into the answer prompt (the real
google-genai client against the wire-level fake)."""

from __future__ import annotations

from typing import Any

from footnote.adapters.gemini_generator import GeminiGenerator
from footnote.generation.prompt import REWRITE_INSTRUCTION
from tests.fakes.google_apis import FakeGoogleApis, default_answer
from tests.fakes.vertex import vertex_settings
from tests.inproc import Harness


def _system(body: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in body.get("systemInstruction", {}).get("parts", []))


def _prompt(body: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for c in body["contents"] for p in c.get("parts", []))


def test_a_follow_up_is_rewritten_for_retrieval_and_answered_with_the_last_turns(
    google: FakeGoogleApis,
) -> None:
    def model(body: dict[str, Any]) -> str:
        if _system(body) == REWRITE_INSTRUCTION:
            assert "Which group did Caroline join?" in _prompt(body)
            return "When did Caroline join the LGBTQ support group?"
        return default_answer(body)

    google.answer = model
    h = Harness()
    h.container._built["generator"] = GeminiGenerator.from_settings(vertex_settings(google))
    h.add_note("alice", "Caroline joined the LGBTQ support group downtown in May.")
    h.add_note("alice", "Melanie painted a lake sunrise for the kitchen.")
    h.index_all()

    first = h.call("POST", "/chat", "alice", json={"message": "Which group did Caroline join?"})
    assert first.status_code == 200
    conversation = first.get_json()["conversationId"]
    assert not [c for c in google.calls("generate") if _system(c.body) == REWRITE_INSTRUCTION]

    follow = h.call(
        "POST",
        "/chat",
        "alice",
        json={"message": "When did she join it?", "conversationId": conversation},
    )
    assert follow.status_code == 200, follow.get_data(as_text=True)
    reply = follow.get_json()
    calls = google.calls("generate")
    rewrites = [c for c in calls if _system(c.body) == REWRITE_INSTRUCTION]
    answers = [c for c in calls if _system(c.body) != REWRITE_INSTRUCTION]
    assert len(rewrites) == 1
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
