"""The ranking pipeline on plain data, and the retriever's walk over candidate sources."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from footnote.config import Settings
from footnote.domain import Chunk, Fallback, Hit, Strategy
from footnote.errors import SearchUnavailable
from footnote.query.analysis import analyze
from footnote.retrieval import pipeline
from footnote.retrieval.candidates import CandidateRequest, Candidates
from footnote.retrieval.retriever import RetrievalResult, Retriever
from tests.factories import NOW, chunk

S = Settings(EMBEDDER="hash", NOTE_STORE="memory", REINDEX_QUEUE="inline")
Q = [1.0, 0.0]


def candidates(
    vectors: dict[str, list[float]],
    *,
    comparable: Sequence[bool] | None = None,
    words: dict[str, float] | None = None,
    keyword: Sequence[str] = (),
    dense: bool = True,
) -> Candidates:
    ids = list(vectors)
    ranked = sorted(ids, key=lambda c: -float(np.dot(vectors[c], Q)))
    return Candidates(
        keyword=[Hit(c, 1.0 / (i + 1)) for i, c in enumerate(keyword)],
        vector=[Hit(c, float(np.dot(vectors[c], Q))) for c in ranked] if dense else None,
        row={c: i for i, c in enumerate(ids)},
        vectors=np.array([vectors[c] for c in ids], dtype=np.float32),
        comparable=np.array(comparable if comparable is not None else [True] * len(ids)),
        words=words or {},
    )


def test_support_is_the_better_of_cosine_and_the_words_the_source_vouches_for() -> None:
    found = candidates(
        {"close": [1.0, 0.0], "wordy": [0.1, 0.995], "other_model": [1.0, 0.0]},
        comparable=[True, True, False],
        words={"wordy": 0.8, "other_model": 0.3},
    )
    support = pipeline.support(found, ["close", "wordy", "other_model"], Q)
    assert support["close"] == pytest.approx(1.0)  # no word evidence: its cosine
    assert support["wordy"] == pytest.approx(0.8)  # words beat a low cosine
    assert support["other_model"] == pytest.approx(0.3)  # no cosine across models


def test_without_a_query_vector_only_words_support() -> None:
    found = candidates({"a": [1.0, 0.0], "b": [0.0, 1.0]}, words={"b": 0.5})
    assert pipeline.support(found, ["a", "b"], None) == {"a": 0.0, "b": 0.5}


def test_rank_keeps_only_supported_candidates_the_source_knows() -> None:
    found = candidates(
        {"good": [1.0, 0.0], "weak": [0.0, 1.0]},
        keyword=["good", "weak", "unknown"],  # "unknown" has no row: not a candidate
    )
    ranking = pipeline.rank(found, Q, 5, "hybrid", S)
    assert ranking.candidate_count == 2
    assert [p.chunk_id for p in ranking.picks] == ["good"]
    assert ranking.picks[0].similarity == pytest.approx(1.0)
    assert set(ranking.picks[0].sources) == {"vector", "keyword"}


def test_notes_of_one_series_keep_their_relevance_order() -> None:
    # the second is close to the first (cosine 0.96) and a little more relevant than
    # the third, which is unlike both: alike is not redundant
    ids = ["log-jan_000", "log-feb_000", "other_000"]
    found = Candidates(
        vector=[Hit(c, score) for c, score in zip(ids, (1.0, 0.9, 0.85), strict=True)],
        row={c: i for i, c in enumerate(ids)},
        vectors=np.array([[1.0, 0.0], [0.96, 0.28], [0.0, 1.0]], dtype=np.float32),
        comparable=np.ones(3, dtype=bool),
    )
    ranking = pipeline.rank(found, [0.7071, 0.7071], 3, "hybrid", S)
    assert [p.chunk_id for p in ranking.picks] == ids


def test_rank_with_nothing_relevant_picks_nothing() -> None:
    found = candidates({"weak": [0.0, 1.0]}, keyword=["weak"])
    assert pipeline.rank(found, Q, 5, "hybrid", S).picks == ()


def test_gate_reads_the_kept_similarities() -> None:
    assert pipeline.gate([], S) == (0.0, False)
    conf, matched = pipeline.gate([0.9, 0.7], S)
    assert conf == pytest.approx(0.7 * 0.9 + 0.3 * 0.8) and matched


# -- the retriever asks its sources in order ------------------------------------------
class Fixed:
    """A source that answers with one chunk, or fails as it is told."""

    def __init__(self, name: str, fails: BaseException | None = None) -> None:
        self.name = name
        self.fails = fails
        self.asked = 0
        self.chunk = chunk("fire_000", "We chose Firestore because it syncs in real time.")

    def candidates(self, request: CandidateRequest) -> Candidates:
        self.asked += 1
        if self.fails is not None:
            raise self.fails
        vector = np.asarray(self.chunk.embedding, dtype=np.float32)
        return Candidates(
            keyword=[Hit("fire_000", 2.0)],
            vector=[Hit("fire_000", 0.9)],
            row={"fire_000": 0},
            vectors=vector.reshape(1, -1),
            comparable=np.array([True]),
            words={"fire_000": 1.0},
        )

    def read(self, tenant_id: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        return {c: self.chunk for c in chunk_ids if c == "fire_000"}


def retriever(*sources: Fixed) -> Retriever:
    from footnote.adapters.hash_embedder import HashEmbedder

    return Retriever.over(S, HashEmbedder(), sources)


def ask(r: Retriever) -> RetrievalResult:
    return r.retrieve("alice", analyze("Why did we choose Firestore?", NOW))


def test_a_failed_source_is_stood_in_for_by_the_next_and_named() -> None:
    down, firestore = Fixed("vertex", SearchUnavailable("503")), Fixed("firestore")
    result = ask(retriever(down, firestore))
    assert [c.chunk.chunk_id for c in result.chunks] == ["fire_000"]
    assert result.fallbacks == (Fallback.VECTOR_INDEX_FIRESTORE,)
    assert result.strategy is Strategy.HYBRID_FIRESTORE_FALLBACK
    assert down.asked == 1 and firestore.asked == 1


def test_when_every_source_fails_the_query_fails_as_unavailable() -> None:
    with pytest.raises(SearchUnavailable):
        ask(
            retriever(
                Fixed("vertex", SearchUnavailable("503")), Fixed("memory", SearchUnavailable("x"))
            )
        )


def test_a_bug_in_a_source_surfaces_and_no_stand_in_hides_it() -> None:
    stand_in = Fixed("memory")
    with pytest.raises(KeyError):
        ask(retriever(Fixed("vertex", KeyError("a bug")), stand_in))
    assert stand_in.asked == 0
