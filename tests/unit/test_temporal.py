"""One reader of time (footnote.temporal): a question's window and a note's dates, read
by the same function against their anchor, in the user's language."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from footnote import temporal
from footnote.query.analysis import analyze
from footnote.text import language_of_text
from tests.inproc import Harness, envelope

MADRID = ZoneInfo("Europe/Madrid")
MONDAY = datetime(2026, 1, 5, 9, 0)  # Monday 5 January 2026, wall clock


def _days(spans: list[temporal.TimeSpan]) -> list[date | None]:
    return [s.day for s in spans]


def test_next_friday_is_read_by_one_function_in_a_question_and_in_a_note() -> None:
    in_note = temporal.note_dates("Pick up the cake next Friday", MONDAY.date())
    in_question = temporal.read_times("what is on next Friday?", MONDAY, ahead=False)
    assert _days(in_note) == _days(in_question) == [date(2026, 1, 9)]
    # a question asks of notes already written: a day ahead is no window on them
    window, unresolved, _ = temporal.question_window(
        "what is on next Friday?", MONDAY.replace(tzinfo=MADRID)
    )
    assert window is None and unresolved == ["on next Friday"]


@pytest.mark.parametrize(
    ("language", "question", "start", "end"),
    [
        ("en", "what happened last week?", date(2025, 12, 29), date(2026, 1, 5)),
        ("es", "¿qué pasó la semana pasada?", date(2025, 12, 29), date(2026, 1, 5)),
        ("de", "was war letzte Woche?", date(2025, 12, 29), date(2026, 1, 5)),
        ("en", "what did I write in March 2023?", date(2023, 3, 1), date(2023, 4, 1)),
        ("es", "¿qué escribí en marzo de 2023?", date(2023, 3, 1), date(2023, 4, 1)),
        ("de", "was habe ich im März 2023 geschrieben?", date(2023, 3, 1), date(2023, 4, 1)),
        ("en", "what did I note in December?", date(2025, 12, 1), date(2026, 1, 1)),
        ("en", "between March and May 2024", date(2024, 3, 1), date(2024, 6, 1)),
        ("de", "Was habe ich 2023 über Reisen notiert?", date(2023, 1, 1), date(2024, 1, 1)),
    ],
)
def test_a_question_window_in_the_users_language(
    language: str, question: str, start: date, end: date
) -> None:
    window, _, _ = temporal.question_window(question, MONDAY.replace(tzinfo=MADRID), language)
    assert window is not None and window.start is not None and window.end is not None
    assert (window.start.date(), window.end.date()) == (start, end)
    assert window.start.tzinfo is MADRID  # the user's calendar, not UTC's


def test_since_a_weekday_and_before_an_event_a_title_dates() -> None:
    now = MONDAY.replace(tzinfo=MADRID)
    since, _, _ = temporal.question_window("what did I do since Monday", now)
    assert since is not None and since.start == datetime(2026, 1, 5, tzinfo=MADRID)
    assert since.end is None
    before, _, _ = temporal.question_window(
        "what did we decide before the launch", now, events={"launch": date(2025, 11, 3)}
    )
    assert before is not None and (before.start, before.end) == (
        None,
        datetime(2025, 11, 3, tzinfo=MADRID),
    )


@pytest.mark.parametrize(
    ("language", "text", "day"),
    [
        ("en", "form + $8 due before Friday", date(2026, 1, 9)),
        ("en", "dentist next Tues at 10", date(2026, 1, 6)),
        ("en", "Fri 21 dentist", date(2026, 8, 21)),  # the next month whose 21st is a Friday
        ("es", "entregar antes del viernes", date(2026, 1, 9)),
        ("de", "Angebot bis Freitag raus!", date(2026, 1, 9)),
        ("de", "übermorgen Zahnarzt", date(2026, 1, 7)),
    ],
)
def test_a_notes_dates_are_read_ahead_of_its_writing(language: str, text: str, day: date) -> None:
    assert _days(temporal.note_dates(text, MONDAY.date(), language)) == [day]


@pytest.mark.parametrize(
    ("language", "text"),
    [("en", "report due in one week"), ("en", "back in 1 week"), ("de", "Abgabe in einer Woche")],
)
def test_a_count_of_units_ahead_is_read_with_its_word_for_the_future(
    language: str, text: str
) -> None:
    (span,) = temporal.note_dates(text, MONDAY.date(), language)
    assert span.start is not None and span.end is not None
    assert span.start <= datetime(2026, 1, 12) < span.end  # a week after Monday 5 January


@pytest.mark.parametrize(
    "text",
    [
        "buy 3 lemons",
        "you may go",
        "the March proposal",
        "what is the wifi password",
        "what was the 2024 budget?",
        "did the 2023 € bonus arrive?",
    ],
)
def test_numbers_and_words_that_are_no_date(text: str) -> None:
    assert temporal.read_times(text, MONDAY) == []


def test_a_note_cites_the_day_its_phrase_names() -> None:
    words = temporal.date_words(MONDAY.date(), "form due before Friday")
    assert "9 January 2026" in words and "5 January 2026" in words
    assert temporal.day_text(date(2026, 3, 7), "es") == "7 marzo 2026"


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("en-GB;q=0.5, es-MX", "es"),
        ("xx, zz;q=0.4", "en"),
        (None, "en"),
        ("es;q=abc, de;q=0.1", "de"),
    ],
)
def test_the_language_defaults_from_accept_language(header: str | None, language: str) -> None:
    assert temporal.language_of(header) == language


def test_analysis_reads_a_spanish_question_and_drops_its_time_words() -> None:
    a = analyze(
        "¿Qué escribí la semana pasada sobre el viaje?",
        MONDAY.replace(tzinfo=MADRID),
        language="es",
    )
    assert a.window is not None and a.window.start == datetime(2025, 12, 29, tzinfo=MADRID)
    assert "semana" not in a.keywords and "pasada" not in a.keywords


# -- the language, a setting of the request ------------------------------------------


def _search(h: Harness, body: Mapping[str, object], **headers: str) -> dict[str, Any]:
    r = h.call("POST", "/search", "ana", json=body, headers=headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    return dict(r.get_json())


def test_the_language_is_sent_or_read_from_accept_language() -> None:
    h = Harness()
    # one word says no language of its own: it is read in the reader's
    asked = {"query": "ayer", "timeZone": "Europe/Madrid"}
    sent = _search(h, {**asked, "language": "es"})
    assert sent["meta"]["query"]["window"] is not None
    by_header = _search(h, asked, **{"Accept-Language": "es-ES,es;q=0.9"})
    assert by_header["meta"]["query"]["window"] == sent["meta"]["query"]["window"]
    # read as English, "ayer" names no time
    english = _search(h, asked)
    assert english["meta"]["query"]["window"] is None
    # a question whose words say its language is read in it, whatever the setting
    spanish = {"query": "¿qué escribí la semana pasada?", "timeZone": "Europe/Madrid"}
    assert _search(h, spanish)["meta"]["query"]["window"] is not None
    # a language the reader does not know is read as English, not refused
    assert _search(h, {**asked, "language": "ja"})["meta"]["query"]["window"] is None
    bad = h.call("POST", "/search", "ana", json={**asked, "language": "es!; drop"})
    assert bad.status_code == 400 and envelope(bad)["code"]


def test_a_spanish_note_is_found_by_its_words_and_by_their_stems() -> None:
    h = Harness()
    h.add_note("ana", "Vuelos reservados para Lisboa: ida el jueves, hotel en Alfama")
    h.add_note("ana", "Comprar para la semana: leche, plátanos y café en grano")
    h.index_all()

    def by_word(query: str) -> list[str]:
        """The notes the keyword search found (the vector search finds by other means)."""
        hits = _search(h, {"query": query, "language": "es"})["results"]
        return [str(x["text"]) for x in hits if "keyword" in x["sources"]]

    assert [t[:6] for t in by_word("Alfama")] == ["Vuelos"]  # the word as written
    # "reservar" and "vuelo" are no words of the note: their stems are ("reserv", "vuel")
    assert [t[:6] for t in by_word("reservar")] == ["Vuelos"]
    assert [t[:6] for t in by_word("plátano")] == ["Compra"]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("- Tempus – applied\n- Medlytic?? no that's a scam posting, skip via Lucia", "en"),
        ("Comprar para la semana: leche, plátanos y café en grano", "es"),
        ("Der Handwerker kommt übermorgen zwischen 8 und 12, ich bin bis Mittag da", "de"),
    ],
)
def test_a_notes_language_is_read_from_its_own_stop_words(text: str, language: str) -> None:
    assert language_of_text(text) == language


def test_a_note_supports_the_year_or_month_its_phrase_names() -> None:
    """LoCoMo: "When did Melanie paint a sunrise?" is answered "2022" from a session of
    May 2023 saying "last year"; the citation check reads that year with the note."""
    words = temporal.date_words(date(2023, 5, 8), "I painted that lake sunrise last year.")
    assert "2022" in words.split()
    assert "April 2023" in temporal.date_words(date(2023, 5, 8), "We moved last month.")


def test_relative_words_that_name_no_phrase_are_no_date() -> None:
    assert temporal.read_times("the name of John's one-year-old child", MONDAY) == []
    window, _, _ = temporal.question_window(
        "errors in the past 3 days", MONDAY.replace(tzinfo=MADRID)
    )
    assert window is not None and window.start == datetime(2026, 1, 2, tzinfo=MADRID)
    assert window.end is None


@pytest.mark.parametrize(
    ("text", "language", "first"),
    [
        ("a month ago", "en", date(2024, 4, 1)),
        ("an hour ago", "en", date(2024, 5, 15)),
        ("a week ago we met", "en", date(2024, 5, 6)),
        ("hace un mes", "es", date(2024, 4, 1)),
    ],
)
def test_a_count_word_before_a_unit_opens_the_phrase(text: str, language: str, first: date) -> None:
    spans = temporal.read_times(text, datetime(2024, 5, 15, 10), language)
    assert [s.start.date() if s.start else None for s in spans] == [first], spans
    # alone, "a" is no time ("it took a week" names none)
    assert temporal.read_times("it took a week", datetime(2024, 5, 15, 10)) == []


def test_a_rolling_period_is_counted_in_words_too() -> None:
    now = datetime(2026, 11, 22, 10, tzinfo=UTC)
    for question, language in (
        ("what changed in the last two weeks", "en"),
        ("Was ist in den letzten zwei Wochen passiert?", "de"),
    ):
        window = analyze(question, now, language=language).window
        assert window is not None and window.end is None, question
        assert window.start == datetime(2026, 11, 8, tzinfo=UTC), question


# -- times of day, abbreviations, numeric dates (misreadings the grounder removed claims by)


@pytest.mark.parametrize(
    ("text", "written", "days"),
    [
        # a clock time is no part of a date; "19th" is a day number written as an ordinal
        (
            "train LDS -> EDB Mon 19th 09:12, back Thu 22nd 17:45",
            datetime(2026, 1, 6, 19, 40),
            [date(2026, 1, 19), date(2026, 1, 22)],
        ),
        ("Tues 27 Jan 10:00 interview", datetime(2026, 1, 10), [date(2026, 1, 27)]),
        # "2-4pm" is a range of hours; "9th" before the weekday is Isla's birthday
        ("Isla's 9th, Sat 24 Jan, 2-4pm", datetime(2026, 1, 16), [date(2026, 1, 24)]),
        ("library Mon 6-10pm", datetime(2025, 9, 2), [date(2025, 9, 8)]),
        # a weekday with a day the parser reads on another weekday is not that reading
        ("mom lands Fri 10/24 at 6:40pm", datetime(2025, 10, 10), [date(2025, 10, 24)]),
    ],
)
def test_a_time_of_day_is_no_part_of_a_date(text: str, written: datetime, days: list[date]) -> None:
    assert _days(temporal.note_dates(text, written)) == days


@pytest.mark.parametrize(
    ("text", "language", "written", "day"),
    [
        # a contraction of a unit or relative word of dateparser's data is that word
        ("next one in 12 wks", "en", datetime(2026, 2, 20, 19, 5), date(2026, 5, 15)),
        ("mtg w/ Sofia day after tmrw 11am", "en", datetime(2026, 5, 12), date(2026, 5, 14)),
        ("handover (starts tmrw 10am)", "en", datetime(2025, 8, 11), date(2025, 8, 12)),
        # a word of its vocabulary typed without its accents is that word
        ("cita con el pediatra el sabado", "es", MONDAY, date(2026, 1, 10)),
        ("llamar a mama manana", "es", MONDAY, date(2026, 1, 6)),
    ],
)
def test_a_word_written_short_or_unaccented_is_read_as_its_vocabulary_word(
    text: str, language: str, written: datetime, day: date
) -> None:
    (span,) = temporal.note_dates(text, written, language)
    assert span.start is not None and span.end is not None
    assert span.start.date() <= day < span.end.date(), span


def test_a_word_is_no_contraction_of_a_longer_one_it_only_starts_or_barely_shares() -> None:
    assert temporal.note_dates("envié 2 sms a Nerea", MONDAY, "es") == []
    assert temporal.note_dates("Gespräch über 2 Tage verteilt", MONDAY, "de") == []


@pytest.mark.parametrize(
    ("text", "language", "day"),
    [
        # day and month in digits, in the order of the language's locale
        ("Abgabe 5.12.", "de", date(2026, 12, 5)),
        ("bis 5.12. abgeben", "de", date(2026, 12, 5)),
        ("Termin Donnerstag 26.3.", "de", date(2026, 3, 26)),  # the year it is a Thursday
        ("entrega el 5/12/2026", "es", date(2026, 12, 5)),
        ("due 12/5/2026", "en", date(2026, 12, 5)),
        # with a slash and no year, where no share or score reads it
        ("reservado para el 20/06", "es", date(2027, 6, 20)),  # ahead: the coming one
        ("party on 12/25", "en", date(2026, 12, 25)),
    ],
)
def test_a_day_written_in_digits_is_read_in_the_languages_order(
    text: str, language: str, day: date
) -> None:
    (span,) = temporal.note_dates(text, datetime(2026, 11, 20, 9), language)
    assert span.day == day


@pytest.mark.parametrize(
    "text",
    ["Abgabe 5.12", "Abgabe 5.12.3", "v1.2. released", "Termin 31.2.", "3/4 Tasse", "12/5 Punkte"],
)
def test_digits_that_are_no_day_and_month(text: str) -> None:
    assert temporal.note_dates(text, datetime(2026, 11, 20, 9), "de") == []


def test_a_two_letter_weekday_is_read_where_the_text_places_it_as_a_day() -> None:
    text = "Training Sa 10 Uhr, nächsten Di Elternabend, bis Fr abgeben"
    spans = temporal.note_dates(text, datetime(2026, 2, 18, 9), "de")  # a Wednesday
    assert [(s.text, s.day) for s in spans] == [
        ("Sa", date(2026, 2, 21)),
        ("nächsten Di", date(2026, 2, 24)),
        ("bis Fr", date(2026, 2, 20)),
    ]
    assert spans[2].bound == "until"
    # elsewhere two letters are a word: "Mi" (a name), "so" and "we" (function words)
    assert temporal.note_dates("Mi hat angerufen, so ist es", MONDAY, "de") == []
    assert temporal.note_dates("We 3 went to Fr Tom's", MONDAY, "en") == []


def test_a_lowercase_month_or_weekday_is_a_date_in_a_language_that_writes_them_so() -> None:
    (feb,) = temporal.note_dates("Factura luz Iberdrola feb: 87,34€.", MONDAY, "es")
    assert (feb.text, feb.grain, feb.named) == ("feb", "month", datetime(2026, 2, 1))
    assert _days(temporal.note_dates("judo lunes 17:00", MONDAY, "es")) == [MONDAY.date()]
    # "mar" is March and Tuesday; "set" (September) is a variant's spelling, and a word
    assert temporal.note_dates("hotel con vistas al mar", MONDAY, "es") == []
    assert temporal.note_dates("Regalo: set de pulseras", MONDAY, "es") == []
    # English capitalises them: lower case is a word ("you may go")
    assert temporal.note_dates("you may go", MONDAY, "en") == []


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Tutoría pasado mañana a las 15:00 en el aula.", date(2026, 3, 6)),
        ("lo hablamos ant ayer", date(2026, 3, 2)),
        ("Tutoría mañana", date(2026, 3, 5)),
    ],
)
def test_a_word_that_points_past_tomorrow_names_the_day_after_it(text: str, day: date) -> None:
    assert _days(temporal.note_dates(text, datetime(2026, 3, 4, 16, 30), "es")) == [day]


@pytest.mark.parametrize(
    ("text", "written", "day"),
    [
        # a preposition opens a date of its own: "2" is the midterm's number
        ("Midterm 2 on Nov 19 - covers ch 6-9", datetime(2025, 10, 3), date(2025, 11, 19)),
        ("on Tuesday 12 August at 10 a.m.", datetime(2025, 8, 11), date(2025, 8, 12)),
        # an hour the parser takes for a year ("10-2": 2110) is no reading of the day
        ("Sat 10/25 10-2 pumpkin patch", datetime(2025, 10, 12), date(2025, 10, 25)),
    ],
)
def test_a_date_is_not_read_across_a_preposition_nor_into_another_century(
    text: str, written: datetime, day: date
) -> None:
    assert _days(temporal.note_dates(text, written)) == [day]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # "10-14 h" after the day: a range of hours, no two-digit year
        ("- mercadillo solidario: domingo 7 de junio 10-14 h en la plaza", "es"),
        ("Sun 7 June 10-2pm", "en"),
        ("So 7. Juni 10-14 Uhr", "de"),
        ("7 de junio 10-12", "es"),  # a range, with no word of the hours
        ("7 de junio 20 h", "es"),  # an hour: 2020 would be a plausible year
        ("7 June 10 hrs", "en"),
        # "de" is a relative word of Spanish ("dentro de"): it counts nothing from the
        # anchor, so the year "10" stays too far off to be read
        ("domingo 7 de junio 10", "es"),
    ],
)
def test_a_number_after_a_day_and_month_that_counts_hours_is_no_year(
    text: str, language: str
) -> None:
    written = datetime(2026, 5, 13, 12, 0)
    assert _days(temporal.note_dates(text, written, language)) == [date(2026, 6, 7)]
    for span in temporal.read_times(text, written, language, ahead=False):
        assert span.named is not None and abs(span.named.year - written.year) <= 10


def test_a_range_of_days_and_a_count_of_years_are_still_read() -> None:
    written = datetime(2026, 5, 13, 12, 0)
    # the number right after a month is its day, whatever follows
    assert _days(temporal.note_dates("June 10-14", written)) == [date(2026, 6, 10)]
    assert _days(temporal.note_dates("7 June 26", written)) == [date(2026, 6, 7)]
    far = temporal.note_dates("hace 20 años", written, "es")
    assert [s.named.year for s in far if s.named] == [2006]


@pytest.mark.parametrize(
    ("text", "language", "days"),
    [
        ("viene el jueves por la mañana", "es", [date(2026, 1, 8)]),
        ("esta mañana fui al médico", "es", []),
        ("diesen Morgen beim Arzt", "de", []),
        ("llamar mañana", "es", [date(2026, 1, 6)]),
        ("morgen Zahnarzt", "de", [date(2026, 1, 6)]),
    ],
)
def test_a_word_for_tomorrow_after_an_article_or_this_is_a_morning(
    text: str, language: str, days: list[date]
) -> None:
    assert _days(temporal.note_dates(text, MONDAY, language)) == days


@pytest.mark.parametrize(
    ("text", "language", "week", "exact"),
    [
        ("ready in 3 wks", "en", date(2026, 4, 6), date(2026, 4, 10)),
        ("Ergebnis in 3 Wochen", "de", date(2026, 4, 6), date(2026, 4, 10)),
        ("3 weeks ago", "en", date(2026, 2, 23), date(2026, 2, 27)),
    ],
)
def test_a_count_of_weeks_lands_on_a_day_inside_its_week(
    text: str, language: str, week: date, exact: date
) -> None:
    # written on Friday 20 March 2026
    (span,) = temporal.note_dates(text, datetime(2026, 3, 20, 13), language)
    assert span.grain == "week" and span.start is not None and span.exact is not None
    assert (span.start.date(), span.exact.date()) == (week, exact)


def test_a_period_named_without_a_count_lands_on_no_day() -> None:
    (span,) = temporal.note_dates("next week", datetime(2026, 3, 20, 13), "en")
    assert span.exact is None


def test_a_question_s_written_date_outweighs_a_phrase_read_against_the_asking_moment() -> None:
    # asked in November 2022: "last Friday" alone is 4 November, but the asker wrote the day
    window, *_ = temporal.question_window(
        "What did Joanna finish last Friday on 23 January, 2022?",
        datetime(2022, 11, 10, 12, tzinfo=UTC),
        "en",
    )
    assert window is not None and window.start is not None
    assert window.start.date() == date(2022, 1, 23)


# -- function words, a weekday beside its day, amounts (misreadings the grounder removed
# correct citations by)

WRITTEN_MONDAY = datetime(2026, 3, 30, 19, 10)  # Monday 30 March 2026


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # "die" and "mit" are dateparser's short Dienstag and Mittwoch, and German's
        # article and preposition
        ("Das Angebot an die Bäckerei Wagner ist raus.", "de"),
        ("Die Abgabe ist verschoben.", "de"),
        ("Teilverstärkung mit Stahlwinkeln, die ein Zimmermann ausführt", "de"),
        # Portuguese "ter" (terça) is "to have": "I will have 3 children", not Tuesday 3rd
        ("Vou ter 3 filhos", "pt"),
    ],
)
def test_a_short_month_or_weekday_that_is_a_function_word_is_no_date(
    text: str, language: str
) -> None:
    assert temporal.note_dates(text, WRITTEN_MONDAY, language) == []


def test_a_function_word_that_names_a_day_or_a_month_written_out_is_still_a_date() -> None:
    # "hoy", "ayer" are Spanish stop words; "May" an English one, and the month's name
    assert _days(temporal.note_dates("Hoy llamo a Ana, ayer no pude", WRITTEN_MONDAY, "es")) == [
        date(2026, 3, 30),
        date(2026, 3, 29),
    ]
    assert _days(temporal.note_dates("due in May, on 4 May", WRITTEN_MONDAY)) == [
        None,
        date(2026, 5, 4),
    ]
    assert _days(temporal.note_dates("am Dienstag, 7.4.", WRITTEN_MONDAY, "de")) == [
        date(2026, 4, 7)
    ]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Yilmaz hat den Beginn auf Montag, den 13. April, verschoben.", "de"),
        ("Der Beginn ist am Montag, 13. April.", "de"),
        ("The start moved to Monday, 13 April.", "en"),
        ("The start moved to Monday, the 13th of April.", "en"),
        ("The start moved on Monday the 13th of April.", "en"),
        ("El inicio se movió al lunes, 13 de abril.", "es"),
        ("El inicio es el lunes, el 13 de abril.", "es"),
    ],
)
def test_a_weekday_written_beside_its_day_names_that_day(text: str, language: str) -> None:
    (span,) = temporal.note_dates(text, WRITTEN_MONDAY, language)
    assert span.day == date(2026, 4, 13), span


def test_a_weekday_beside_a_day_of_another_weekday_names_another_day() -> None:
    # 13 April 2026 is a Monday: "Dienstag, den 13. April" is read as "Tuesday, 13 April"
    # is, in the nearest year it is a Tuesday; with a year written, each as written
    for text, language in (
        ("Yilmaz hat den Beginn auf Dienstag, den 13. April, verschoben.", "de"),
        ("The start moved to Tuesday, 13 April.", "en"),
        ("El inicio se movió al martes, 13 de abril.", "es"),
    ):
        (span,) = temporal.note_dates(text, WRITTEN_MONDAY, language)
        assert span.day == date(2027, 4, 13), text
    spans = temporal.note_dates("am Dienstag, den 13. April 2026", WRITTEN_MONDAY, "de")
    assert _days(spans) == [date(2026, 3, 31), date(2026, 4, 13)]


def test_a_weekday_and_its_day_are_joined_across_the_clauses_a_caller_reads_apart() -> None:
    text = "auf Montag, den 13. April, verschoben"
    cut = text.index(",")
    parts = [
        dataclasses.replace(s, start_pos=start + s.start_pos, end_pos=start + s.end_pos)
        for start, clause in ((0, text[:cut]), (cut + 1, text[cut + 1 :]))
        for s in temporal.note_dates(clause, WRITTEN_MONDAY, "de")
    ]
    assert len(parts) == 2
    (span,) = temporal.weekdays_dated(text, parts, "de")
    assert (span.text, span.day) == ("Montag, den 13. April", date(2026, 4, 13))


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Er rechnet mit etwa acht Arbeitstagen.", "de"),
        ("Er rechnet mit 8 Arbeitstagen.", "de"),
        ("He expects about eight working days.", "en"),
        ("Calcula unos ocho días laborables.", "es"),
    ],
)
def test_a_number_with_no_month_weekday_or_unit_beside_it_is_an_amount(
    text: str, language: str
) -> None:
    assert temporal.note_dates(text, WRITTEN_MONDAY, language) == []
    # a day with its month still is one
    assert _days(temporal.note_dates("am 8. April", WRITTEN_MONDAY, "de")) == [date(2026, 4, 8)]


@pytest.mark.parametrize(
    ("text", "language", "phrase"),
    [
        ("Flex-Desk ab Januar 195 € im Monat", "de", "ab Januar"),
        ("the desk is from January 195 a month", "en", "from January"),
        ("cuesta desde enero 195 € al mes", "es", "desde enero"),
        ("rent from March 12500 a year", "en", "from March"),
    ],
)
def test_an_amount_beside_a_month_is_not_the_months_day_or_year(
    text: str, language: str, phrase: str
) -> None:
    (span,) = temporal.note_dates(text, WRITTEN_MONDAY, language)
    assert span.text == phrase
    # a day and a year beside it still are its own
    (dated,) = temporal.note_dates("from March 12 2026", WRITTEN_MONDAY, "en")
    assert dated.day == date(2026, 3, 12)


@pytest.mark.parametrize(
    ("text", "written", "language", "days"),
    [
        (
            "Start Rückbau Mo 16.03., 7:30\nWasser im Strang am Tag danach ganztägig abgestellt",
            date(2026, 3, 2),
            "de",
            [date(2026, 3, 16), date(2026, 3, 17)],
        ),
        (
            "Übergabe: nicht Di 28.4. 10 Uhr, sondern einen Tag später, 17 Uhr",
            date(2026, 4, 15),
            "de",
            [date(2026, 4, 28), date(2026, 4, 29)],
        ),
        (
            "Nächste ETV Do 26.02., 18 Uhr\nAntrag spätestens 2 Wochen vorher einreichen!",
            date(2026, 1, 19),
            "de",
            [date(2026, 2, 26), date(2026, 2, 12)],
        ),
        (
            "Party on Friday 6 March. Clean up a day later.",
            date(2026, 1, 19),
            "en",
            [date(2026, 3, 6), date(2026, 3, 7)],
        ),
        (
            "Party on Fri 6 March, shop two weeks before.",
            date(2026, 1, 19),
            "en",
            [date(2026, 3, 6), date(2026, 2, 20)],
        ),
        (
            "Party on Fri 6 March; invites 3 days earlier",
            date(2026, 1, 19),
            "en",
            [date(2026, 3, 6), date(2026, 3, 3)],
        ),
        (
            "Party on Fri 6 March, rest the day after.",
            date(2026, 1, 19),
            "en",
            [date(2026, 3, 6), date(2026, 3, 7)],
        ),
        (
            "Fiesta el viernes 6 de marzo. Limpieza un día después.",
            date(2026, 1, 19),
            "es",
            [date(2026, 3, 6), date(2026, 3, 7)],
        ),
        (
            "Fiesta el viernes 6 de marzo; compras dos semanas antes.",
            date(2026, 1, 19),
            "es",
            [date(2026, 3, 6), date(2026, 2, 20)],
        ),
        (
            "Fiesta el viernes 6 de marzo. Al día siguiente descanso.",
            date(2026, 1, 19),
            "es",
            [date(2026, 3, 6), date(2026, 3, 7)],
        ),
    ],
)
def test_a_count_from_another_time_is_read_from_the_day_named_before_it(
    text: str, written: date, language: str, days: list[date]
) -> None:
    """ "am Tag danach", "2 Wochen vorher", "a day later", "dos semanas antes" count from
    the day the note names before them, not from the day it was written: read against
    the note's day they named nothing, and the grounder removed claims of that day."""
    assert _days(temporal.note_dates(text, written, language)) == days


