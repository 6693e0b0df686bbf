"""A question about a period is answered from that period's notes (issue 45): "What did
I write in March 2023?", "What happened last week?"; with other words ("in 2023 about
travel") it is searched within the period."""

from __future__ import annotations

from datetime import datetime

from footnote.query.analysis import analyze
from footnote.services.chat import RagConfig
from tests.factories import NOW
from tests.unit.test_services import World


def _days_ago(year: int, month: int, day: int) -> float:
    return (NOW - datetime(year, month, day, 12, tzinfo=NOW.tzinfo)).total_seconds() / 86400


def _world() -> World:
    w = World()
    w.add(
        "mar14",
        "Booked the dentist for Ana, new filling on the 28th.",
        days_ago=_days_ago(2023, 3, 14),
    )
    w.add(
        "mar30",
        "Garden: sowed tomatoes and basil in the greenhouse.",
        days_ago=_days_ago(2023, 3, 30),
    )
    w.add(
        "apr02",
        "Travel: flights to Lisbon booked for June, hotel in Alfama.",
        days_ago=_days_ago(2023, 4, 2),
    )
    w.add(
        "aug23",
        "Packing list for the Cadiz trip: sunscreen, snorkel.",
        days_ago=_days_ago(2023, 8, 20),
    )
    w.add("trip24", "Travel: train to Vienna, Christmas market.", days_ago=_days_ago(2024, 12, 10))
    # NOW is Sunday 22 November 2026: last week is Monday 9 to Monday 16 November
    w.add(
        "nov12", "Boiler serviced, 145 EUR, next check in a year.", days_ago=_days_ago(2026, 11, 12)
    )
    w.add(
        "nov14",
        "Lola's party on Saturday, bring the bracelet set.",
        days_ago=_days_ago(2026, 11, 14),
    )
    w.add("nov19", "Call the plumber about the bathroom leak.", days_ago=_days_ago(2026, 11, 19))
    return w


def _notes(w: World, question: str) -> tuple[str, list[str]]:
    result = w.retriever.retrieve("alice", analyze(question, NOW))
    assert result.matched, result
    return result.strategy.value, [c.chunk.note_id for c in result.chunks]


def test_what_did_i_write_in_a_month_is_that_months_notes_oldest_first() -> None:
    assert _notes(_world(), "What did I write in March 2023?") == (
        "period_notes",
        ["mar14", "mar30"],
    )


def test_what_happened_last_week_is_last_weeks_notes() -> None:
    assert _notes(_world(), "What happened last week?") == ("period_notes", ["nov12", "nov14"])


def test_a_period_with_other_words_is_searched_within_the_period() -> None:
    strategy, found = _notes(_world(), "What did I note in 2023 about travel?")
    assert strategy != "period_notes"
    assert found[0] == "apr02" and "trip24" not in found


def test_the_chat_gives_the_generator_the_periods_notes() -> None:
    w = _world()
    out = w.chat.chat("alice", "What did I write in March 2023?", None, RagConfig())
    assert out.meta.retrieval.strategy.value == "period_notes"
    sources = [str(c).rsplit("_", 1)[0] for c in out.log_fields["chunkIds"]]
    assert sources == ["mar14", "mar30"]
