"""True streaming of /chat answers: the real google-genai streaming call against the
wire-level fake (tests/fakes/google_apis.py), and the offline quote generator, through
the HTTP API with ``Accept: text/event-stream``."""

from __future__ import annotations

import json
from typing import Any

from footnote.adapters.gemini_generator import GeminiGenerator
from tests.fakes.google_apis import FakeGoogleApis
from tests.fakes.vertex import vertex_settings
from tests.inproc import Harness

NOTES = (
    "Firestore stores the notes and the conversations.",
    "Cloud Run hosts the API behind the load balancer.",
)


def _events(raw: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def _harness(google: FakeGoogleApis | None = None) -> Harness:
    h = Harness()
    if google is not None:
        # the production generator, aimed at the fake; everything else stays in memory
        h.container._built["generator"] = GeminiGenerator.from_settings(vertex_settings(google))
    for text in NOTES:
        h.add_note("alice", text)
    h.index_all()
    return h


def _stream(h: Harness, message: str) -> Any:
    return h.call(
        "POST",
        "/chat",
        "alice",
        json={"message": message},
        headers={"Accept": "text/event-stream"},
        buffered=False,
    )


def test_gemini_answers_stream_sentence_by_sentence_with_checked_markers(
    google: FakeGoogleApis,
) -> None:
    google.answer = lambda body: (
        "Firestore stores the notes [N1]. Bananas are yellow [N9]. "
        "Cloud Run hosts the API [N2]. Firestore keeps conversations too [N7][N1]."
    )
    h = _harness(google)
    response = _stream(h, "Where are the notes stored and where does the API run?")
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    events = _events(response.get_data(as_text=True))
    names = [name for name, _ in events]
    assert names[0] == "meta" and names[-1] == "done"
    deltas = [data["text"] for name, data in events if name == "delta"]
    # one delta per checked sentence: the invented source N9 and the unknown N7 never go out
    assert len(deltas) == 3, deltas
    assert all("[N9]" not in d and "[N7]" not in d and "Bananas" not in d for d in deltas)
    assert deltas[0].startswith("Firestore stores the notes [N")
    done = events[-1][1]
    assert done["answer"] == "".join(deltas).strip()
    assert {c["cid"] for c in done["citations"]} == {"N1", "N2"}
    # the real SDK streaming call went over the wire; no one-shot call was made
    assert len(google.calls("stream")) == 1 and not google.calls("generate")


def test_a_client_that_disconnects_stops_the_generation(google: FakeGoogleApis) -> None:
    # (40 sentences the note supports: the grounder keeps each, so the stream runs on)
    google.answer = lambda body: " ".join(
        "Firestore stores the notes and the conversations [N1]." for _ in range(40)
    )
    h = _harness(google)
    generator = h.container._built["generator"]
    models = generator._client.models
    real = models.generate_content_stream
    pulled: list[int] = []
    closed: list[bool] = []

    def counting(**kw: Any) -> Any:
        try:
            for piece in real(**kw):  # the real google-genai streaming call
                pulled.append(1)
                yield piece
        finally:
            closed.append(True)

    models.generate_content_stream = counting
    response = _stream(h, "Where are the notes stored?")
    body = iter(response.response)
    first = next(body)  # meta
    second = next(body)  # the first sentence
    assert b"event: meta" in first and b"event: delta" in second
    assert not closed
    response.close()  # the client goes away
    assert closed == [True]  # ... and the model's stream was closed, not left open
    # the fake sent 4 words per chunk: 40 sentences are ~80 chunks; we read a handful
    assert 0 < len(pulled) < 20, len(pulled)
    conversation = json.loads(first.decode().split("data: ", 1)[1])["conversationId"]
    assert conversation  # minted for the new conversation before generating ...
    # ... but nothing was recorded under it: the answer never completed
    assert not [t for t in h.store.turns.values() if t.role == "assistant"]
    assert h.call("GET", f"/conversations/{conversation}/messages", "alice").status_code == 404


def test_quote_answers_stream_line_by_line() -> None:
    h = _harness()
    response = _stream(h, "list the notes about Firestore and Cloud Run")
    events = _events(response.get_data(as_text=True))
    deltas = [data["text"] for name, data in events if name == "delta"]
    assert len(deltas) >= 2
    assert all(d.count("[N") >= 1 for d in deltas)
    done = events[-1][1]
    assert events[-1][0] == "done" and done["answer"] == "".join(deltas).strip()
    assert done["citations"]