@pytest.mark.parametrize(
    ("text", "language", "days"),
    [
        # no day named before it: nothing is read
        ("Clean up a day later.", "en", []),
        ("Wasser am Tag danach abgestellt", "de", []),
        ("Compras dos semanas antes.", "es", []),
        # "after"/"before" before what they count from are the phrase's preposition
        ("Party on Fri 6 March, shop two weeks before the party", "en", [date(2026, 3, 6), None]),
        ("On Fri 6 March; the day before yesterday", "en", [date(2026, 3, 6), date(2026, 1, 17)]),
        # how many days is not written
        ("Party on Fri 6 March, a few days later", "en", [date(2026, 3, 6)]),
        ("Fest am Fr 6.3., einige Tage später", "de", [date(2026, 3, 6)]),
    ],
)
def test_a_count_from_another_time_with_no_day_before_it_names_nothing(
    text: str, language: str, days: list[date]
) -> None:
    assert _days(temporal.note_dates(text, date(2026, 1, 19), language)) == days


@pytest.mark.parametrize(
    ("text", "language", "day"),
    [
        ("Fri 6 March. Call in 2 weeks", "en", None),  # a week, from the note's day
        ("Fri 6 March. tomorrow", "en", date(2026, 1, 20)),
        ("Fri 6 March. 3 days ago", "en", date(2026, 1, 16)),
        ("Fr 6.3. – morgen", "de", date(2026, 1, 20)),
        ("viernes 6 de marzo. mañana", "es", date(2026, 1, 20)),
    ],
)
def test_a_relative_phrase_counts_from_the_anchor_though_a_day_is_named_before(
    text: str, language: str, day: date | None
) -> None:
    spans = temporal.note_dates(text, date(2026, 1, 19), language)
    assert spans[-1].day == day
    assert spans[-1].named is not None and spans[-1].named.date() <= date(2026, 2, 2)


