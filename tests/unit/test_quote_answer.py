"""The offline answer quotes the notes: the supporting lines of the best passages,
verbatim, each cited, under the note's title and date."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from footnote.domain import Intent, QueryAnalysis, Source
from footnote.generation.citations import MARKER, validate
from footnote.generation.prompt import NOT_ENOUGH
from footnote.generation.quote import QuoteGenerator, compose
from tests.factories import checks, source

# Wednesday 11 March 2026
WRITTEN = datetime(2026, 3, 11, 9, 0, tzinfo=UTC)


def _analysis(question: str, intent: Intent = Intent.FACTUAL) -> QueryAnalysis:
    return QueryAnalysis(question, question.lower(), (), intent, now=WRITTEN)


def _note(cid: str, text: str, title: str = "", written: datetime = WRITTEN) -> Source:
    s = source(cid, f"{title}\n\n{text}" if title else text)
    chunk = dataclasses.replace(s.chunk, title=title, created_at=written)
    return Source(cid, chunk, s.score)


def _quoted_lines(answer: str) -> list[str]:
    """The answer's lines without their markers, the heading of each note left out."""
    lines = [re.sub(r" \[N\d+\]", "", line) for line in answer.splitlines()]
    # (and without the days its relative dates mean, written after them)
    lines = [re.sub(r" \([^()]+: [^()]+\)(?=[.!?:]?$)", "", line) for line in lines]
    return [line for line in lines if line and not line.endswith(":")]


def test_the_answer_quotes_the_supporting_line_under_the_note_title_and_date() -> None:
    notes = [
        _note("N1", "Plumber came at 9.\nNew boiler costs £2,400 fitted.\nKids at gran's.", "House")
    ]
    text = compose("How much is the new boiler?", notes, _analysis("How much is the new boiler?"))
    assert text.splitlines()[0] == "House, 11 March 2026 [N1]:"
    assert "New boiler costs £2,400 fitted [N1]." in text


def test_quoted_lines_are_the_notes_own_words_and_survive_the_citation_check() -> None:
    notes = [
        _note("N1", "- milk\n- eggs (free range)\n- 2x bread", "Shopping"),
        _note("N2", "TODO: call the bank. Renew passport before May!", "Todo"),
    ]
    for question in ("What do I need to buy?", "What are my todos?"):
        text = compose(question, notes, _analysis(question))
        body = "\n".join(s.chunk.text for s in notes)
        for line in _quoted_lines(text):
            assert line.strip() in body, line
        assert validate(text, notes, checks()).text == text  # nothing withheld, nothing altered


def test_a_list_is_quoted_as_its_items() -> None:
    items = "\n".join(f"- [ ] item number {n}" for n in range(1, 13))
    notes = [_note("N1", f"Packing for the trip:\n{items}\nLeave at 6.", "Trip")]
    text = compose("What do I pack for the trip?", notes, _analysis("What do I pack?"))
    for n in range(1, 13):
        assert f"- [ ] item number {n} [N1]" in text
    assert "Leave at 6" not in text  # the list, not the rest of the note


def test_a_relative_date_is_followed_by_the_day_it_means_against_the_note_date() -> None:
    notes = [_note("N1", "Dentist next Tues at 3pm.", "Appointments")]
    text = compose("When is the dentist?", notes, _analysis("When is the dentist?"))
    # the time of day is no part of the date phrase
    assert "Dentist next Tues at 3pm (next Tues: 17 March 2026) [N1]." in text
    assert validate(text, notes, checks()).text == text


def test_a_count_of_weeks_is_followed_by_the_day_it_lands_on() -> None:
    notes = [_note("N1", "Frame off for powder coat, ready in 3 wks.", "Bike")]
    text = compose("When is the frame ready?", notes, _analysis("When is the frame ready?"))
    # written on Wednesday 11 March: three weeks on is Wednesday 1 April, not "the week of"
    assert "ready in 3 wks (in 3 wks: 1 April 2026) [N1]." in text
    assert validate(text, notes, checks()).text == text


