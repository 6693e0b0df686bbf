"""Questions as people type them: no apostrophes, no question word, another form of the
note's word; and a weekday with its day of the month said to be ahead."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from footnote.domain import Chunk, MemoryType, Source
from footnote.generation.dates import resolve_phrases
from footnote.generation.extractive import asks_when, compose
from footnote.generation.prompt import NOT_ENOUGH
from footnote.query.analysis import analyze
from footnote.query.plan import plan
from footnote.query.typed import as_written
from footnote.text import kin, spelled_out, terms

ASKED = datetime(2026, 4, 22, 21, tzinfo=UTC)


def _source(cid: str, title: str, text: str, written: datetime) -> Source:
    body = f"{title}\n\n{text}" if title else text
    chunk = Chunk(
        f"{cid}_c", f"{cid}_n", "t", 0, body, (), MemoryType.NOTE, written, (), "m", title
    )
    return Source(cid, chunk, 1.0)


@pytest.mark.parametrize(
    ("typed", "written"),
    [
        ("whats chloe allergic to again", "what's chloe allergic to again"),
        ("whens completion", "when's completion"),
        ("when did i sign up", "when did I sign up"),
        ("solicitors phone number?", "what's the solicitors phone number?"),
        ("deadline to send the jerseys back?", "what's the deadline to send the jerseys back?"),
        ("the number for the plumber?", "what's the number for the plumber?"),
        # already a question: a question word anywhere, a choice, a yes or no, a request,
        # a follow-up's "and"
        ("kentas leaving drinks - when?", "kentas leaving drinks - when?"),
        ("Red or white wine in the ragù?", "Red or white wine in the ragù?"),
        ("did I pay Jo", "did I pay Jo"),
        ("list my todos", "list my todos"),
        ("and the fridge repair guy?", "and the fridge repair guy?"),
        # words that are words as typed stay
        ("its due when?", "its due when?"),
    ],
)
def test_a_typed_question_is_read_as_the_question_it_stands_for(typed: str, written: str) -> None:
    assert as_written(typed) == written


def test_the_plan_reads_the_question_as_written_and_keeps_what_was_typed() -> None:
    read = plan("deadline to send the jerseys back?", ASKED, {})
    assert read.message == "deadline to send the jerseys back?"
    assert read.question == "what's the deadline to send the jerseys back?"
    assert asks_when(read.question) and not asks_when(read.message)
    # "whats" is no keyword once read as "what's"
    assert plan("whats chloe allergic to", ASKED, {}).analysis.keywords == ("chloe", "allerg")


def test_a_word_of_the_same_family_covers_the_question() -> None:
    assert kin(terms("allergic inspection"), terms("allergy inspector")) == {"allerg", "inspect"}
    # short stems begin too many words to be kin
    assert not kin(terms("part plan"), terms("party planet"))
    roster = _source(
        "N1",
        "Roster",
        "#7 Owen - asthma, inhaler in his bag\n#11 Chloe - PEANUT allergy, EpiPen stays with Jen",
        datetime(2026, 2, 12, tzinfo=UTC),
    )
    match = _source(
        "N2",
        "Match vs Elk",
        "Chloe rolled her ankle 2nd half - ice, Jen took her home",
        datetime(2026, 4, 11, tzinfo=UTC),
    )
    question = as_written("whats chloe allergic to again")
    answer = compose(question, [match, roster], analyze(question, ASKED))
    assert answer != NOT_ENOUGH and "PEANUT" in answer and "ankle" not in answer


def test_a_weekday_and_day_said_to_be_ahead_is_the_one_still_to_come() -> None:
    friday_6_march = datetime(2026, 3, 6, 14, tzinfo=UTC)
    # both 25 February and 25 March 2026 are Wednesdays: "by" says which
    (due,) = resolve_phrases("need the balance in the client account by Weds 25th", friday_6_march)
    assert due.meaning == "Wednesday, 25 March 2026"
    # an ordinal's colon is no time's
    (van,) = resolve_phrases("confirmed Sat 28th: 2 men + luton", datetime(2026, 3, 18, tzinfo=UTC))
    assert van.meaning == "Saturday, 28 March 2026"
    # with no sign of either side, the nearest
    (met,) = resolve_phrases("met Omar Thu 13", datetime(2025, 11, 18, tzinfo=UTC))
    assert met.meaning == "Thursday, 13 November 2025"


@pytest.mark.parametrize(
    ("question", "when"),
    [
        ("shedd reflections due when?", True),  # the question word last
        ("what's the rehearsal dinner date?", True),  # the date of a named thing
        ("what's the japanese word for deadline?", False),  # a word, not a date
        ("what's the date night idea", False),
    ],
)
def test_a_question_asking_a_date_as_typed(question: str, when: bool) -> None:
    assert asks_when(question) is when


def test_phrases_of_days_as_notes_write_them() -> None:
    sunday = datetime(2026, 2, 15, 9, tzinfo=UTC)
    (jars,) = resolve_phrases("dropping them over day after tmrw", sunday)
    assert jars.meaning == "17 February 2026"
    (live,) = resolve_phrases("new e-obs system goes live 3 wks today", datetime(2026, 2, 23))
    assert live.meaning == "16 March 2026"
    schedule = "AP Bio review – Weds 3:15\n4/15: units 1–2\n4/29: units 5–6 (genetics!!)"
    found = [r.phrase for r in resolve_phrases(schedule, datetime(2026, 4, 13))]
    assert found[-2:] == ["4/15", "4/29"]
    # a fraction is no date: only a line's leading date, before its colon or dash
    assert resolve_phrases("3/4 cup flour, 1/2 tsp salt", datetime(2026, 4, 13)) == []


def test_a_weekday_before_or_after_a_day_named_earlier_counts_from_it() -> None:
    written = datetime(2026, 2, 4, tzinfo=UTC)
    (garage,) = resolve_phrases(
        "Booked in at Fenton's Garage for the Sat before, 8.30 drop off.",
        written,
        "Dan's Corsa – MOT runs out Tue 24 Mar. ",
    )
    assert garage.meaning == "Saturday, 21 March 2026"
    (after,) = resolve_phrases("moved to the Monday after", written, "shoot Tue 5 May 2-6pm. ")
    assert after.meaning == "Monday, 11 May 2026"
    # with no day named before it, the weekday alone, as it was read
    (alone,) = resolve_phrases("Booked in for the Sat before", written)
    (weekday,) = resolve_phrases("Booked in for the Sat", written)
    assert alone.meaning == weekday.meaning


def test_sat_and_sun_written_as_days_are_the_days() -> None:
    rota = _source(
        "N1",
        "Rota – March",
        "Mon-Fri: me + Finn (Lotte Tue/Thu)\nSat: Ayla + Mehmet\nSun: closed",
        datetime(2026, 3, 1, tzinfo=UTC),
    )
    question = "who works saturdays on the current rota"
    answer = compose(question, [rota], analyze(question, ASKED))
    assert "Ayla + Mehmet" in answer
    # "sat" and "sun" as words are no days
    assert "saturday" not in spelled_out(terms("we sat in the sun"), "we sat in the sun")


def test_a_prescribed_to_do_is_no_to_do_list() -> None:
    # "what am I meant to do" asks what was prescribed: a TODO note is no answer
    assert "todo" not in terms("how many heel drops am i meant to do")
    assert "todo" not in terms("what am I supposed to do")
    # the list is still asked for, and still a heading
    assert "todo" in terms("what do I need to do")
    assert "todo" in terms("Things to do") and "todo" in terms("To do:")
