"""A month named as a word ("my November TODO list", "the March invoice") is held by
the notes written that month: people name a note by when they wrote it.

Before, the TODO note written in November held none of "November" and the word
support of "How many things are still open on my November TODO list?" fell under
the confidence gate: the question was declined though the note answers it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from footnote.domain import Note
from footnote.evaluation.everyday import Clock
from footnote.retrieval.corpus import TenantCorpus
from footnote.services.chat import RagConfig
from footnote.wiring import Container
from tests.factories import chunk
from tests.inproc import settings

NOVEMBER = datetime(2025, 11, 12, 15, 0, tzinfo=UTC)
OCTOBER = datetime(2025, 10, 20, 15, 0, tzinfo=UTC)


def _corpus(*rows: tuple[str, str, datetime]) -> TenantCorpus:
    chunks = [replace(chunk(cid, text), created_at=at) for cid, text, at in rows]
    corpus = TenantCorpus(len(chunks[0].embedding))
    corpus.add(chunks)
    return corpus


def test_a_note_written_in_the_month_holds_the_months_name() -> None:
    corpus = _corpus(
        ("n1_000", "todo: renew library loan", NOVEMBER),
        ("n2_000", "todo: book the flight", OCTOBER),
        ("n3_000", "seminar notes on moths", OCTOBER),
    )
    got = corpus.coverage(["novemb", "todo"], ["n1_000", "n2_000"])
    assert got["n1_000"] == 1.0
    assert 0 < got["n2_000"] < 0.5  # "todo" only; "November" is the rarer word


def test_a_month_every_note_was_written_in_weighs_next_to_nothing() -> None:
    corpus = _corpus(
        ("n1_000", "todo: renew library loan", NOVEMBER),
        ("n2_000", "book the flight", NOVEMBER + timedelta(days=3)),
        ("n3_000", "seminar notes on moths", NOVEMBER + timedelta(days=5)),
    )
    with_month = corpus.coverage(["novemb", "flight"], ["n1_000", "n2_000"])
    # every note holds "November": what tells the notes apart is "flight"
    assert with_month["n2_000"] == 1.0
    assert with_month["n1_000"] < 0.3


def test_the_month_is_the_askers_not_utc() -> None:
    # 23:30 on 31 October in Toronto is 1 November in UTC
    late = datetime(2025, 11, 1, 3, 30, tzinfo=UTC)
    corpus = _corpus(("n1_000", "todo: renew library loan", late), ("n2_000", "moths", OCTOBER))
    toronto = -4 * 3600.0
    assert corpus.coverage(["octob"], ["n1_000"], toronto)["n1_000"] == 1.0
    assert corpus.coverage(["novemb"], ["n1_000"], toronto)["n1_000"] == 0.0
    assert corpus.coverage(["novemb"], ["n1_000"])["n1_000"] == 1.0


def test_a_month_named_in_the_text_still_counts() -> None:
    corpus = _corpus(("n1_000", "plan for November: move the lab", OCTOBER))
    assert corpus.coverage(["novemb"], ["n1_000"])["n1_000"] == 1.0


def test_the_todo_list_named_by_its_month_is_counted() -> None:
    clock = Clock()
    clock.now = NOVEMBER
    app = Container(settings(), clock=clock)
    notes = [
        (
            "todo",
            "TODO",
            "[x] rasters to lab drive\n[ ] results draft\n[ ] renew library loan\n"
            "[x] return lab reports\n[ ] reply to Ben about the moth paper",
        ),
        ("talk", "Seminar", "Talk on November 20 about light pollution and moths, room 3044."),
        ("plan", "Thesis plan", "Chapter 2 stats: switch to a mixed model. Still open: priors."),
    ]
    for i, (nid, title, text) in enumerate(notes):
        at = (OCTOBER if nid == "talk" else NOVEMBER) + timedelta(hours=i)
        app.store.create_note(Note(nid, "yuki", text, at, at, title=title))
        app.indexing.index_note(nid)
    clock.now = NOVEMBER + timedelta(days=14)
    out = app.chat.chat(
        "yuki", "How many things are still open on my November TODO list?", None, RagConfig()
    )
    assert not out.meta.declined, out.answer
    # the list written that month is quoted as its items
    assert [c.note_id for c in out.citations] == ["todo"], out.answer
    assert "[ ] results draft [N1]" in out.answer and "[ ] renew library loan [N1]" in out.answer
