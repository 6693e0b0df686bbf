"""Contracts for the embedder and vector-index ports, against every adapter: the
offline ones, and the Vertex AI ones with their real SDK clients talking to the
wire-level fake (tests/fakes/google_apis.py). Wire details: test_google_adapters.py."""

from __future__ import annotations

import math

import pytest

from footnote.adapters.cached_embedder import CachedEmbedder, MemoryEmbeddingCache
from footnote.adapters.hash_embedder import HashEmbedder
from footnote.adapters.memory_store import MemoryStore
from footnote.adapters.memory_vector_index import MemoryVectorIndex
from footnote.domain import IndexState, IndexStatus, MemoryType, TimeWindow
from footnote.ports import Embedder, VectorIndex, VectorQuery
from footnote.retrieval.corpus import CorpusCache
from tests.factories import NOW, chunk, note


@pytest.fixture(params=["hash", "local", "vertex"])
def embedder(request) -> Embedder:
    if request.param == "hash":
        return HashEmbedder()
    if request.param == "vertex":
        from footnote.adapters.vertex_embedder import VertexEmbedder
        from tests.fakes.vertex import vertex_settings

        return VertexEmbedder.from_settings(vertex_settings(request.getfixturevalue("google")))
    from footnote.adapters.local_embedder import LocalMiniLMEmbedder

    return LocalMiniLMEmbedder("local:all-MiniLM-L6-v2:384")


def test_embedder_contract(embedder: Embedder) -> None:
    assert isinstance(embedder, Embedder)
    docs = embedder.embed_documents(["Firestore stores notes.", "Bananas are yellow.", ""])
    assert len(docs) == 3 and all(len(v) == embedder.dimension for v in docs)
    assert all(math.isclose(sum(x * x for x in v), 1.0, rel_tol=1e-4) for v in docs[:2])
    again = embedder.embed_documents(["Firestore stores notes."])[0]
    assert again == pytest.approx(docs[0], abs=1e-5)
    q = embedder.embed_query("where are notes stored in Firestore")
    sims = [sum(a * b for a, b in zip(q, d, strict=True)) for d in docs[:2]]
    assert sims[0] > sims[1]


def test_cached_embedder_embeds_identical_text_once() -> None:
    inner = HashEmbedder()
    cached = CachedEmbedder(inner, MemoryEmbeddingCache())
    first = cached.embed_documents(["a b", "c d", "a b"])
    assert cached.misses == 2
    assert cached.embed_documents(["c d"]) == [first[1]] and cached.misses == 2


def _memory_index_with(chunks):
    store = MemoryStore()
    for c in chunks:
        if c.note_id not in store.notes:
            store.create_note(note(c.note_id, c.text, c.tenant_id))
        store.replace_chunks(
            store.notes[c.note_id], [c], IndexState(c.note_id, c.tenant_id, IndexStatus.INDEXED)
        )
    return MemoryVectorIndex(CorpusCache(store))


@pytest.fixture(params=["memory", "vertex"])
def index_with(request):
    """A function: chunks → a vector index holding them (upserted as indexing does)."""
    if request.param == "memory":
        return _memory_index_with
    from footnote.adapters.vertex_vector_index import VertexVectorIndex
    from tests.fakes.vertex import vertex_settings

    settings = vertex_settings(request.getfixturevalue("google"), EMBEDDER="hash")

    def build(chunks):
        index = VertexVectorIndex.from_settings(settings)
        index.upsert(chunks)
        return index

    return build


def test_vector_index_contract_tenant_window_and_type(index_with) -> None:
    chunks = [
        chunk(
            "a_000", "Firestore stores notes.", "alice", days_ago=1, memory_type=MemoryType.DECISION
        ),
        chunk("b_000", "Firestore stores notes.", "bob", days_ago=1),
        chunk("c_000", "Old Firestore note.", "alice", days_ago=40),
    ]
    index = index_with(chunks)
    assert isinstance(index, VectorIndex)
    q = HashEmbedder().embed_query("Firestore notes")
    hits = index.search(VectorQuery("alice", q, 10))
    assert {h.chunk_id for h in hits} == {"a_000", "c_000"}
    recent = index.search(VectorQuery("alice", q, 10, TimeWindow(NOW.replace(day=1), None)))
    assert [h.chunk_id for h in recent] == ["a_000"]
    typed = index.search(VectorQuery("alice", q, 10, None, (MemoryType.DECISION,)))
    assert [h.chunk_id for h in typed] == ["a_000"]
    with pytest.raises(ValueError):
        index.search(VectorQuery("", q, 10))