def test_in_and_vor_a_count_of_weeks_count_from_the_anchor_though_a_day_is_named_before() -> None:
    spans = temporal.note_dates("Do 26.02.: in 2 Wochen, vor 2 Wochen", date(2026, 1, 19), "de")
    assert [s.exact for s in spans[1:]] == [datetime(2026, 2, 2), datetime(2026, 1, 5)]


@pytest.mark.parametrize(
    ("text", "language", "day"),
    [
        # written on Tuesday 25 November 2025
        ("Thursday next week", "en", date(2025, 12, 4)),
        ("next week Thursday", "en", date(2025, 12, 4)),
        ("Thursday of next week", "en", date(2025, 12, 4)),
        ("Tuesday in two weeks", "en", date(2025, 12, 9)),
        ("Friday this week", "en", date(2025, 11, 28)),
        ("Donnerstag nächste Woche", "de", date(2025, 12, 4)),
        ("nächste Woche Donnerstag", "de", date(2025, 12, 4)),
        ("Dienstag in zwei Wochen", "de", date(2025, 12, 9)),
        ("el viernes de esta semana", "es", date(2025, 11, 28)),
    ],
)
def test_a_weekday_beside_a_week_is_that_weekday_of_that_week(
    text: str, language: str, day: date
) -> None:
    # read apart, "Thursday next" would be the coming Thursday and "in zwei" the 2nd
    spans = temporal.note_dates(text, date(2025, 11, 25), language)
    assert [s.day for s in spans] == [day]


