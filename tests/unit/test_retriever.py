"""Retriever decisions the evaluation harness exposed: content years and date-less recency."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from footnote.query.analysis import analyze
from footnote.retrieval.bm25 import keyword_terms
from footnote.services.chat import RagConfig
from tests.factories import NOW, chunk, note
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
    w = World()
    for i in range(5):
        w.add(f"n{i}", f"Note {i} about gardening and tomatoes number {i}.")
    result = w.retriever.retrieve("alice", analyze("tomatoes", NOW), fusion_name="weighted")
    assert all("recency" not in c.sources for c in result.chunks)
    w.add("n9", "An older note about tomatoes.", days_ago=9)  # now dates differ
    result = w.retriever.retrieve("alice", analyze("tomatoes", NOW), fusion_name="weighted")
    assert any("recency" in c.sources for c in result.chunks)


def test_bm25_indexes_the_note_title_with_every_later_chunk() -> None:
    first = dataclasses.replace(
        chunk("n1_000", "Vitamin D\\n\\nLevels fall in winter."), title="Vitamin D"
    )
    later = dataclasses.replace(chunk("n1_001", "Supplements restore them."), title="Vitamin D")
    assert keyword_terms(first) == list(first.terms)  # the title is already in its text
    assert "vitamin" not in later.terms and "vitamin" in keyword_terms(later)


def test_mid_migration_the_query_never_meets_vectors_of_the_old_model() -> None:
    from footnote.adapters.hash_embedder import HashEmbedder
    from footnote.adapters.memory_vector_index import MemoryVectorIndex
    from footnote.ingest.classify import RuleClassifier
    from footnote.retrieval.retriever import Retriever
    from footnote.services.indexing import IndexingService

    # Same dimension, different model: only the model id tells the vectors apart.
    w = World(embedder=HashEmbedder("hash:old:256"))
    w.add("n1", "Quarterly budget review moved to Thursday.")
    w.add("n2", "The garden needs watering twice a week.")
    new = HashEmbedder("hash:new:256")
    index = MemoryVectorIndex(w.corpora)
    IndexingService(w.settings, w.store, w.store, new, RuleClassifier(), index).index_note(
        "n2", force=True
    )  # n2 re-embedded by the new model, n1 not yet
    retriever = Retriever(w.settings, w.corpora, new, index)

    result = retriever.retrieve("alice", analyze("budget review", NOW))
    assert "embedding_model_mixed" in result.fallbacks
    by_note = {c.chunk.note_id: c for c in result.chunks}
    assert "vector" not in by_note["n1"].sources  # found by keyword only
    assert by_note["n1"].similarity == 1.0  # keyword coverage, not a cross-model cosine


def test_before_the_launch_resolves_from_a_note_titled_launch_day() -> None:
    from footnote.query.analysis import events_from_titles

    launch = NOW - timedelta(days=10)
    events = events_from_titles(
        [
            ("Launch day", launch),
            ("Launch recap", NOW),
            ("Groceries", NOW),
            ("A long title that reads like a whole sentence here", NOW),
        ]
    )
    # the recap, written later, does not move the day the launch happened
    assert events["launch"] == launch.date() and events["launch day"] == launch.date()
    assert "a long title that reads like a whole sentence here" not in events

    w = World()
    w.store.create_note(
        note("l1", "Launch day\n\nWe shipped v2 to everyone.", days_ago=10, title="Launch day")
    )
    w.indexing.index_note("l1")
    w.add("n1", "Pricing page copy drafted.", days_ago=20)
    w.add("n2", "Pricing page copy rewritten after feedback.", days_ago=2)
    answer = w.chat.search("alice", "pricing page before the launch", 8)
    assert answer.query.window is not None
    assert [h.note_id for h in answer.hits] == ["n1"]


def test_a_title_notes_of_different_days_carry_is_a_series_and_dates_nothing() -> None:
    """ "Who paced me at parkrun?" over two notes titled "parkrun" (March, May) was read
    as "on the day of the first parkrun": the March note answered and Raf, who paced the
    May one, was never quoted. A title several days carry is a series, not a moment."""
    from footnote.query.analysis import events_from_titles

    events = events_from_titles(
        [
            ("parkrun", NOW - timedelta(days=42)),
            ("parkrun", NOW - timedelta(days=0)),
            ("Offsite", NOW - timedelta(days=9)),
            ("Offsite notes", NOW - timedelta(days=9)),  # the same day: one event
        ]
    )
    assert "parkrun" not in events
    assert events["offsite"] == (NOW - timedelta(days=9)).date()

    w = World()
    for nid, text, days_ago in (
        ("p1", "Centennial parkrun 23:41 - PB! 14th in age group", 42),
        ("p2", "23:05 new PB!! Raf paced me", 0),
    ):
        w.store.create_note(note(nid, text, days_ago=days_ago, title="parkrun"))
        w.indexing.index_note(nid)
    assert w.chat.search("alice", "at parkrun", 8).query.window is None
    answer = w.chat.chat("alice", "Who paced me at parkrun?", None, RagConfig())
    assert "Raf paced me" in answer.answer and not answer.meta.declined


def test_keyword_scores_are_zero_where_no_query_term_occurs_in_every_bm25_variant() -> None:
    import numpy as np

    from footnote.retrieval.bm25 import Bm25Params
    from footnote.retrieval.corpus import build_corpus

    chunks = [
        chunk("a_000", "Tomatoes need full sun and deep watering."),
        chunk("b_000", "The ferry timetable changes next spring."),
        chunk("c_000", "Tomatoes tomatoes tomatoes, and a little basil."),
        # (robertson's idf is zero or less for a term in half the documents or more)
        chunk("d_000", "Quarterly budget review moved to Thursday."),
        chunk("e_000", "Renew the passport before the summer trip."),
    ]
    for method in ("lucene", "robertson", "bm25+", "bm25l"):
        corpus = build_corpus(chunks, bm25_params=Bm25Params(method=method))
        scores = corpus.keyword_scores(["tomato"])
        # bm25+ and bm25l give every document a floor for an absent term; that floor
        # must not let the ferry note look like a keyword match.
        assert scores[corpus.by_id["b_000"]] == 0.0, method
        assert (scores[[corpus.by_id["a_000"], corpus.by_id["c_000"]]] > 0).all(), method
        assert np.array_equal(corpus.keyword_scores(["unknownword"]), np.zeros(len(chunks)))


def test_bm25_parameters_change_the_keyword_ranking() -> None:
    from footnote.retrieval.bm25 import Bm25Params
    from footnote.retrieval.corpus import build_corpus

    chunks = [
        chunk("long_000", "Tomato " + "garden soil compost mulch water sun " * 6),
        chunk("short_000", "Tomato blight."),
    ]
    no_length_norm = build_corpus(chunks, bm25_params=Bm25Params(b=0.0))
    full_length_norm = build_corpus(chunks, bm25_params=Bm25Params(b=1.0))
    i_long, i_short = no_length_norm.by_id["long_000"], no_length_norm.by_id["short_000"]
    flat = no_length_norm.keyword_scores(["tomato"])
    normed = full_length_norm.keyword_scores(["tomato"])
    assert flat[i_long] == flat[i_short]  # b=0: length does not matter
    assert normed[i_short] > normed[i_long]  # b=1: the short chunk is about tomatoes


def test_keyword_feedback_finds_a_chunk_through_the_top_chunks_words() -> None:
    import numpy as np

    from footnote.retrieval.bm25 import Feedback
    from footnote.retrieval.corpus import build_corpus

    chunks = [
        chunk("a_000", "Aspirin lowers fever; salicylate inhibits cyclooxygenase."),
        chunk("b_000", "Aspirin and salicylate block cyclooxygenase enzymes."),
        chunk("c_000", "Cyclooxygenase inhibition by salicylate reduces prostaglandins."),
        chunk("d_000", "The ferry timetable changes next spring."),
    ]
    corpus = build_corpus(chunks)
    everything = np.ones(len(chunks), dtype=bool)
    plain = {h.chunk_id for h in corpus.keyword_hits(["aspirin"], 10, everything)}
    assert plain == {"a_000", "b_000"}
    expanded = corpus.keyword_hits(
        ["aspirin"], 10, everything, Feedback(terms=2, docs=2, weight=0.5)
    )
    ids = [h.chunk_id for h in expanded]
    assert "c_000" in ids and "d_000" not in ids
    assert ids.index("c_000") == len(ids) - 1  # found through feedback, ranked below the asked


def test_bm25_defaults_of_the_corpus_are_what_ships() -> None:
    from footnote.config import Settings
    from footnote.retrieval.bm25 import Bm25Params
    from footnote.retrieval.variant import SHIPPED

    s = Settings()
    assert Bm25Params() == Bm25Params(s.bm25_k1, s.bm25_b, SHIPPED.bm25_method)


def test_a_day_with_nothing_written_is_read_in_the_notes_of_the_week_after() -> None:
    # NOW is Sunday 22 November 2026; the internship came on 3 November, told on the 6th.
    w = World()
    w.add("older", "Booked the dentist for a cleaning.", days_ago=30)
    w.add("told", "Accepted for the fashion internship on Tuesday, so happy.", days_ago=16)
    w.add("much_later", "Accepted for the fashion internship, starting soon.", days_ago=2)
    question = analyze("Which fashion internship accepted me on November 3?", NOW)
    result = w.retriever.retrieve("alice", question)
    assert result.matched and "time_window_widened" in result.fallbacks
    assert [c.chunk.note_id for c in result.chunks] == ["told"]


def test_a_window_with_a_relevant_note_is_not_widened() -> None:
    w = World()
    w.add("older", "Booked the dentist for a cleaning.", days_ago=30)
    w.add("same_day", "Accepted for the fashion internship today.", days_ago=19)
    w.add("told", "Accepted for the fashion internship on Tuesday, so happy.", days_ago=16)
    result = w.retriever.retrieve(
        "alice", analyze("Which fashion internship accepted me on November 3?", NOW)
    )
    assert result.matched and "time_window_widened" not in result.fallbacks
    assert [c.chunk.note_id for c in result.chunks] == ["same_day"]
    # ... and with the grace turned off, a day with nothing written finds nothing.
    off = World(retrieval_window_grace_days=0)
    off.add("older", "Booked the dentist for a cleaning.", days_ago=30)
    off.add("told", "Accepted for the fashion internship on Tuesday, so happy.", days_ago=16)
    assert not off.retriever.retrieve(
        "alice", analyze("Which fashion internship accepted me on November 3?", NOW)
    ).matched


def test_a_before_or_until_bound_is_never_widened() -> None:
    w = World()
    w.add("older", "Booked the dentist for a cleaning.", days_ago=30)
    w.add("later", "Accepted for the fashion internship, so happy.", days_ago=12)  # 10 Nov
    for bound in ("before", "until"):
        question = analyze(f"Which fashion internship accepted me {bound} November 8?", NOW)
        result = w.retriever.retrieve("alice", question)
        assert "time_window_widened" not in result.fallbacks
        assert "later" not in [c.chunk.note_id for c in result.chunks if result.matched]


def test_a_month_summed_up_after_it_ends_is_found_when_it_answers_better() -> None:
    # NOW is Sunday 22 November 2026. October's figures were written up on 9 November; a
    # note of October mentions the asked word in passing.
    w = World()
    w.add("passing", "Coffee with Dana; she asked whether signups were tracked.", days_ago=40)
    w.add("figures", "October metrics: signups 312, churn 4.1%, NPS 41.", days_ago=13)
    result = w.retriever.retrieve("alice", analyze("How many signups did we get in October?", NOW))
    assert "time_window_widened" in result.fallbacks
    assert result.chunks[0].chunk.note_id == "figures"


def test_after_an_event_reads_the_notes_written_on_its_day() -> None:
    from footnote.domain import TimeWindow

    # "after the dinner party": the party's note dates it, so the window starts the next
    # day; the debrief written that same evening is still read.
    w = World()
    w.add("party", "Dinner party tonight: 6 guests, tiramisu for dessert.", days_ago=10)
    w.add("debrief", "Tiramisu was too sweet, use less sugar next time.", days_ago=10)
    w.add("later", "Bought more coffee beans.", days_ago=3)
    day_after = (NOW - timedelta(days=9)).replace(hour=0, minute=0, second=0, microsecond=0)
    question = dataclasses.replace(
        analyze("What did I change about the tiramisu?", NOW),
        window=TimeWindow(day_after, None, "after the dinner party"),
    )
    result = w.retriever.retrieve("alice", question)
    assert "time_window_widened" in result.fallbacks
    assert result.chunks[0].chunk.note_id == "debrief"


def test_the_ranking_variant_chooses_the_default_fusion() -> None:
    """What the evaluation passes in (RankingVariant) is what a plain retrieve() uses:
    rrf as the variant's fusion ranks exactly as asking for rrf by name, and not as
    the shipped hybrid does (rrf scores are sums of 1 / (k + rank))."""
    from footnote.retrieval.retriever import Retriever
    from footnote.retrieval.variant import SHIPPED, RankingVariant

    w = World()
    for i, text in enumerate(
        [
            "Tomatoes need sun and deep watering.",
            "Pruning tomatoes keeps the plants airy.",
            "The tomato harvest came late this year.",
            "Basil grows well beside tomatoes.",
        ]
    ):
        w.add(f"n{i}", text, days_ago=i)
    question = analyze("how to grow tomatoes", NOW)
    rrf = Retriever(w.settings, w.corpora, w.embedder, None, ranking=RankingVariant(fusion="rrf"))

    by_variant = rrf.retrieve("alice", question)
    by_name = w.retriever.retrieve("alice", question, fusion_name="rrf")
    shipped = w.retriever.retrieve("alice", question)

    assert SHIPPED.fusion == "hybrid"
    assert by_variant.chunks and by_variant.chunks == by_name.chunks
    assert [c.score for c in by_variant.chunks] != [c.score for c in shipped.chunks]
    assert all(c.score <= 3 / 61 for c in by_variant.chunks)  # three lists, best rank 1


def test_a_note_written_after_a_period_that_names_it_is_found_for_it() -> None:
    # NOW is Sunday 22 November 2026; the 2025 tax bill came this year, and a note of
    # 2025 mentions taxes in passing
    w = World()
    w.add("passing", "Lunch with Sam, talked about taxes and holidays.", days_ago=400)
    w.add("bill", "Tax assessment 2025 arrived: back payment 1,182 due in April.", days_ago=20)
    w.add("other", "Tax return for the flat is filed.", days_ago=10)
    result = w.retriever.retrieve(
        "alice", analyze("How much is the tax back payment for 2025?", NOW)
    )
    assert result.matched and "time_window_widened" in result.fallbacks
    assert result.chunks[0].chunk.note_id == "bill"
    assert "other" not in [
        c.chunk.note_id for c in result.chunks
    ]  # written since, names no day of it


def _german_notebook() -> World:
    w = World()
    w.add("n1", "Steuerbescheid 2024 ist da: Nachzahlung 1.182 € bis 20.4.")
    w.add("n2", "Miete für April ist bezahlt, 1.240 € an die Verwaltung.")
    w.add("n3", "Küchenabbau am Samstag mit Jonas, der Sperrmüll kommt Montag.")
    w.add("n4", "Die Rechnung vom Elektriker ist bezahlt, er kommt bis Freitag wieder.")
    return w


def test_a_german_compound_finds_the_note_that_writes_its_parts() -> None:
    """ "Steuernachzahlung" and a note's "Steuerbescheid … Nachzahlung" share no stem:
    keyword search found the notes saying "bezahlt" and "bis" first. A long German
    word is indexed and searched with its parts as well (steuer + nachzahlung)."""
    w = _german_notebook()
    for question in (
        "Bis wann muss die Steuernachzahlung bezahlt sein?",
        "bis wann muss die steuernachzahlung bezahlt sein?",  # typed in lower case
    ):
        result = w.retriever.retrieve("alice", analyze(question, NOW, language="de"))
        assert result.chunks[0].chunk.note_id == "n1", question


def test_a_german_note_s_compound_is_found_by_one_of_its_parts() -> None:
    w = _german_notebook()
    question = analyze("Wer hilft beim Abbau der Küche?", NOW, language="de")
    result = w.retriever.retrieve("alice", question)
    assert result.chunks[0].chunk.note_id == "n3"  # "Küchenabbau": küche + abbau
