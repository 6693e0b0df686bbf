"""BM25 as a sparse dot product equals bm25s' Lucene BM25 when the statistics are exact."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footnote.retrieval.bm25 import Bm25Params, keyword_terms
from footnote.retrieval.corpus import build_corpus
from footnote.retrieval.sparse import (
    NoteTerms,
    Sketch,
    SketchedDf,
    TermStatistics,
    chunk_weights,
    query_weights,
    term_id,
)
from tests.factories import chunk

VOCAB = ["budget", "launch", "pricing", "hiring", "churn", "vector", "keyword", "tenant", "index"]


def exact_stats(chunks: list) -> TermStatistics:  # type: ignore[type-arg]
    contribution = NoteTerms.of(keyword_terms(c) for c in chunks)
    return TermStatistics(contribution.docs, contribution.length, dict(contribution.df))


def sparse_scores(chunks: list, query: list[str], k1: float, b: float) -> np.ndarray:  # type: ignore[type-arg]
    stats = exact_stats(chunks)
    q = query_weights(query, stats)
    ordered = sorted(chunks, key=lambda c: c.chunk_id)
    return np.array([chunk_weights(c, stats.avgdl, k1, b).dot(q) for c in ordered])


docs = st.lists(
    st.lists(st.sampled_from(VOCAB), min_size=1, max_size=25).map(" ".join),
    min_size=1,
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(
    texts=docs,
    query=st.lists(st.sampled_from([*VOCAB, "absent"]), min_size=1, max_size=4),
    k1=st.sampled_from([0.9, 1.2, 1.5]),
    b=st.sampled_from([0.0, 0.4, 0.75, 1.0]),
)
def test_sparse_dot_product_is_bm25s_lucene(
    texts: list[str], query: list[str], k1: float, b: float
) -> None:
    chunks = [chunk(f"n{i}_000", t) for i, t in enumerate(texts)]
    stemmed = [t for q in query for t in keyword_terms(chunk("q_000", q))]
    corpus = build_corpus(chunks, bm25_params=Bm25Params(k1, b, "lucene"))
    expected = corpus.keyword_scores(stemmed)
    got = sparse_scores(chunks, stemmed, k1, b)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_titles_of_later_chunks_count_as_in_local_bm25() -> None:
    first = dataclasses.replace(chunk("n1_000", "pricing"), title="Budget review")
    later = dataclasses.replace(chunk("n1_001", "hiring plan"), title="Budget review")
    other = chunk("n2_000", "churn churn")
    corpus = build_corpus([first, later, other])
    stemmed = keyword_terms(chunk("q_000", "budget"))
    np.testing.assert_allclose(
        sparse_scores([first, later, other], stemmed, 0.9, 0.4),
        corpus.keyword_scores(stemmed),
        rtol=1e-5,
    )
    assert sparse_scores([first, later, other], stemmed, 0.9, 0.4)[1] > 0  # the title counts


def test_term_ids_are_stable_63_bit_and_distinct() -> None:
    assert term_id("budget") == term_id("budget")
    assert 0 <= term_id("budget") < 2**63
    assert len({term_id(w) for w in VOCAB}) == len(VOCAB)
    # pinned: ids are written into Vector Search; changing them needs a re-index
    assert term_id("budget") == 7287679682647054164


def test_repeated_query_terms_weigh_more_and_absent_terms_not_at_all() -> None:
    stats = TermStatistics(10, 100, {term_id("budget"): 2})
    once = query_weights(["budget"], stats).as_dict()[term_id("budget")]
    twice = query_weights(["budget", "budget"], stats).as_dict()[term_id("budget")]
    assert twice == pytest.approx(2 * once)
    assert once == pytest.approx(np.log(1 + (10 - 2 + 0.5) / 2.5))


def test_sketch_never_underestimates_and_subtracts_exactly() -> None:
    sketch = Sketch(width=64, depth=2)
    rows: list[dict[int, int]] = [{}, {}]
    truth = {term_id(f"t{i}"): i % 7 + 1 for i in range(300)}
    sketch.add(rows, truth)
    df = SketchedDf(sketch, tuple(rows))
    assert all(df.get(tid) >= count for tid, count in truth.items())
    sketch.add(rows, truth, sign=-1)
    assert all(v == 0 for r in rows for v in r.values())


def test_wide_sketch_is_exact_for_a_small_vocabulary() -> None:
    sketch = Sketch(width=1 << 16, depth=2)
    rows: list[dict[int, int]] = [{}, {}]
    truth = {term_id(w): i + 1 for i, w in enumerate(VOCAB)}
    sketch.add(rows, truth)
    df = SketchedDf(sketch, tuple(rows))
    assert {tid: df.get(tid) for tid in truth} == truth
