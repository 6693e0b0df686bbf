"""A name the question spells out that the notes write as its initials ("Hole in the
Wall" / "HITW"), and a word they write shortened ("asst" / "assistant")."""

from __future__ import annotations

from datetime import UTC, datetime

from footnote.domain import Note
from footnote.evaluation.everyday import Clock
from footnote.query.acronyms import initials, with_initials
from footnote.query.analysis import analyze
from footnote.services.chat import RagConfig
from footnote.wiring import Container
from tests.inproc import settings

NOW = datetime(2026, 11, 26, 20, tzinfo=UTC)


def test_the_initials_of_a_name_spelled_out() -> None:
    # of every word, and of the capitalised ones alone
    assert initials("How many shirts did we sell at Hole in the Wall?") == ["hitw"]
    assert initials("What time is the Think Tank Museum trip?") == ["ttm"]
    # two capitals are too few letters to be sure of; a question word is no name
    assert initials("When is Mia Santos moving in?") == []
    # a word and its number by its initial: "season 3" written "S3", "period 2" "P2"
    assert initials("When did season 3 launch?") == ["s3"]
    assert initials("What do I teach on Wednesday period 2?") == ["p2"]


def test_initials_the_notes_hold_are_searched_too() -> None:
    analysis = analyze("How many shirts did we sell at Hole in the Wall?", NOW)
    added = with_initials(analysis, {"hitw"}.__contains__)
    assert added.keywords == (*analysis.keywords, "hitw")
    # initials no note holds are not searched for
    assert with_initials(analysis, set().__contains__) == analysis


def test_a_chat_question_finds_the_note_written_with_initials() -> None:
    clock = Clock()
    clock.now = datetime(2026, 9, 20, tzinfo=UTC)
    app = Container(settings(), clock=clock)
    notes = {
        "deal": ("gig offer", "Sat 26 Sept, Hole in the Wall, 2538 Guadalupe. Load in 8pm."),
        "recap": ("", "HITW recap: ~80 ppl. Sold 11 shirts ($20) + 6 EPs ($10)."),
        "merch": ("merch order", "Ordered 40 shirts from Ink Factory. Ready in 2 weeks."),
        "setlist": ("setlist", "Paper Moon, Saltwater, Velvet Hours."),
    }
    for note_id, (title, text) in notes.items():
        app.store.create_note(Note(note_id, "band", text, clock.now, clock.now, title=title))
        app.indexing.index_note(note_id)
    clock.now = NOW
    out = app.chat.chat(
        "band", "How many shirts did we sell at Hole in the Wall?", None, RagConfig()
    )
    # the note written with the initials is among what the generator is given
    assert "recap_000" in out.log_fields["sourceChunkIds"], out.log_fields
