"""Dates written in numbers ("renews 12/1", "lease ends 5/31/27", "done 22/9"), read as
the writer's part of the world writes them; and whose date a "when" answer gives."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from footnote.domain import Chunk, MemoryType, Source
from footnote.generation.dates import resolve_phrases
from footnote.generation.extractive import compose
from footnote.generation.prompt import NOT_ENOUGH
from footnote.query.analysis import analyze

NEW_YORK = ZoneInfo("America/New_York")
LONDON = ZoneInfo("Europe/London")


def _meanings(text: str, written: datetime) -> list[str]:
    return [r.meaning for r in resolve_phrases(text, written)]


def test_a_date_in_numbers_is_month_first_in_the_us_and_day_first_elsewhere() -> None:
    october_ny = datetime(2026, 10, 2, 12, tzinfo=NEW_YORK)
    october_london = datetime(2026, 10, 2, 12, tzinfo=LONDON)
    assert _meanings("State Farm renews 12/1, premium $2,340/yr", october_ny) == ["1 December 2026"]
    assert _meanings("renews 12/1", october_london) == ["12 January 2027"]
    # a day over 12 fixes the order whatever the zone
    assert _meanings("lease ends 5/31/27", october_london) == ["31 May 2027"]
    assert _meanings("manual handling (done 22/9)", october_ny) == ["22 September 2026"]
    assert _meanings("invoice dated 31.05.2027", october_london) == ["31 May 2027"]


def test_ratings_scores_and_fractions_are_no_dates() -> None:
    written = datetime(2026, 10, 2, 12, tzinfo=LONDON)
    for text in ("rated it 4/5", "aiming 8/9", "60/40 split", "Sold out 12/12.", "1/2 cup flour"):
        assert _meanings(text, written) == [], text


def test_a_when_answer_gives_the_date_of_whose_thing_was_asked() -> None:
    written = datetime(2026, 9, 1, 12, tzinfo=NEW_YORK)
    text = (
        "Tenants\n\n- Unit 1: Tasha Greene, $1,350/mo, lease ends 5/31/27\n"
        "- upstairs: Olu Adeyemi $1,600\n- downstairs: Dana Ruiz, month to month"
    )
    chunk = Chunk("n1_c", "n1", "t", 0, text, (), MemoryType.NOTE, written, (), "m", "Tenants")
    sources = [Source("N1", chunk, 1.0)]
    asked = datetime(2026, 11, 26, 20, tzinfo=NEW_YORK)
    tasha = compose(
        "When does Tasha's lease end?", sources, analyze("When does Tasha's lease end?", asked)
    )
    assert "31 May 2027" in tasha
    olu = compose(
        "When does Olu's lease end?", sources, analyze("When does Olu's lease end?", asked)
    )
    assert olu == NOT_ENOUGH


def test_weekdays_written_short_in_lowercase_are_days() -> None:
    thursday = datetime(2026, 5, 7, 7, 40, tzinfo=LONDON)
    assert _meanings("booked at the garage mon 18th, drop van 8am", thursday) == [
        "Monday, 18 May 2026"
    ]
    assert _meanings("hosepipe ban from fri. cans only", thursday) == ["Friday, 8 May 2026"]
    assert _meanings("party by sat", thursday) == ["Saturday, 9 May 2026"]
    # "sat", "wed" and "sun" are words too: a day only where a day is written
    for text in ("sat down w the kids", "open 8-12 sat", "sun cream + hats", "we wed at 4"):
        assert _meanings(text, thursday) == [], text


def test_in_some_weeks_is_the_day_it_comes_to() -> None:
    monday = datetime(2026, 5, 11, 17, 25, tzinfo=LONDON)
    assert _meanings("chase in 2 wks if nothing", monday) == [
        "25 May 2026 (2 weeks after 11 May 2026)"
    ]
    assert _meanings("chased them 2 weeks ago", monday) == ["2 weeks before 11 May 2026"]


def test_a_weekday_of_a_routine_or_counted_from_an_undated_day_is_no_day() -> None:
    sunday = datetime(2026, 9, 20, 20, tzinfo=NEW_YORK)
    assert _meanings("spelling test every friday, list comes home mon", sunday) == []
    assert _meanings("first day is the tues after labor day", sunday) == []
    assert _meanings("see you Friday after work", sunday) == ["Friday, 25 September 2026"]