@pytest.mark.parametrize(
    ("text", "language", "first", "last"),
    [
        # written on Wednesday 24 September 2025
        ("offsite Oct 23-24", "en", date(2025, 10, 23), date(2025, 10, 24)),
        ("23-24 October", "en", date(2025, 10, 23), date(2025, 10, 24)),
        ("from 3 to 5 March", "en", date(2026, 3, 3), date(2026, 3, 5)),
        ("May 30-June 2", "en", date(2026, 5, 30), date(2026, 6, 2)),
        ("open Mon-Fri", "en", date(2025, 9, 29), date(2025, 10, 3)),
        ("next Tuesday to Friday", "en", date(2025, 9, 30), date(2025, 10, 3)),
        ("Friday to Monday", "en", date(2025, 9, 26), date(2025, 9, 29)),
        ("del 10 al 13 de junio", "es", date(2026, 6, 10), date(2026, 6, 13)),
        ("del lunes al miércoles", "es", date(2025, 9, 29), date(2025, 10, 1)),
        ("vom 10. bis 13. Juni", "de", date(2026, 6, 10), date(2026, 6, 13)),
        ("vom 10.6. bis 13.6.", "de", date(2026, 6, 10), date(2026, 6, 13)),
        ("nächsten Dienstag bis Freitag", "de", date(2025, 9, 30), date(2025, 10, 3)),
    ],
)
def test_days_a_dash_or_a_range_word_joins_are_one_span_that_ends_after_it_starts(
    text: str, language: str, first: date, last: date
) -> None:
    # read apart, "24" is a stray number, "Friday" the coming one (before Tuesday) and
    # "bis 13. Juni" a period open before the range's start
    (span,) = temporal.note_dates(text, date(2025, 9, 24), language)
    assert span.start is not None and span.end is not None
    assert (span.start.date(), span.end.date()) == (first, last + timedelta(days=1))


