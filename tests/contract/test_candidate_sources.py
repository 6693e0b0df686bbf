"""The candidate-source port's contract (retrieval/candidates.py), run against every adapter.

One mixin states what any source must do; each adapter's class says only how to
build it over the same chunks, and how to break its backend:

- ``CorpusSource``: the tenant's corpus in memory (the in-memory store behind it);
- ``IndexSource`` over the in-memory vector index;
- ``IndexSource`` over Vertex AI Vector Search: the real aiplatform_v1 SDK against
  the wire fake (tests/fakes/google_apis.py);
- ``IndexSource`` over Firestore ``find_nearest``: the real adapter against an
  in-process stand-in of the client's query chain (the emulator test,
  tests/emulator/test_firestore_vector_and_stats.py, checks the real index).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, ClassVar

import pytest

from footnote.adapters.firestore_vector_index import FirestoreVectorIndex
from footnote.adapters.hash_embedder import HashEmbedder
from footnote.adapters.memory_store import MemoryStore
from footnote.adapters.memory_term_stats import MemoryTermStats
from footnote.adapters.memory_vector_index import MemoryVectorIndex
from footnote.adapters.vertex_vector_index import VertexVectorIndex
from footnote.config import Settings
from footnote.domain import Chunk, Fallback, MemoryType, TimeWindow
from footnote.errors import SearchUnavailable
from footnote.query.analysis import analyze
from footnote.retrieval import pipeline
from footnote.retrieval.candidates import CandidateRequest, Candidates, CandidateSource
from footnote.retrieval.corpus import CorpusCache
from footnote.retrieval.sources import CorpusSource, IndexSource
from footnote.retrieval.sparse import NoteTerms, chunk_terms
from tests.factories import NOW, chunk
from tests.fakes.google_apis import FakeGoogleApis
from tests.fakes.vertex import vertex_settings

SETTINGS = Settings(EMBEDDER="hash", NOTE_STORE="memory", REINDEX_QUEUE="inline")
EMBEDDER = HashEmbedder()
CHUNKS = [  # alice's, newest first; bob's last
    chunk("fire_000", "We chose Firestore because it syncs in real time.", days_ago=1),
    chunk(
        "budget_000",
        "Quarterly budget review moved to Thursday.",
        days_ago=5,
        memory_type=MemoryType.DECISION,
    ),
    chunk("garden_000", "The garden needs watering twice a week.", days_ago=20),
    chunk("ferry_000", "The ferry timetable changes next spring.", days_ago=40),
    chunk("secret_000", "Bob's Firestore password notes, real time sync.", tenant="bob"),
]
ALICE = {c.chunk_id for c in CHUNKS if c.tenant_id == "alice"}


def request(text: str, *, vector: bool = True, **analysis: Any) -> CandidateRequest:
    question = dataclasses.replace(analyze(text, NOW), **analysis)
    return CandidateRequest(
        "alice",
        question,
        EMBEDDER.embed_query(question.normalized) if vector else None,
        EMBEDDER.model_id,
        SETTINGS.retrieval_top_k,
    )


def listed(found: Candidates) -> set[str]:
    return {h.chunk_id for hits in (found.keyword, found.vector, found.recency) for h in hits or ()}


class CandidateSourceContract:
    """What every candidate source does, whatever its backend."""

    has_keyword_list: ClassVar[bool] = True

    def source(self, chunks: Sequence[Chunk]) -> CandidateSource:
        raise NotImplementedError

    def broken(self, chunks: Sequence[Chunk]) -> CandidateSource:
        """The source over a backend that fails every call."""
        raise NotImplementedError

    def test_finds_the_answer_and_ranks_it_first(self) -> None:
        found = self.source(CHUNKS).candidates(request("Why did we choose Firestore?"))
        ranking = pipeline.rank(
            found, request("Why did we choose Firestore?").vector, 3, "hybrid", SETTINGS
        )
        assert ranking.picks and ranking.picks[0].chunk_id == "fire_000"

    def test_never_returns_another_tenants_chunks(self) -> None:
        found = self.source(CHUNKS).candidates(request("Firestore real time sync password"))
        assert listed(found) and listed(found) <= ALICE
        assert set(found.row) <= ALICE and set(found.stand_ins) <= ALICE

    def test_every_listed_chunk_has_a_row_and_a_comparable_vector(self) -> None:
        asked = request("budget review Thursday")
        found = self.source(CHUNKS).candidates(asked)
        assert found.vector is not None and found.vector
        assert listed(found) <= set(found.row)
        assert found.vectors.shape == (len(found.row), len(asked.vector or ()))
        assert all(found.comparable[found.row[h.chunk_id]] for h in found.vector)

    def test_the_keyword_list_holds_only_chunks_with_a_query_word(self) -> None:
        found = self.source(CHUNKS).candidates(request("garden watering"))
        ids = [h.chunk_id for h in found.keyword]
        if self.has_keyword_list:
            assert ids and ids[0] == "garden_000"
        assert set(ids) <= {"garden_000"}

    def test_another_reading_of_the_words_is_searched_too(self) -> None:
        # a question read as Spanish ("riego del jardín") whose words, read as the notes
        # are (English stems), hold a note's word: the keyword list finds it
        asked = request("riego del jardín", keywords=("rieg", "jardin"), readings=(("water",),))
        ids = [h.chunk_id for h in self.source(CHUNKS).candidates(asked).keyword]
        if self.has_keyword_list:
            assert ids == ["garden_000"]

    def test_the_window_binds_every_list(self) -> None:
        window = TimeWindow(NOW - timedelta(days=10), NOW, "the last ten days")
        found = self.source(CHUNKS).candidates(request("notes", window=window))
        assert listed(found) and listed(found) <= {"fire_000", "budget_000"}

    def test_types_bind_and_are_relaxed_when_they_hide_everything(self) -> None:
        source = self.source(CHUNKS)
        decisions = source.candidates(request("budget review", types=(MemoryType.DECISION,)))
        assert listed(decisions) == {"budget_000"}
        assert Fallback.TYPE_FILTER_RELAXED not in decisions.fallbacks
        tasks = source.candidates(request("budget review", types=(MemoryType.TASK,)))
        assert Fallback.TYPE_FILTER_RELAXED in tasks.fallbacks
        assert "budget_000" in listed(tasks)
        # relaxed for every list: the dense half ranks the notes the filter hid
        assert tasks.vector and "budget_000" in {h.chunk_id for h in tasks.vector}

    def test_without_a_query_vector_there_is_no_dense_half(self) -> None:
        found = self.source(CHUNKS).candidates(request("budget review", vector=False))
        assert found.vector is None
        if self.has_keyword_list:
            assert [h.chunk_id for h in found.keyword][:1] == ["budget_000"]

    def test_read_returns_the_chunks_that_still_exist(self) -> None:
        source = self.source(CHUNKS)
        source.candidates(request("Firestore"))
        read = source.read("alice", ["fire_000", "gone_000", "secret_000"])
        assert set(read) == {"fire_000"} and read["fire_000"].text == CHUNKS[0].text

    def test_a_failed_backend_raises_search_unavailable(self) -> None:
        with pytest.raises(SearchUnavailable):
            self.broken(CHUNKS).candidates(request("Why did we choose Firestore?"))


# -- the in-memory corpus -------------------------------------------------------------
class _Down(MemoryStore):
    def tenant_version_mark(self, tenant_id: str) -> tuple[int, Any]:
        raise ConnectionError("the store is unreachable (injected)")


def _store(chunks: Sequence[Chunk], store: MemoryStore | None = None) -> MemoryStore:
    store = store or MemoryStore()
    store.chunks.update({c.chunk_id: c for c in chunks})
    return store


class TestCorpusSource(CandidateSourceContract):
    def source(self, chunks: Sequence[Chunk]) -> CandidateSource:
        return CorpusSource(CorpusCache(_store(chunks)))

    def broken(self, chunks: Sequence[Chunk]) -> CandidateSource:
        return CorpusSource(CorpusCache(_store(chunks, _Down())))

    def test_a_failed_dense_index_is_stood_in_for_by_the_corpus(self) -> None:
        class DenseDown(MemoryVectorIndex):
            def search(self, query: object) -> list[Any]:
                raise TimeoutError("deadline exceeded (injected)")

        corpora = CorpusCache(_store(CHUNKS))
        found = CorpusSource(corpora, DenseDown(corpora)).candidates(
            request("Why did we choose Firestore?")
        )
        assert Fallback.VECTOR_INDEX_MEMORY in found.fallbacks
        assert found.vector and found.vector[0].chunk_id == "fire_000"

    def test_a_relaxed_type_filter_is_relaxed_for_the_dense_index_too(self) -> None:
        corpora = CorpusCache(_store(CHUNKS))
        source = CorpusSource(corpora, MemoryVectorIndex(corpora))
        found = source.candidates(request("budget review", types=(MemoryType.TASK,)))
        assert Fallback.TYPE_FILTER_RELAXED in found.fallbacks
        assert found.vector and found.vector[0].chunk_id == "budget_000"

    def test_a_bug_in_the_dense_index_surfaces(self) -> None:
        class Buggy(MemoryVectorIndex):
            def search(self, query: object) -> list[Any]:
                raise KeyError("a bug, not an outage")

        corpora = CorpusCache(_store(CHUNKS))
        with pytest.raises(KeyError):
            CorpusSource(corpora, Buggy(corpora)).candidates(request("Firestore"))


# -- any VectorIndex through IndexSource ----------------------------------------------
class TestMemoryIndexSource(CandidateSourceContract):
    def source(self, chunks: Sequence[Chunk]) -> CandidateSource:
        store = _store(chunks)
        return IndexSource(MemoryVectorIndex(CorpusCache(store)), store)

    def broken(self, chunks: Sequence[Chunk]) -> CandidateSource:
        store = _store(chunks, _Down())
        return IndexSource(MemoryVectorIndex(CorpusCache(store)), store)


class TestVertexIndexSource(CandidateSourceContract):
    @pytest.fixture(autouse=True)
    def _google(self, google: FakeGoogleApis) -> None:
        self.google = google

    def source(self, chunks: Sequence[Chunk]) -> CandidateSource:
        settings = vertex_settings(self.google, EMBEDDER="hash")
        stats = MemoryTermStats()
        for c in chunks:
            stats.record(c.tenant_id, c.note_id, NOW, NoteTerms.of([chunk_terms(c)]))
        index = VertexVectorIndex.from_settings(settings, term_stats=stats)
        index.upsert(chunks)
        return IndexSource(index, _store(chunks))

    def broken(self, chunks: Sequence[Chunk]) -> CandidateSource:
        source = self.source(chunks)
        self.google.fail("find", 503, times=None)
        return source


class _Snapshot:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.id = doc["chunkId"]
        self._doc = doc

    def to_dict(self) -> dict[str, Any]:
        return dict(self._doc)


class _FindNearest:
    """The part of the Firestore client FirestoreVectorIndex calls: a tenant filter,
    then ``find_nearest`` by DOT_PRODUCT, streamed best first."""

    def __init__(self, docs: list[dict[str, Any]], down: bool = False) -> None:
        self.docs, self.down = docs, down
        self.tenant: str | None = None
        self.vector: Sequence[float] = ()
        self.limit = 0

    def collection(self, name: str) -> _FindNearest:
        assert name == "noteChunks"
        return self

    def where(self, *, filter: Any) -> _FindNearest:  # the SDK's keyword
        assert (filter.field_path, filter.op_string) == ("tenantId", "==")
        self.tenant = filter.value
        return self

    def find_nearest(self, **kw: Any) -> _FindNearest:
        assert kw["vector_field"] == "embedding"
        self.vector, self.limit = list(kw["query_vector"]), kw["limit"]
        return self

    def stream(self) -> Any:
        from google.api_core import exceptions

        if self.down:
            raise exceptions.ServiceUnavailable("find_nearest (injected)")
        mine = [d for d in self.docs if d["tenantId"] == self.tenant]
        for d in mine:
            d["_score"] = sum(a * b for a, b in zip(d["embedding"], self.vector, strict=True))
        yield from (_Snapshot(d) for d in sorted(mine, key=lambda d: -d["_score"])[: self.limit])


def _docs(chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    return [
        {
            "chunkId": c.chunk_id,
            "tenantId": c.tenant_id,
            "memoryType": c.memory_type.value,
            "createdAt": c.created_at,
            "embedding": list(c.embedding),
            "embeddingModel": c.embedding_model,
        }
        for c in chunks
    ]


class TestFirestoreIndexSource(CandidateSourceContract):
    has_keyword_list = False  # find_nearest has no BM25: the dense list alone

    def source(self, chunks: Sequence[Chunk]) -> CandidateSource:
        client = _FindNearest(_docs(chunks))
        return IndexSource(FirestoreVectorIndex(client), _store(chunks))  # type: ignore[arg-type]

    def broken(self, chunks: Sequence[Chunk]) -> CandidateSource:
        client = _FindNearest(_docs(chunks), down=True)
        return IndexSource(FirestoreVectorIndex(client), _store(chunks))  # type: ignore[arg-type]
