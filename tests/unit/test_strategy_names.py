"""Strategy and fallback names: one enum, and the name says which index served."""

from __future__ import annotations

from footnote.adapters.hash_embedder import HashEmbedder
from footnote.adapters.memory_store import MemoryStore
from footnote.adapters.memory_vector_index import MemoryVectorIndex
from footnote.api.openapi import build_spec
from footnote.domain import Fallback, Strategy
from footnote.errors import BackendUnavailable
from footnote.ingest.classify import RuleClassifier
from footnote.ports import HybridHits, HybridQuery
from footnote.query.analysis import analyze
from footnote.retrieval.corpus import CorpusCache
from footnote.retrieval.retriever import Retriever
from footnote.services.indexing import IndexingService, Outcome
from tests.factories import NOW, note
from tests.inproc import settings


class VectorSearchDown:
    """A managed index whose every search fails (a Vector Search outage)."""

    name = "vertex"

    def search_hybrid(self, query: HybridQuery) -> HybridHits:
        raise BackendUnavailable("Vector Search: 503")


class FindNearestStandIn(MemoryVectorIndex):
    """Answers as the Firestore fallback index would (exact, over the same chunks),
    under its name: the retriever knows a stand-in only by ``name``."""

    name = "firestore"


def _indexed() -> tuple[MemoryStore, CorpusCache, HashEmbedder]:
    s = settings()
    store, embedder = MemoryStore(), HashEmbedder()
    corpora = CorpusCache(store)
    indexing = IndexingService(
        s, store, store, embedder, RuleClassifier(), MemoryVectorIndex(corpora)
    )
    store.create_note(note("fire", "We chose Firestore because it syncs in real time."))
    assert indexing.index_note("fire").outcome is Outcome.INDEXED
    return store, corpora, embedder


def _retrieve(retriever: Retriever):
    return retriever.retrieve("alice", analyze("Why did we choose Firestore?", NOW))


def test_a_firestore_stand_in_is_named_as_such_not_as_the_memory_index() -> None:
    store, corpora, embedder = _indexed()
    down = VectorSearchDown()
    retriever = Retriever(
        settings(),
        None,
        embedder,
        down,  # type: ignore[arg-type]  # only search_hybrid is called, and it fails
        chunks=store,
        fallback_index=FindNearestStandIn(corpora),
    )
    result = _retrieve(retriever)
    assert [c.chunk.note_id for c in result.chunks] == ["fire"]
    assert result.fallbacks == (Fallback.VECTOR_INDEX_FIRESTORE,)
    # Before the enum, any vector_index_* fallback reported the memory index.
    assert result.strategy is Strategy.HYBRID_FIRESTORE_FALLBACK
    # Strategy is a str enum: equal to the string the API reports.
    assert result.strategy == "hybrid_reranked_firestore_fallback"  # type: ignore[comparison-overlap]


def test_the_corpus_stand_in_is_named_memory() -> None:
    store, corpora, embedder = _indexed()
    down = VectorSearchDown()
    # Only search_hybrid is called, and it fails.
    retriever = Retriever(settings(), corpora, embedder, down, chunks=store)  # type: ignore[arg-type]
    result = _retrieve(retriever)
    assert Fallback.VECTOR_INDEX_MEMORY in result.fallbacks
    assert result.strategy is Strategy.HYBRID_MEMORY_FALLBACK


def _enums(node: object) -> list[list[object]]:
    if isinstance(node, dict):
        found = [node["enum"]] if isinstance(node.get("enum"), list) else []
        return found + [e for v in node.values() for e in _enums(v)]
    if isinstance(node, list):
        return [e for v in node for e in _enums(v)]
    return []


def test_the_openapi_description_lists_exactly_the_enums() -> None:
    enums = _enums(build_spec(settings()))
    strategies = [e for e in enums if "hybrid_reranked" in e]
    fallbacks = [e for e in enums if "embedder_down" in e]
    assert strategies and all(e == [s.value for s in Strategy] for e in strategies)
    assert fallbacks and all(e == [f.value for f in Fallback] for e in fallbacks)