@pytest.mark.parametrize(
    ("text", "language"),
    [("de 3 a 5 personas", "es"), ("Montag bis 18 Uhr", "de"), ("until Friday", "en")],
)
def test_a_range_word_joins_no_range_where_one_end_is_no_day(text: str, language: str) -> None:
    spans = temporal.note_dates(text, date(2025, 9, 24), language)
    assert all(
        s.start is None or s.end is None or s.end - s.start <= timedelta(days=1) for s in spans
    )


@pytest.mark.parametrize(
    ("text", "language", "day"),
    [
        ("LifeLabs, this Thurs 8:00am", "en", date(2026, 1, 8)),
        ("on Thur", "en", date(2026, 1, 8)),
        ("el juev a las 9", "es", date(2026, 1, 8)),
    ],
)
def test_a_weekdays_start_of_four_letters_or_more_is_that_weekday(
    text: str, language: str, day: date
) -> None:
    spans = temporal.note_dates(text, date(2026, 1, 6), language)  # a Tuesday
    assert [s.day for s in spans] == [day]
    assert temporal.note_dates("Marc called", date(2026, 1, 6), "en") == []


@pytest.mark.parametrize(
    ("text", "day", "grain"),
    [
        # written on Tuesday 25 November 2025
        ("el martes que viene", date(2025, 12, 2), "day"),  # not today
        ("el lunes que viene", date(2025, 12, 1), "day"),
        ("la semana que viene", date(2025, 12, 1), "week"),
        ("la semana próxima", date(2025, 12, 1), "week"),
        ("el mes que viene", date(2025, 12, 1), "month"),
        ("el año próximo", date(2026, 1, 1), "year"),
        ("el jueves de la semana que viene", date(2025, 12, 4), "day"),
    ],
)
def test_a_spanish_word_that_points_may_follow_its_unit_and_que_viene_is_next(
    text: str, day: date, grain: str
) -> None:
    (span,) = temporal.note_dates(text, date(2025, 11, 25), "es")
    assert span.named is not None and (span.named.date(), span.grain) == (day, grain)
    assert temporal.note_dates("lo que viene después", date(2025, 11, 25), "es") == []


