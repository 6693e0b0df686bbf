""" "What's Marco's number?": a number written beside a name is theirs, though no note
says "number" — through the real indexing and chat pipeline (memory store, hash
embedder), where Marco also speaks in the notes, so his name alone covers nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from footnote.domain import Note
from footnote.evaluation.everyday import Clock
from footnote.services.chat import RagConfig
from footnote.wiring import Container
from tests.inproc import settings

WRITTEN = datetime(2026, 10, 7, 9, 0, tzinfo=UTC)
TENANT = "band"
NOTES = {
    "contacts": ("band contacts", "Marco – vox/guitar 512-555-0192\nTess – drums\nBen – keys"),
    "rehearsal": ("rehearsal", "Tess forgot her sticks lol. Bridge in C."),
    "plans": ("plans", "Marco: wants to record 3 songs in Jan at Ben's friend's studio"),
    "gate": ("studio", "Red Door Studios, room 3. Gate code 2719"),
    **{
        f"gig{i}": (f"gig {i}", f"Played set {i}: {song}. Sold {i + 3} shirts.")
        for i, song in enumerate(("Paper Moon", "Saltwater", "Velvet Hours", "Slow Burn"))
    },
}


@pytest.fixture(scope="module")
def app() -> Container:
    clock = Clock()
    clock.now = WRITTEN
    c = Container(settings(), clock=clock)
    for note_id, (title, text) in NOTES.items():
        c.store.create_note(Note(note_id, TENANT, text, WRITTEN, WRITTEN, title=title))
        c.indexing.index_note(note_id)
    clock.now = WRITTEN.replace(day=20)
    return c


def test_a_persons_number_is_the_number_beside_their_name(app: Container) -> None:
    out = app.chat.chat(TENANT, "What's Marco's number?", None, RagConfig())
    assert "512-555-0192" in out.answer, out.answer


def test_a_code_is_still_the_one_written_with_its_name(app: Container) -> None:
    out = app.chat.chat(TENANT, "What's the gate code?", None, RagConfig())
    assert "2719" in out.answer and "512-555" not in out.answer, out.answer


def test_number_is_a_word_a_number_covers_and_code_is_not() -> None:
    from footnote.generation import answer_types

    found = answer_types.named_by_value("What's Marco's number?")
    assert found is not None and found[1] == frozenset({"number"})
    assert found[0].search("Marco – vox/guitar 512-555-0192")
    # a code, a PIN, a reference is written with its name
    assert answer_types.named_by_value("What's the gate code?") is None


def test_a_dates_digits_are_no_number_of_a_thing() -> None:
    from footnote.generation import answer_types
    from footnote.generation.extractive import compose
    from footnote.query.analysis import analyze
    from tests.factories import source

    trip = [source("N1", "Scouting trip to Valencia Feb 12-21 2027 - open a bank account (NIE?)")]
    question = "What's my NIE number?"
    kind, _ = answer_types.asked(question) or (None, "")
    assert kind is not None and not answer_types.states(kind, trip[0].chunk.text)
    assert answer_types.states(kind, "NIE Y-1234567-Z came in the post")
    assert "I don't have enough" in compose(question, trip, analyze(question, WRITTEN))
