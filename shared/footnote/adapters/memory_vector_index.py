"""The in-memory vector index: exact search over the tenant's cached corpus.

Chunks (with their vectors) live in the chunk store, which is the source of
truth; this index reads them through ``CorpusCache``, which patches itself from
the store's change log, so upsert and remove have nothing to do.
"""

from __future__ import annotations

from collections.abc import Sequence

from footnote.domain import Chunk, Hit
from footnote.ports import HybridHits, HybridQuery, Neighbor, VectorQuery
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
        corpus = self._corpora.current(query.tenant_id)
        with corpus.lock:
            mask = corpus.mask(query.window, query.types)
            return corpus.vector_hits(query.vector, query.k, mask)

    def search_hybrid(self, query: HybridQuery) -> HybridHits:
        """Exact dense, BM25 and recency lists over the tenant's corpus."""
        if not query.tenant_id:
            raise ValueError("a vector query needs a tenant")
        corpus = self._corpora.current(query.tenant_id)
        with corpus.lock:
            mask = corpus.mask(query.window, query.types)
            same_model = corpus.model_mask(query.model_id)

            def neighbors(hits: list[Hit]) -> list[Neighbor]:
                out = []
                for h in hits:
                    row = corpus.by_id[h.chunk_id]
                    vector = tuple(corpus.matrix[row].tolist()) if same_model[row] else None
                    out.append(Neighbor(h.chunk_id, h.score, float(corpus.created[row]), vector))
                return out

            dense: list[Hit] = []
            if query.vector is not None:
                dense = corpus.vector_hits(query.vector, query.k, mask & same_model)
            return HybridHits(
                dense=neighbors(dense),
                keyword=neighbors(corpus.keyword_hits(query.keywords, query.k, mask)),
                recent=neighbors(corpus.recent_hits(query.k, mask)),
            )
