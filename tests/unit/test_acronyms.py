"""A name the question spells out that the notes write as its initials ("Hole in the
Wall" / "HITW"), and a word they write shortened ("asst" / "assistant")."""

from __future__ import annotations

from datetime import UTC, datetime

from footnote.domain import Chunk, MemoryType, Note, Source
from footnote.evaluation.everyday import Clock
from footnote.generation.quote import compose
from footnote.query.acronyms import initials, spelled_small, with_initials
from footnote.query.analysis import analyze
from footnote.services.chat import RagConfig
from footnote.text import short_for, shortened
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
    assert "11 shirts" in out.answer, out.answer


def test_a_note_written_with_the_initials_holds_the_name_spelled_out() -> None:
    from footnote.domain import Chunk, MemoryType, Source
    from footnote.generation.names import missing_names

    recap = Chunk(
        "r_c",
        "r",
        "band",
        0,
        "HITW recap: Sold 11 shirts ($20)",
        (),
        MemoryType.NOTE,
        NOW,
        (),
        "m",
        "",
    )
    question = "How many shirts did we sell at Hole in the Wall?"
    assert missing_names(question, [Source("N1", recap, 1.0)]) == []
    assert missing_names(
        "How many shirts did we sell at Cheer Up Charlies?", [Source("N1", recap, 1.0)]
    )


def test_a_sentence_written_with_the_initials_covers_the_name_spelled_out() -> None:
    from footnote.domain import Chunk, MemoryType, Source
    from footnote.generation.quote import compose

    def source(cid: str, text: str) -> Source:
        chunk = Chunk(f"{cid}_c", cid, "band", 0, text, (), MemoryType.NOTE, NOW, (), "m", "")
        return Source(cid, chunk, 1.0)

    question = "How many shirts did we sell at Hole in the Wall?"
    notes = [
        source("N1", "Red Door Studios, room 3. Gate code 2719."),
        source("N2", "HITW recap: ~80 ppl. Sold 11 shirts ($20) + 6 EPs ($10)."),
    ]
    assert "11 shirts" in compose(question, notes, analyze(question, NOW))


def test_two_capitals_in_a_note_are_the_initials_of_words_written_small() -> None:
    from footnote.generation.quote import compose
    from tests.unit.test_everyday_answers import _source

    visit = _source(
        "N1", "GP visit", "Dr Haddad said the apixaban is a blood thinner.\nBP 128/76, HR 72"
    )
    question = "what was dads blood pressure at the gp"
    answer = compose(question, [visit], analyze(question, NOW))
    assert "128/76" in answer, answer
    # two letters are searched for only when asked: by default three are the fewest
    assert "bp" not in [letters for letters, _ in spelled_small(question)]
    assert "bp" in [letters for letters, _ in spelled_small(question, shortest=2)]


def test_a_word_notes_write_shortened_is_known_by_its_short_form() -> None:
    for short, word in [
        ("asst", "assistant"),
        ("mtg", "meeting"),
        ("appt", "appointment"),
        ("wk", "week"),
        ("hrs", "hours"),
        ("demo", "demonstrating"),
        ("physio", "physiotherapist"),
    ]:
        assert shortened(short, word), (short, word)
    # three letters opening a word shorten it only as the label of a number
    assert shortened("ext", "extension", labels=True)
    assert not shortened("fun", "fundraiser")
    # real words that happen to hold a longer word's letters are none
    for short, word in [
        ("log", "longest"),
        ("car", "career"),
        ("bus", "business"),
        ("ted", "tuesday"),
        ("mr", "metformin"),
        ("ins", "ingredients"),
    ]:
        assert not shortened(short, word), (short, word)
    assert short_for(["assistant", "coach"], "asst coach: Nadia") == {"assist"}
    assert short_for(["extension"], "CPC: Grainne Walsh ext 4412") == {"extens"}
    assert short_for(["fundraiser"], "Wow, sounds fun!") == set()
    # a number with its unit is no label's number: "fun 5k" is a run
    assert short_for(["fundraiser"], "fun 5k sat w/ Jo") == set()


def test_a_question_is_answered_by_the_line_writing_its_word_short() -> None:
    roster = Source(
        "N1",
        Chunk(
            "N1_c",
            "N1_n",
            "t",
            0,
            "roster winter\n\n12 players: Ava, Maya, Zoe\nasst coach: Nadia Haddad\n"
            "team mgr: Helen (Chloe's mom)",
            (),
            MemoryType.NOTE,
            datetime(2026, 1, 5, tzinfo=UTC),
            (),
            "m",
            "roster winter",
        ),
        1.0,
    )
    question = "who was my assistant coach this winter"
    answer = compose(question, [roster], analyze(question, datetime(2026, 4, 1, tzinfo=UTC)))
    assert "Nadia Haddad" in answer, answer