def test_within_a_count_counts_ahead_up_to_the_day_it_lands_on() -> None:
    (span,) = temporal.note_dates("reply within 2 weeks", date(2025, 10, 6), "en")
    assert (span.bound, span.exact) == ("until", datetime(2025, 10, 20))
    (span,) = temporal.note_dates("binnen 2 Wochen", date(2025, 10, 6), "de")
    assert (span.bound, span.exact) == ("until", datetime(2025, 10, 20))


@pytest.mark.parametrize(
    ("text", "language", "day"),
    [
        # written on Tuesday 25 November 2025: number words as text2num reads them
        ("en quince días", "es", date(2025, 12, 10)),
        ("dentro de quince días", "es", date(2025, 12, 10)),
        ("en 15 días", "es", date(2025, 12, 10)),
        ("hace tres días", "es", date(2025, 11, 22)),
        ("three days ago", "en", date(2025, 11, 22)),
    ],
)
def test_a_count_in_words_before_a_unit_is_read_in_any_language(
    text: str, language: str, day: date
) -> None:
    (span,) = temporal.note_dates(text, date(2025, 11, 25), language)
    assert span.day == day
    assert temporal.note_dates("somos dos personas", date(2025, 11, 25), "es") == []


@pytest.mark.parametrize(
    ("text", "language", "day", "bound"),
    [
        # written on Tuesday 25 November 2025: the nearest such day ahead
        ("on the 28th", "en", date(2025, 11, 28), "in"),
        ("by the 3rd", "en", date(2025, 12, 3), "until"),
        ("Termin am 15.", "de", date(2025, 12, 15), "in"),
        ("bis 5. abgeben", "de", date(2025, 12, 5), "until"),
        ("el día 28", "es", date(2025, 11, 28), "in"),
        ("hasta el día 3", "es", date(2025, 12, 3), "until"),
    ],
)
def test_a_day_of_the_month_written_alone_where_the_language_marks_it_as_a_day(
    text: str, language: str, day: date, bound: str
) -> None:
    (span,) = temporal.note_dates(text, date(2025, 11, 25), language)
    assert (span.named.date() if span.named else None, span.bound) == (day, bound)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("the 3rd floor", "en"),
        ("came 2nd", "en"),
        ("cada día 3 veces", "es"),
        ("Platz 2. Liga", "de"),
    ],
)
def test_an_ordinal_or_a_number_the_language_does_not_mark_as_a_day_is_none(
    text: str, language: str
) -> None:
    assert temporal.note_dates(text, date(2025, 11, 25), language) == []


