"""The in-memory vector index: exact cosine search over the tenant's cached corpus.

Chunks (with their vectors) live in the chunk store, which is the source of
truth; this index reads them through ``CorpusCache``, so upsert and remove
have nothing to do.
"""

from __future__ import annotations

from collections.abc import Sequence

from footnote.domain import Chunk, Hit
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
