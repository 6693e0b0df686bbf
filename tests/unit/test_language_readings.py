"""A question is read in the language it is written in, and its words as the notes
hold them: a Spanish reader asking in English of English notes, or in Spanish of
English notes, is answered; so is a German reader of German notes that the indexer
once read as English, and an English reader asking in Spanish of Spanish notes.

Through the API, with the local embedding model (as ``make dev`` runs) or the hash
embedder (keywords alone must then find the note)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from footnote.dev.demo import DEMO_NOTES
from footnote.query.analysis import analyze
from footnote.temporal import weekday_terms
from footnote.text import language_of_text, stem
from tests.inproc import Harness

GERMAN = [
    "Putzplan\nBad: Jonas (ungerade Wochen), Küche: Lea, Flur + Müll: ich\nAltglas immer Sonntag",
    "Zug nach Hamburg gebucht: Freitag 6. März, ICE 1709 ab Berlin Hbf 9:34, Wagen 7, Platz 45.",
    "Einkauf\nHafermilch x4\nÄpfel\nKaffee (Bohnen)\nSpülmittel\nNudeln",
    "Steuerberaterin Frau Wendt braucht bis Ende April: Rechnungen, Kontoauszüge, Fahrtenbuch.",
]
SPANISH = [
    "Vuelos reservados para Lisboa: ida el jueves, hotel en Alfama",
    "Comprar para la semana: leche, plátanos y café en grano",
    "El fontanero arregló la caldera: 180 euros, pagado en efectivo",
]


def _harness(embedder: str) -> Harness:
    h = Harness(EMBEDDER=embedder)
    for note in DEMO_NOTES:
        h.add_note("en-notes", **note)
    for text in GERMAN:
        h.add_note("de-notes", text)
    for text in SPANISH:
        h.add_note("es-notes", text)
    h.index_all()
    return h


@pytest.fixture(scope="module")
def local() -> Harness:
    return _harness("local")


@pytest.fixture(scope="module")
def hashed() -> Harness:
    return _harness("hash")


def _answer(h: Harness, tenant: str, question: str, language: str) -> dict[str, Any]:
    r = h.call(
        "POST", "/chat", tenant, json={"message": question}, headers={"Accept-Language": language}
    )
    assert r.status_code == 200, r.get_data(as_text=True)
    return dict(r.get_json())


def _first_cited(answer: dict[str, Any]) -> str:
    cited = answer["citations"]
    assert cited, answer["answer"]
    return str(cited[0]["snippet"])  # the note's title, then its text


@pytest.mark.parametrize(
    ("question", "title"),
    [("What are my todos?", "Todo"), ("¿Qué dijo Maria?", "Investor call")],
)
def test_a_spanish_reader_of_english_notes_is_answered(
    local: Harness, question: str, title: str
) -> None:
    assert _first_cited(_answer(local, "en-notes", question, "es")).startswith(title)


@pytest.mark.parametrize(
    ("question", "starts"),
    [
        ("Wann fährt mein Zug?", "Zug nach Hamburg"),
        ("Wer putzt die Küche?", "Putzplan"),
        ("Brauche ich Nudeln?", "Einkauf"),
    ],
)
def test_a_german_reader_of_german_notes_is_answered(
    hashed: Harness, question: str, starts: str
) -> None:
    assert _first_cited(_answer(hashed, "de-notes", question, "de")).startswith(starts)


@pytest.mark.parametrize(
    ("question", "starts"),
    [
        ("¿Cuándo reservé los vuelos?", "Vuelos reservados"),
        ("¿Cuánto pagué al fontanero?", "El fontanero"),
    ],
)
def test_an_english_reader_asking_in_spanish_of_spanish_notes_is_answered(
    hashed: Harness, question: str, starts: str
) -> None:
    assert _first_cited(_answer(hashed, "es-notes", question, "en")).startswith(starts)


@pytest.mark.parametrize(
    ("text", "prior", "language"),
    [
        ("¿Qué dijo Maria?", "en", "es"),
        ("What are my todos?", "es", "en"),
        ("Wann hat Lea Geburtstag?", "en", "de"),
        ("Raclette", "de", "de"),  # a lone word is the reader's
        (GERMAN[0], "en", "de"),
        (GERMAN[2], "en", "de"),  # a list of items, by its letters
        (GERMAN[3], "en", "de"),
        # English shorthand naming a weekday short ("Tu/Th") and a "Señora" is English
        (
            "MWF 9:05 Linear Alg (Prof. Okafor, room 210 Hillside)\nMWF 11:45 Orgo lecture"
            " (Dr. Patel)\nTu/Th 1:30 Psych 101 – huge lecture hall\nTu/Th 10:00 Spanish 3 w/"
            " Señora Ruiz\nOrgo lab Wed 2-5\nlibrary shifts: Mon+Thu 6-10pm",
            "en",
            "en",
        ),
    ],
)
def test_a_short_texts_language_is_read_with_the_readers_as_prior(
    text: str, prior: str, language: str
) -> None:
    assert language_of_text(text, prior) == language


@pytest.mark.parametrize(
    ("question", "reader", "phrase"),
    [
        ("What did I write last week?", "es", "last week"),
        ("¿Qué escribí la semana pasada?", "en", "la semana pasada"),
        ("Was habe ich letzte Woche geschrieben?", "en", "letzte woche"),
    ],
)
def test_a_questions_time_is_read_in_the_language_it_is_written_in(
    question: str, reader: str, phrase: str
) -> None:
    read = analyze(question, datetime(2026, 3, 10, 12, tzinfo=UTC), language=reader)
    assert read.window is not None and read.window.label == phrase, read
    assert read.window.start == datetime(2026, 3, 2, tzinfo=UTC)
    assert read.language == reader  # the answer's dates are told in the reader's


def test_a_weekday_written_short_is_indexed_as_the_day() -> None:
    # three letters or more that begin one working day's name; not "sat" or "sun"
    found = weekday_terms("Thurs: gym\nTues 9-5, Mon+Wed\nwedding, fries, Sat: party")
    assert found == [stem(d) for d in ("thursday", "tuesday", "monday", "wednesday")]
