"""Retriever decisions the evaluation harness exposed: content years and date-less recency."""

from __future__ import annotations

import dataclasses

from footnote.retrieval.corpus import keyword_terms
from footnote.retrieval.query import analyze
from tests.factories import NOW, chunk
from tests.unit.test_services import World


def test_a_year_before_every_note_is_searched_as_text_not_as_a_date() -> None:
    w = World()
    w.add("n1", "The bridge over the river opened in 1932 after six years of work.", days_ago=3)
    w.add("n2", "The ferry timetable changes next spring.", days_ago=2)
    result = w.retriever.retrieve("alice", analyze("Which bridge opened in 1932?", NOW))
    assert "time_window_as_keywords" in result.fallbacks
    assert result.matched and result.chunks[0].chunk.note_id == "n1"


def test_a_window_the_notes_could_fall_in_still_filters_by_date() -> None:
    w = World()
    w.add("n1", "Bridge inspection passed.", days_ago=40)
    result = w.retriever.retrieve("alice", analyze("What about the bridge last week?", NOW))
    assert "time_window_as_keywords" not in result.fallbacks
    assert not result.matched


def test_recency_ranks_nothing_when_all_notes_share_a_date() -> None:
    w = World(RETRIEVAL_FUSION="weighted")
    for i in range(5):
        w.add(f"n{i}", f"Note {i} about gardening and tomatoes number {i}.")
    result = w.retriever.retrieve("alice", analyze("tomatoes", NOW), fusion_name="weighted")
    assert all("recency" not in c.sources for c in result.chunks)
    w.add("n9", "An older note about tomatoes.", days_ago=9)  # now dates differ
    result = w.retriever.retrieve("alice", analyze("tomatoes", NOW), fusion_name="weighted")
    assert any("recency" in c.sources for c in result.chunks)


def test_bm25_indexes_the_note_title_with_every_later_chunk() -> None:
    first = dataclasses.replace(chunk("n1_000", "Vitamin D\\n\\nLevels fall in winter."), title="Vitamin D")
    later = dataclasses.replace(chunk("n1_001", "Supplements restore them."), title="Vitamin D")
    assert keyword_terms(first) == list(first.terms)  # the title is already in its text
    assert "vitamin" not in later.terms and "vitamin" in keyword_terms(later)
