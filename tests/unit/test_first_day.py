"""A person's first day: the demo notebook, asked as a new user asks it.

Runs the real indexing and chat pipeline in process (memory store, the hash
embedder: no model), at a fixed moment through the container's clock. Each
question below was declined, or each word not found, before the retrieval gate
counted an exact word as evidence (issue 22).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from footnote.dev.demo import DEMO_NOTES
from footnote.domain import Note
from footnote.evaluation.everyday import Clock, states_date
from footnote.services.chat import RagConfig
from footnote.wiring import Container
from tests.inproc import settings

# Tuesday 24 November 2026: the demo notes are written, then asked about an hour later.
WRITTEN = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
TENANT = "first-day"


@pytest.fixture(scope="module")
def app() -> tuple[Container, Clock]:
    clock = Clock()
    clock.now = WRITTEN
    c = Container(settings(), clock=clock)
    for i, n in enumerate(DEMO_NOTES):
        note = Note(f"demo{i}", TENANT, n["text"], WRITTEN, WRITTEN, title=n["title"])
        c.store.create_note(note)
        c.indexing.index_note(note.id)
    priya = Note("priya", TENANT, "Priya owns the relaunch checklist", WRITTEN, WRITTEN)
    c.store.create_note(priya)
    c.indexing.index_note(priya.id)
    clock.now = WRITTEN.replace(hour=10)
    return c, clock


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("What did Maria ask?", "isolation"),
        ("What are my todos?", "runbook"),
        ("How many signups did we get?", "1,240"),
        ("What does Priya own?", "relaunch checklist"),
        ("Why did we choose Firestore?", "real-time sync"),
    ],
)
def test_a_simple_question_is_answered_from_the_note_that_says_it(
    app: tuple[Container, Clock], question: str, wanted: str
) -> None:
    out = app[0].chat.chat(TENANT, question, None, RagConfig())
    assert not out.meta.declined, out.answer
    assert wanted in out.answer
    assert out.citations


def test_before_friday_is_the_first_friday_after_the_note_was_written(
    app: tuple[Container, Clock],
) -> None:
    out = app[0].chat.chat(TENANT, "When is the re-index runbook due?", None, RagConfig())
    # Written on Tuesday 24 November: the Friday meant is the 27th, not the 20th.
    assert states_date(out.answer, datetime(2026, 11, 27).date()), out.answer


@pytest.mark.parametrize("word", ["investor", "Seedcamp", "Maria", "TODO", "signups"])
def test_search_finds_every_word_that_is_in_a_note(app: tuple[Container, Clock], word: str) -> None:
    result = app[0].chat.search(TENANT, word, 8)
    assert result.hits, word
    assert word.lower() in result.hits[0].text.lower()


def test_a_word_only_in_a_tag_is_found(app: tuple[Container, Clock]) -> None:
    c = app[0]
    note = Note(
        "tagged", TENANT, "Call the bank about the loan.", WRITTEN, WRITTEN, tags=("capex",)
    )
    c.store.create_note(note)
    c.indexing.index_note(note.id)
    hits = c.chat.search(TENANT, "capex", 8).hits
    assert [h.note_id for h in hits][:1] == ["tagged"]


def test_a_name_is_found_typed_with_or_without_its_accents(app: tuple[Container, Clock]) -> None:
    c = app[0]
    note = Note(
        "holiday", TENANT, "Tomás off dec 27 - jan 7, visiting family in Guadalajara.",
        WRITTEN, WRITTEN, title="Tomás vacation",
    )  # fmt: skip
    c.store.create_note(note)
    c.indexing.index_note(note.id)
    for typed in ("tomas", "Tomás", "TOMAS"):
        assert [h.note_id for h in c.chat.search(TENANT, typed, 8).hits][:1] == ["holiday"]
    out = c.chat.chat(TENANT, "where is tomas visiting family?", None, RagConfig())
    assert "Guadalajara" in out.answer and not out.meta.declined, out.answer


def test_a_question_the_notes_do_not_answer_is_declined_and_says_so(
    app: tuple[Container, Clock],
) -> None:
    out = app[0].chat.chat(TENANT, "What is the office wifi password?", None, RagConfig())
    assert out.meta.declined, out.answer
    assert not out.citations


def test_the_clock_is_the_containers_and_the_time_zone_the_askers(
    app: tuple[Container, Clock],
) -> None:
    """ "today" is read on the asker's calendar: 23:30 UTC on the 24th is already the
    25th in Tokyo, so a note written "today" there is the 25th's."""
    c, clock = app
    clock.now = datetime(2026, 11, 24, 23, 30, tzinfo=UTC)
    analysis_utc = c.chat.search(TENANT, "what did I write today", 8, None).query
    analysis_tokyo = c.chat.search(TENANT, "what did I write today", 8, "Asia/Tokyo").query
    clock.now = WRITTEN.replace(hour=10)
    assert analysis_utc.window is not None and analysis_tokyo.window is not None
    assert analysis_utc.window.start == datetime(2026, 11, 24, tzinfo=UTC)
    assert analysis_tokyo.window.start == datetime(2026, 11, 24, 15, 0, tzinfo=UTC)


