"""Notes of one series ("timesheet" each month) are alike to an embedding model, but
each is its own record: a word they all hold finds every one of them."""

from __future__ import annotations

from datetime import UTC, datetime

from footnote.domain import Note
from tests.inproc import Harness

WRITTEN = datetime(2026, 4, 30, 12, tzinfo=UTC)


def test_a_word_two_notes_of_a_series_hold_finds_both() -> None:
    # MiniLM puts these two at cosine 0.953: near enough to have been dropped as one
    h = Harness(EMBEDDER="local")
    texts = [
        "march: 21 hrs demo + 6 hrs marking. submitted",
        "april: 18 hrs demo + 4 hrs marking. submitted",
    ]
    for i, text in enumerate(texts):
        h.store.create_note(Note(f"n{i}", "alice", text, WRITTEN, WRITTEN, title="timesheet"))
    h.index_all()
    found = h.container.chat.search("alice", "marking", 8)
    assert {hit.note_id for hit in found.hits} == {"n0", "n1"}, found.hits
    answer = h.ask("alice", "how many hours of marking have i done")["answer"]
    # both notes of the series are quoted
    assert "4 hrs marking" in answer and "6 hrs marking" in answer, answer
