"""The in-memory vector index: exact cosine search over the tenant's cached corpus.

Chunks (with their vectors) live in the chunk store, which is the source of
truth; this index reads them through ``CorpusCache``, so upsert and remove
have nothing to do.
"""

from __future__ import annotations

from collections.abc import Sequence

from footnote.domain import Chunk, Hit
from footnote.errors import BackendUnavailable
from footnote.ports import VectorQuery
from footnote.retrieval.corpus import CorpusCache


class MemoryVectorIndex:
    name = "memory"

    def __init__(self, corpora: CorpusCache) -> None:
        self._corpora = corpora

    def upsert(self, chunks: Sequence[Chunk]) -> None:
        return None

    def remove(self, tenant_id: str, chunk_ids: Sequence[str]) -> None:
        return None

    def search(self, query: VectorQuery) -> list[Hit]:
        if not query.tenant_id:
            raise ValueError("a vector query needs a tenant")
        corpus = self._corpora.get(query.tenant_id)
        return corpus.vector_hits(query.vector, query.k, corpus.mask(query.window, query.types))


class UnconfiguredVectorIndex:
    """Stands in for Vector Search when ``VECTOR_INDEX=vertex`` names no index.

    Searches fail, so the retriever answers from the in-memory index and says so
    (``vector_index_memory`` in ``meta.fallbacks`` and the logs) instead of the
    whole API failing to start; writes are skipped, so a re-index is due once
    the index is configured.
    """

    name = "vertex-unconfigured"

    def __init__(self, missing: Sequence[str]) -> None:
        self.missing = tuple(missing)

    def upsert(self, chunks: Sequence[Chunk]) -> None:
        return None

    def remove(self, tenant_id: str, chunk_ids: Sequence[str]) -> None:
        return None

    def search(self, query: VectorQuery) -> list[Hit]:
        raise BackendUnavailable(f"Vector Search is not configured: set {', '.join(self.missing)}")
