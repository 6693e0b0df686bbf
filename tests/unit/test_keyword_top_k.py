"""The keyword top k equals a full ranking of every masked match.

``TenantCorpus.keyword_hits`` does not rank every matched row: it takes a lower
bound on the k-th best score from one query term's rows and ranks only the rows
at or above it. These corpora are built so that a wrong bound shows: many exact
ties (repeated texts), rows stored out of chunk-id order, removed rows still in
the postings, masks that hide a term's best rows, and a term in most chunks
(robertson's idf is 0 there, so its rows need not be matches).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from footnote.domain import Chunk, Hit, MemoryType, TimeWindow
from footnote.retrieval.bm25 import Bm25Params
from footnote.retrieval.corpus import TenantCorpus
from tests.factories import NOW, chunk

# Zipf-like: the first words are in most chunks, the last in a handful.
WORDS = (
    "report team budget launch review tomato ferry passport invoice pricing "
    "churn latency onboarding roadmap hiring basil"
).split()


def _text(rng: random.Random) -> str:
    weights = [1 / (i + 1) ** 1.2 for i in range(len(WORDS))]
    return " ".join(rng.choices(WORDS, weights, k=rng.randint(2, 9)))


def _corpus(rng: random.Random, params: Bm25Params) -> TenantCorpus:
    texts = [_text(rng) for _ in range(40)]  # drawn again and again: exact ties
    types = (MemoryType.NOTE, MemoryType.DECISION, MemoryType.TASK)
    chunks: list[Chunk] = [
        chunk(f"n{i:03d}_000", rng.choice(texts), days_ago=rng.randint(0, 30), memory_type=t)
        for i, t in enumerate(rng.choices(types, k=240))
    ]
    rng.shuffle(chunks)  # rows out of chunk-id order: ties must still break by id
    corpus = TenantCorpus(len(chunks[0].embedding), params)
    corpus.add(chunks)
    # removed rows stay in the postings (too few for a compaction); some notes come back
    gone = rng.sample(sorted(corpus._rows_of_note), 60)
    corpus.replace_notes(gone, [])
    back = [chunk(f"{n}_000", rng.choice(texts), days_ago=rng.randint(0, 30)) for n in gone[:20]]
    corpus.replace_notes([c.note_id for c in back], back)
    assert corpus.rows > len(corpus)
    return corpus


def _every_match_ranked(
    corpus: TenantCorpus, query: list[str], k: int, mask: np.ndarray
) -> list[Hit]:
    scores = corpus.keyword_scores(query)
    rows = [int(r) for r in np.flatnonzero((scores > 0) & mask)]
    ranked = sorted(rows, key=lambda r: (-float(scores[r]), corpus._chunk_id(r)))[:k]
    return [Hit(corpus._chunk_id(r), float(scores[r])) for r in ranked]


@pytest.mark.parametrize("method", ["lucene", "robertson", "bm25+", "bm25l"])
def test_keyword_top_k_is_the_full_ranking_of_every_masked_match(method: str) -> None:
    rng = random.Random(method)
    corpus = _corpus(rng, Bm25Params(method=method))
    start = NOW.replace(microsecond=0)
    masks = [
        corpus.mask(None, ()),
        corpus.mask(TimeWindow(start.replace(day=5), start.replace(day=15)), ()),
        corpus.mask(None, (MemoryType.DECISION,)),
        corpus.mask(TimeWindow(start.replace(day=1), None), (MemoryType.NOTE, MemoryType.TASK)),
    ]
    bounded = 0
    for _ in range(40):
        query = rng.sample(WORDS, rng.randint(1, 4))
        found = corpus._query_postings(query)
        scores = corpus.keyword_scores(query)
        for mask in masks:
            for k in (1, 2, 5, 10, 30, 500):
                expected = _every_match_ranked(corpus, query, k, mask)
                assert corpus.keyword_hits(query, k, mask) == expected, (query, k)
                bounded += corpus._keyword_candidates(scores, found, k, mask) is not None
    assert bounded > 500  # the bounded path, not only the full one, was checked
