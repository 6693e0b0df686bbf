"""Firestore vector search over ``noteChunks``: the dense list when Vector Search fails.

One ``find_nearest`` query on ``embedding`` with the tenant as pre-filter, served
by the composite vector index Terraform creates (``tenantId`` ascending, then
``embedding`` with the embedding dimension: infra/firestore.tf,
``chunks_embedding_by_tenant``). Never a tenant scan: the query reads only the
neighbours it returns (at most ``k``, or a few times ``k`` when a type, time or
model filter must be applied to them, capped at Firestore's 1,000).

DOT_PRODUCT over unit-length vectors is the cosine, as in Vector Search. The
memory type, time window and model are checked on the returned chunks (a
pre-filter on them would need one more composite vector index per combination),
so a narrow filter may return fewer than ``k``. There is no keyword list: BM25
needs term statistics and postings Firestore does not hold; the retriever ranks
the dense list (and recency among it) alone and says so in ``meta.fallbacks``.

A failed query raises ``BackendUnavailable`` (the SDK's error as its cause).

Writes are no-ops: the chunk documents this index reads are the ones the chunk
store already wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from footnote.adapters.google_retry import unavailable_on_sdk_errors
from footnote.domain import Chunk, Hit, MemoryType, TimeWindow
from footnote.ports import HybridHits, HybridQuery, Neighbor, VectorQuery

if TYPE_CHECKING:
    from google.cloud import firestore

CHUNKS = "noteChunks"  # FirestoreStore's chunk collection
FIND_NEAREST_LIMIT = 1000  # Firestore's cap on a vector query's limit
OVERSAMPLE = 3  # neighbours fetched per wanted one when a post-filter applies
SCORE = "_score"  # the distance result field
TENANT_FIELD = "tenantId"  # the pre-filter (first field of the composite vector index)
EMBEDDING_FIELD = "embedding"  # the vector field


class FirestoreVectorIndex:
    name = "firestore"

    def __init__(self, client: firestore.Client) -> None:
        self.client = client
        self.reads = 0  # documents returned by vector queries (tests count them)

    def upsert(self, chunks: Sequence[Chunk]) -> None:
        return None  # the chunk store wrote them

    def remove(self, tenant_id: str, chunk_ids: Sequence[str]) -> None:
        return None

    def search(self, query: VectorQuery) -> list[Hit]:
        found = self._nearest(
            query.tenant_id, None, query.vector, query.k, query.window, query.types
        )
        return [Hit(n.chunk_id, n.score) for n in found]

    def search_hybrid(self, query: HybridQuery) -> HybridHits:
        if query.vector is None:
            return HybridHits([], [])
        found = self._nearest(
            query.tenant_id, query.model_id, query.vector, query.k, query.window, query.types
        )
        return HybridHits(found, [])

    def _nearest(
        self,
        tenant_id: str,
        model_id: str | None,
        vector: Sequence[float],
        k: int,
        window: TimeWindow | None,
        types: Sequence[MemoryType],
    ) -> list[Neighbor]:
        from google.cloud.firestore_v1.base_query import FieldFilter
        from google.cloud.firestore_v1.base_vector_query import DistanceMeasure
        from google.cloud.firestore_v1.vector import Vector

        if not tenant_id:
            raise ValueError("a vector query needs a tenant")
        if k <= 0:
            return []
        filtered = bool(types) or window is not None or model_id is not None
        limit = min(FIND_NEAREST_LIMIT, k * OVERSAMPLE if filtered else k)
        query = (
            self.client.collection(CHUNKS)
            .where(filter=FieldFilter(TENANT_FIELD, "==", tenant_id))
            .find_nearest(
                vector_field=EMBEDDING_FIELD,
                query_vector=Vector([float(x) for x in vector]),
                distance_measure=DistanceMeasure.DOT_PRODUCT,
                limit=limit,
                distance_result_field=SCORE,
            )
        )
        wanted_types = {t.value for t in types}
        out: list[Neighbor] = []
        with unavailable_on_sdk_errors("Firestore find_nearest"):
            for snap in query.stream():  # type: ignore[call-arg]  # stubs type the class, not the instance
                self.reads += 1
                d: dict[str, Any] = snap.to_dict() or {}
                if model_id is not None and d.get("embeddingModel") != model_id:
                    continue
                if wanted_types and d.get("memoryType") not in wanted_types:
                    continue
                created = d["createdAt"]
                if window is not None:
                    if window.start is not None and created < window.start:
                        continue
                    if window.end is not None and created >= window.end:
                        continue
                out.append(
                    Neighbor(
                        str(d.get("chunkId") or snap.id),
                        float(d.get(SCORE, 0.0)),
                        created.timestamp(),
                        tuple(float(x) for x in d[EMBEDDING_FIELD]),
                    )
                )
                if len(out) >= k:
                    break
        return out