@pytest.mark.parametrize(
    ("text", "language", "day", "grain"),
    [
        # written on Wednesday 18 February 2026: a relative word as the sentence inflects it
        ("am Freitag nächster Woche", "de", date(2026, 2, 27), "day"),
        ("in der nächsten Woche", "de", date(2026, 2, 23), "week"),
        ("letzter Woche", "de", date(2026, 2, 9), "week"),
        ("nächstes Jahr", "de", date(2027, 1, 1), "year"),
    ],
)
def test_a_word_that_points_is_read_with_the_ending_its_sentence_gives_it(
    text: str, language: str, day: date, grain: str
) -> None:
    (span,) = temporal.note_dates(text, date(2026, 2, 18), language)
    assert span.named is not None and (span.named.date(), span.grain) == (day, grain)
    # not a word that only shares its stem ("nach"), nor a day of its own ("morgens")
    assert temporal.note_dates("nach dem Essen, morgens Tabletten", date(2026, 2, 18), "de") == []


@pytest.mark.parametrize("language", ["en", "es", "de"])
def test_a_superscript_digit_is_no_count_and_no_day_and_reads_without_error(language: str) -> None:
    # "²" is a digit to str.isdigit but no number int() reads: "m²", "el día ²"
    text = "m² 28² el día ² hace ² semanas in ² weeks on the ² ²/06 ² Uhr"
    assert all(
        s.day is None or s.day.year >= 2025
        for s in temporal.note_dates(text, date(2026, 1, 5), language)
    )
