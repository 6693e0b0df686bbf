"""A "when" question's tense reads a date its note leaves open, and asks of a plan."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from footnote.domain import Chunk, MemoryType, Source
from footnote.generation.extractive import compose
from footnote.query.analysis import analyze

LONDON = ZoneInfo("Europe/London")
THURSDAY = datetime(2026, 11, 26, 20, tzinfo=LONDON)


def _note(text: str, written: datetime, title: str = "") -> list[Source]:
    chunk = Chunk("n1_c", "n1", "t", 0, text, (), MemoryType.NOTE, written, (), "m", title)
    return [Source("N1", chunk, 1.0)]


def _answer(question: str, sources: list[Source], asked: datetime = THURSDAY) -> str:
    return compose(question, sources, analyze(question, asked))


def test_a_past_question_reads_an_open_weekday_back_when_ahead_is_still_to_come() -> None:
    log = _note(
        "Leeks x4, brussels 1kg. Frost -3 on Monday", datetime(2026, 11, 25, 16, tzinfo=LONDON)
    )
    # written on Wednesday 25th, asked on Thursday 26th: the frost was on the 23rd, not
    # on the 30th (still to come)
    assert "23 November 2026" in _answer("When was the frost?", log)
    # asked of what is coming, the same line reads ahead
    assert "30 November 2026" in _answer("When is the frost?", log)
    # a plan read ahead to a day already past stays that day
    plan = _note(
        "Tasting at Sabores do Monte Thursday 11am", datetime(2026, 3, 20, 9, tzinfo=LONDON)
    )
    assert "26 March 2026" in _answer("When was the tasting at Sabores do Monte?", plan)


def test_a_past_question_of_a_plan_asks_the_plans_day() -> None:
    # written on Monday 5 October: "by Friday" is the 9th, whatever tense asks it
    leave = _note(
        "Study leave request has to go in writing by Friday.",
        datetime(2026, 10, 5, 9, tzinfo=LONDON),
    )
    answer = _answer("When did I have to put the study leave request in by?", leave)
    assert "9 October 2026" in answer


def test_a_past_question_over_an_undated_record_takes_the_day_a_plan_named() -> None:
    written = datetime(2026, 9, 14, 16, tzinfo=LONDON)
    plan = Chunk(
        "n1_c",
        "n1",
        "t",
        0,
        "Hannah: book scrutiny Thurs 8 Oct, bring 3 books per class",
        (),
        MemoryType.NOTE,
        written,
        (),
        "m",
        "Dept meeting",
    )
    feedback = Chunk(
        "n2_c",
        "n2",
        "t",
        0,
        "book scrutiny feedback - green pen responses good, need more DIRT time",
        (),
        MemoryType.NOTE,
        datetime(2026, 10, 9, 15, tzinfo=LONDON),
        (),
        "m",
        "",
    )
    sources = [Source("N1", feedback, 1.0), Source("N2", plan, 0.9)]
    answer = _answer("When was the book scrutiny?", sources)
    assert "8 Oct" in answer and "[N2]" in answer


def test_the_next_one_is_the_earliest_day_still_to_come() -> None:
    rota = _note(
        "nights: 9,10,11 Nov. Long days 16, 18, 21. Then nights again 30 Nov, 1 Dec, 2 Dec.\n"
        "Swapped Sat 21st with Aoife -> I do her Sat 28th long day instead",
        datetime(2026, 11, 2, 9, tzinfo=LONDON),
        "Rota Nov",
    )
    # asked on Thursday 26 November: the nights of the 9th-11th are past
    assert "30 Nov" in _answer("When is my next night shift?", rota)
    # of the two Saturdays the swap names, the one still to come
    assert "28 November 2026" in _answer("When is my next long day?", rota)