def test_a_range_of_days_is_followed_by_its_first_and_last_day() -> None:
    notes = [_note("N1", "Offsite moved to Tue-Thu next week.", "Offsite")]
    text = compose("When is the offsite?", notes, _analysis("When is the offsite?"))
    # written on Wednesday 11 March 2026: Tuesday to Thursday of the week after
    assert "(Tue-Thu: 17 March 2026 – 19 March 2026;" in text, text
    # a week too, in no language's words (the reader may read Spanish notes)
    assert "next week: 16 March 2026 – 22 March 2026)" in text, text
    assert validate(text, notes, checks()).text == text


def test_a_note_in_another_language_is_dated_in_its_own_and_told_in_the_readers() -> None:
    notes = [_note("N1", "Cita con la dentista pasado mañana a las 10:00.", "Dentista")]
    text = compose("When is the dentist?", notes, _analysis("When is the dentist?"))
    # written on Wednesday 11 March: "pasado mañana" is Friday 13 March
    assert "(pasado mañana: 13 March 2026) [N1]." in text
    # the heading ("Dentista, 11 March 2026") and the line are the note's: fully supported
    checked = validate(text, notes, checks())
    assert checked.text == text
    assert [c.support for c in checked.citations] == [1.0]


def test_a_second_passage_is_quoted_only_when_it_supports_the_question_nearly_as_well() -> None:
    boiler = _note("N1", "The boiler service is booked for Friday.", "House")
    other = _note("N2", "Swimming lessons moved to Saturdays.", "Kids")
    same = _note("N3", "Boiler service cost £90 last year.", "House 2025")
    question = "When is the boiler service?"
    assert "[N2]" not in compose(question, [boiler, other], _analysis(question))
    assert "[N3]" in compose(question, [boiler, same], _analysis(question))


def test_it_declines_only_when_there_is_nothing_to_quote() -> None:
    assert compose("anything?", [], _analysis("anything?")) == NOT_ENOUGH
    far = [_note("N1", "Completely unrelated words here.", "Misc")]
    assert "[N1]" in compose("What is the wifi password?", far, _analysis("wifi?"))


def test_a_long_paragraph_is_quoted_by_its_sentences_within_the_budget() -> None:
    filler = " ".join(f"Sentence {n} says nothing about it." for n in range(40))
    notes = [_note("N1", f"{filler} The gate code is 4471. {filler}", "Visit")]
    text = compose("What is the gate code?", notes, _analysis("What is the gate code?"))
    assert "The gate code is 4471 [N1]." in text
    assert len(MARKER.sub("", text)) <= 450


def test_streamed_pieces_are_the_plain_answer() -> None:
    notes = [_note("N1", "Wifi: HomeNet. Password is on the router.\n- a\n- b", "Flat")]
    generator = QuoteGenerator()
    args = ("What is the wifi?", notes, _analysis("What is the wifi?"), False, ())
    plain = "".join(generator.execute(*args, stream=False))
    pieces = list(generator.execute(*args, stream=True))
    assert len(pieces) > 1 and "".join(pieces) == plain


_line = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), max_size=60
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_line, min_size=1, max_size=8), st.sampled_from(["-", "*", "1.", "", "[ ]"]))
def test_whatever_a_note_holds_the_quote_is_its_words_verbatim(
    lines: list[str], bullet: str
) -> None:
    text = "\n".join(f"{bullet} {line}".strip() for line in lines)
    if not text.strip():
        return
    notes = [_note("N1", text, "Note")]
    answer = compose("what did I write", notes, _analysis("what did I write"))
    if answer == NOT_ENOUGH:  # a note of no words has no line to quote
        return
    for line in _quoted_lines(answer):
        assert line.strip() in text or line.strip().rstrip(".:!?") in text, (line, text)


def test_the_citation_check_keeps_the_blank_line_between_quoted_notes() -> None:
    notes = [
        _note("N1", "Boiler service booked for the 14th.", "House"),
        _note("N2", "Boiler service cost £90 last time.", "House 2025"),
    ]
    text = compose("boiler service", notes, _analysis("boiler service"))
    assert "\n\n" in text
    assert validate(text, notes, checks()).text == text