# A new user's own notebook, as one was typed into `make dev` on its first day (Thursday
# 26 November 2026): what it asked and searched, and what the product answered wrongly.
OWN_NOTES = [
    ("Weekend to-do", ("home", "todo"),
     "To do this weekend:\n- Fix the leaking kitchen tap\n- Return library books (due "
     "Saturday)\n- Renew car insurance before it expires on December 5\n- Book a haircut"),
    ("Marketing sync 24 Nov", ("work", "marketing"),
     "Attendees: Priya, Tom, Lena.\nPriya: The spring campaign budget is 18,000 euros.\n"
     "Tom: I will draft the newsletter copy by Friday.\nLena: The agency Brightside quoted "
     "4,500 euros for the video."),
    ("Dentist", ("health",),
     "Tooth has been aching on the left side. Call the dentist next Tuesday to book a "
     "check-up."),
    ("Groceries", ("shopping",),
     "Shopping list (Lidl):\nMilk 1.19\nEggs (10) 2.49\nCoffee beans 8.99\nOlive oil 6.49"),
    ("Bike service", ("bike", "expenses"),
     "Took the bike to Rad & Tat for a service on Monday. They replaced the chain and the "
     "rear brake pads; it cost 85 euros. The mechanic said the tyres will need replacing "
     "in spring."),
]  # fmt: skip
OWN = "own-notebook"


@pytest.fixture(scope="module")
def own() -> Container:
    clock = Clock()
    clock.now = datetime(2026, 11, 26, 16, 0, tzinfo=UTC)
    c = Container(settings(), clock=clock)
    for i, (title, tags, text) in enumerate(OWN_NOTES):
        note = Note(f"own{i}", OWN, text, clock.now, clock.now, title=title, tags=tags)
        c.store.create_note(note)
        c.indexing.index_note(note.id)
    clock.now = clock.now.replace(minute=30)
    return c


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("How much did the bike service cost?", "85 euros"),  # only the title names it
        ("How much are the coffee beans?", "8.99"),  # a price written bare
        ("What do I need to do this weekend?", "kitchen tap"),  # the weekend is ahead
    ],
)
def test_a_new_users_own_notes_answer_what_they_say(
    own: Container, question: str, wanted: str
) -> None:
    out = own.chat.chat(OWN, question, None, RagConfig())
    assert not out.meta.declined and wanted in out.answer, out.answer


@pytest.mark.parametrize(("word", "note_id"), [("health", "own2"), ("shopping", "own3")])
def test_a_tag_searched_for_lists_its_note_first(own: Container, word: str, note_id: str) -> None:
    hits = own.chat.search(OWN, word, 5).hits
    assert hits and hits[0].note_id == note_id, [h.note_id for h in hits]
