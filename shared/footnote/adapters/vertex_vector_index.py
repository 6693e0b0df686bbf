"""Vertex AI Vector Search, through the ``aiplatform_v1`` clients, with stream updates.

Indexing a note upserts one datapoint per chunk (``IndexServiceClient.upsert_datapoints``);
deleting it removes them (``remove_datapoints``). Each datapoint carries the dense
embedding, a sparse keyword embedding (the document half of Lucene BM25 over the
chunk's stemmed terms, under 63-bit term ids: ``retrieval/sparse.py``),
categorical restricts — ``tenant`` (always), ``type`` (memory type) and ``model``
(the embedding model id, so an index never answers with vectors of another
model) — and a numeric restrict ``created`` (epoch seconds) for time windows.

``search_hybrid`` sends one ``MatchServiceClient.find_neighbors`` request to the
deployed index, always restricted to the tenant and the query's model, with
``return_full_datapoint`` so every neighbour brings its dense vector and
``created`` (no Firestore read). With ``fusion="local"`` (what ships)
the request holds two queries, dense-only and sparse-only (the query half of
BM25: each term's IDF from the tenant's term statistics), and the retriever fuses
the two lists as it fuses the in-memory ones. With ``service`` it holds one query
with both embeddings and ``rrf.alpha``: the service fuses, and the fused list
comes back as ``dense`` (docs/vertex.md compares the two; only the benchmark asks).

The index must be created for stream updates, with DOT_PRODUCT_DISTANCE over
unit-length vectors (``UNIT_L2_NORM``): the neighbour ``distance`` is then the
cosine similarity, higher is closer; ``sparse_distance`` is the sparse dot
product, the BM25 score. Its dimension is the embedding dimension.

Calls retry 429/5xx with backoff and jitter; a call that still fails raises
``BackendUnavailable`` (the SDK's error as its cause): the retriever falls back
(``meta.retrieval.fallbacks``), the indexer marks the note failed. Upserts and
removals wait out a RESOURCE_EXHAUSTED quota for up to ``GOOGLE_QUOTA_WAIT_S``, then
raise ``QuotaExhausted`` (the indexer hands the event back for redelivery).

Why this module is over ~400 lines: it is one adapter over one API, and a third
of it is this description and the builders of the datapoint and query messages
at the bottom. Moving those builders away would separate each request from the
code that sends it and reads its answer; the sparse half's arithmetic already
lives in ``retrieval/sparse.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from footnote.adapters.google_retry import (
    RetryPolicy,
    gapic_client,
    is_local,
    resource_name,
    unavailable_on_sdk_errors,
)
from footnote.config import Settings
from footnote.domain import Chunk, Hit, MemoryType, TimeWindow
from footnote.ports import HybridHits, HybridQuery, Neighbor, TermStatsStore, VectorQuery
from footnote.retrieval.sparse import SparseVector, TermStatistics, chunk_weights, query_weights

TENANT = "tenant"
TYPE = "type"
MODEL = "model"
CREATED = "created"
UPSERT_BATCH = 100  # datapoints per upsert request
REMOVE_BATCH = 1000  # ids per remove request
RRF_K = 60  # the fused list's order as a score: 1 / (RRF_K + rank)


class VertexVectorIndex:
    name = "vertex"

    def __init__(
        self,
        index_client: Any,
        match_client: Any,
        index: str,
        index_endpoint: str,
        deployed_index_id: str,
        model_id: str,
        retry: RetryPolicy | None = None,
        query_timeout_s: float = 5.0,
        update_timeout_s: float = 30.0,
        term_stats: TermStatsStore | None = None,
        bm25_k1: float = 0.9,
        bm25_b: float = 0.4,
        fusion: str = "local",
        rrf_alpha: float = 0.5,
    ) -> None:
        """``term_stats``: the tenants' BM25 statistics; without them datapoints
        carry no sparse embedding and ``search_hybrid`` has no keyword list."""
        self._index_client = index_client
        self._match_client = match_client
        self.index = index
        self.index_endpoint = index_endpoint
        self.deployed_index_id = deployed_index_id
        self.model_id = model_id
        self._retry = retry or RetryPolicy()
        self._query_timeout = query_timeout_s
        self._update_timeout = update_timeout_s
        self._stats = term_stats
        self._k1 = bm25_k1
        self._b = bm25_b
        self.fusion = fusion
        self.rrf_alpha = rrf_alpha

    @classmethod
    def from_settings(
        cls,
        s: Settings,
        credentials: Any = None,
        term_stats: TermStatsStore | None = None,
        fusion: str = "local",
        rrf_alpha: float = 0.5,
    ) -> VertexVectorIndex:
        """``fusion="service"`` (the evaluation's variant, benchmarks/vertex_fake_eval.py)
        lets Vector Search fuse one list by RRF with ``rrf_alpha`` (1 = dense only);
        it lost to fusing the two lists here (docs/vertex.md), so production never asks."""
        from google.cloud import aiplatform_v1

        regional = s.vector_search_api_endpoint or f"{s.location}-aiplatform.googleapis.com"
        # A public endpoint answers queries on its own domain; otherwise the regional API.
        # An explicit local override (a wire fake) takes both.
        match_endpoint = regional
        if s.vertex_public_endpoint_domain and not is_local(regional):
            match_endpoint = s.vertex_public_endpoint_domain
        index_client = gapic_client(aiplatform_v1.IndexServiceClient, regional, credentials)
        match_client = gapic_client(aiplatform_v1.MatchServiceClient, match_endpoint, credentials)
        return cls(
            index_client,
            match_client,
            resource_name(s.vertex_index, s.project_id, s.location, "indexes"),
            resource_name(s.vertex_index_endpoint, s.project_id, s.location, "indexEndpoints"),
            s.vertex_deployed_index_id,
            s.embedding_model_id,
            RetryPolicy.from_settings(s),
            s.vector_search_timeout_ms / 1000,
            s.embedding_timeout_ms / 1000,
            term_stats,
            s.bm25_k1,
            s.bm25_b,
            fusion,
            rrf_alpha,
        )

    # -- writes ------------------------------------------------------------------
    def upsert(self, chunks: Sequence[Chunk]) -> None:
        from google.cloud.aiplatform_v1 import types

        for c in chunks:
            if not c.tenant_id:
                raise ValueError("every datapoint needs a tenant")
            if c.embedding_model != self.model_id:
                # Vectors of another model never enter this index.
                raise ValueError(
                    f"chunk {c.chunk_id} has vectors of {c.embedding_model}, index holds {self.model_id}"
                )
        # The document half of BM25 is fixed at upsert time, with the tenant's
        # average chunk length then (chunks are bounded by CHUNK_SIZE, so it moves little).
        avgdl: dict[str, float] = {}
        if self._stats is not None:
            for tenant in {c.tenant_id for c in chunks}:
                avgdl[tenant] = self._stats.statistics(tenant).avgdl
        for i in range(0, len(chunks), UPSERT_BATCH):
            batch = chunks[i : i + UPSERT_BATCH]
            request = types.UpsertDatapointsRequest(
                index=self.index,
                datapoints=[
                    _datapoint(
                        c,
                        chunk_weights(c, avgdl[c.tenant_id], self._k1, self._b)
                        if c.tenant_id in avgdl
                        else None,
                    )
                    for c in batch
                ],
            )
            self._update(
                f"upsert {len(batch)} datapoint(s)", self._index_client.upsert_datapoints, request
            )

    def remove(self, tenant_id: str, chunk_ids: Sequence[str]) -> None:
        from google.cloud.aiplatform_v1 import types

        if not tenant_id:
            raise ValueError("removing datapoints needs a tenant")
        ids = list(dict.fromkeys(chunk_ids))
        for i in range(0, len(ids), REMOVE_BATCH):
            request = types.RemoveDatapointsRequest(
                index=self.index, datapoint_ids=ids[i : i + REMOVE_BATCH]
            )
            self._update(
                f"remove {len(request.datapoint_ids)} datapoint(s)",
                self._index_client.remove_datapoints,
                request,
            )

    def _update(self, what: str, method: Callable[..., Any], request: Any) -> None:
        """One index update, retried (quota waited out); the SDK's errors as
        BackendUnavailable."""
        with unavailable_on_sdk_errors(f"Vector Search {what}"):
            self._retry.call(
                what,
                functools.partial(
                    method, request=request, retry=None, timeout=self._update_timeout
                ),
                wait_out_quota=True,
            )

    # -- queries -------------------------------------------------------------------
    def search(self, query: VectorQuery) -> list[Hit]:
        from google.cloud.aiplatform_v1 import types

        if not query.tenant_id:
            raise ValueError("a vector query needs a tenant")
        restricts, numeric = self._restricts(
            query.tenant_id, self.model_id, query.window, query.types
        )
        request = types.FindNeighborsRequest(
            index_endpoint=self.index_endpoint,
            deployed_index_id=self.deployed_index_id,
            queries=[
                types.FindNeighborsRequest.Query(
                    datapoint=types.IndexDatapoint(
                        datapoint_id="query",
                        feature_vector=[float(x) for x in query.vector],
                        restricts=restricts,
                        numeric_restricts=numeric,
                    ),
                    neighbor_count=query.k,
                )
            ],
            return_full_datapoint=False,
        )
        response = self._find(request)
        hits: list[Hit] = []
        for result in response.nearest_neighbors:
            for neighbor in result.neighbors:
                hits.append(Hit(neighbor.datapoint.datapoint_id, float(neighbor.distance)))
        return hits[: query.k]

    def search_hybrid(self, query: HybridQuery) -> HybridHits:
        """Dense and keyword neighbours in one ``find_neighbors`` request (see the
        module docstring); each neighbour carries its vector and ``created``."""
        from google.cloud.aiplatform_v1 import types

        if not query.tenant_id:
            raise ValueError("a vector query needs a tenant")
        if query.model_id != self.model_id:
            # This index holds vectors of one model; another's query vector means nothing here.
            raise ValueError(f"index holds {self.model_id} vectors, query is {query.model_id}")
        with unavailable_on_sdk_errors("reading the tenant's term statistics"):
            sparse = self.query_sparse(query.tenant_id, query.keywords)
        dense = [float(x) for x in query.vector] if query.vector is not None else []
        if not dense and not sparse:
            return HybridHits([], [])
        restricts, numeric = self._restricts(
            query.tenant_id, query.model_id, query.window, query.types
        )
        Datapoint = types.IndexDatapoint
        Query = types.FindNeighborsRequest.Query

        # Keyword weights do not depend on the embedding model: mid-migration, a chunk
        # not yet re-embedded is still found by its words (its vector is withheld).
        keyword_restricts = [r for r in restricts if r.namespace != MODEL]

        def point(name: str, vector: list[float], words: SparseVector | None) -> Any:
            return Datapoint(
                datapoint_id=name,
                feature_vector=vector,
                sparse_embedding=_sparse(words) if words else None,
                restricts=keyword_restricts if not vector else restricts,
                numeric_restricts=numeric,
            )

        queries: list[Any] = []
        kinds: list[str] = []
        if self.fusion == "service" and dense and sparse:
            queries.append(
                Query(
                    datapoint=point("hybrid", dense, sparse),
                    neighbor_count=query.k,
                    rrf=Query.RRF(alpha=self.rrf_alpha),
                )
            )
            kinds.append("fused")
        else:
            if dense:
                queries.append(Query(datapoint=point("dense", dense, None), neighbor_count=query.k))
                kinds.append("dense")
            if sparse:
                queries.append(
                    Query(datapoint=point("keyword", [], sparse), neighbor_count=query.k)
                )
                kinds.append("keyword")
        request = types.FindNeighborsRequest(
            index_endpoint=self.index_endpoint,
            deployed_index_id=self.deployed_index_id,
            queries=queries,
            return_full_datapoint=True,
        )
        response = self._find(request)
        lists: dict[str, list[Neighbor]] = {"dense": [], "keyword": [], "fused": []}
        for kind, result in zip(kinds, response.nearest_neighbors, strict=False):
            out = lists[kind]
            for rank, n in enumerate(result.neighbors[: query.k]):
                if kind == "keyword":
                    score = float(n.sparse_distance)
                    if score <= 0:
                        continue  # holds no query term
                elif kind == "fused":
                    score = 1.0 / (RRF_K + rank + 1)  # the service's order, as a score
                else:
                    score = float(n.distance)
                out.append(_neighbor(n, score, self.model_id))
        if kinds == ["fused"]:
            return HybridHits(lists["fused"], [])
        return HybridHits(lists["dense"], lists["keyword"])

    def query_sparse(self, tenant_id: str, keywords: Sequence[str]) -> SparseVector | None:
        """The query half of BM25 (IDF from the tenant's statistics), or None."""
        if self._stats is None or not keywords:
            return None
        stats: TermStatistics = self._stats.statistics(tenant_id)
        if stats.docs <= 0:
            return None
        vector = query_weights(keywords, stats)
        keep = [(d, v) for d, v in zip(vector.dimensions, vector.values, strict=True) if v > 0]
        if not keep:
            return None
        return SparseVector(tuple(d for d, _ in keep), tuple(v for _, v in keep))

    def _restricts(
        self,
        tenant_id: str,
        model_id: str,
        window: TimeWindow | None,
        types_: Sequence[MemoryType],
    ) -> tuple[list[Any], list[Any]]:
        from google.cloud.aiplatform_v1 import types

        Restriction = types.IndexDatapoint.Restriction
        Numeric = types.IndexDatapoint.NumericRestriction
        restricts = [
            Restriction(namespace=TENANT, allow_list=[tenant_id]),
            Restriction(namespace=MODEL, allow_list=[model_id]),
        ]
        if types_:
            restricts.append(Restriction(namespace=TYPE, allow_list=[t.value for t in types_]))
        numeric = []
        if window is not None:
            if window.start is not None:
                numeric.append(
                    Numeric(
                        namespace=CREATED,
                        value_int=int(window.start.timestamp()),
                        op=Numeric.Operator.GREATER_EQUAL,
                    )
                )
            if window.end is not None:
                numeric.append(
                    Numeric(
                        namespace=CREATED,
                        value_int=_ceil_seconds(window.end),
                        op=Numeric.Operator.LESS,
                    )
                )
        return restricts, numeric

    def _find(self, request: Any) -> Any:
        with unavailable_on_sdk_errors("Vector Search find_neighbors"):
            return self._retry.call(
                "find neighbors",
                lambda: self._match_client.find_neighbors(
                    request=request, retry=None, timeout=self._query_timeout
                ),
                deadline_s=self._query_timeout,
            )


def _sparse(vector: SparseVector) -> Any:
    from google.cloud.aiplatform_v1 import types

    return types.IndexDatapoint.SparseEmbedding(
        values=list(vector.values), dimensions=list(vector.dimensions)
    )


def _neighbor(n: Any, score: float, model_id: str) -> Neighbor:
    point = n.datapoint
    created = 0.0
    for r in point.numeric_restricts:
        if r.namespace == CREATED:
            created = float(r.value_int or r.value_float or r.value_double)
    models = [t for r in point.restricts if r.namespace == MODEL for t in r.allow_list]
    vector = tuple(point.feature_vector) if model_id in models and point.feature_vector else None
    return Neighbor(point.datapoint_id, score, created, vector)


def _datapoint(c: Chunk, words: SparseVector | None = None) -> Any:
    from google.cloud.aiplatform_v1 import types

    Restriction = types.IndexDatapoint.Restriction
    return types.IndexDatapoint(
        datapoint_id=c.chunk_id,
        feature_vector=[float(x) for x in c.embedding],
        sparse_embedding=_sparse(words) if words else None,
        restricts=[
            Restriction(namespace=TENANT, allow_list=[c.tenant_id]),
            Restriction(namespace=TYPE, allow_list=[c.memory_type.value]),
            Restriction(namespace=MODEL, allow_list=[c.embedding_model]),
        ],
        numeric_restricts=[
            types.IndexDatapoint.NumericRestriction(
                namespace=CREATED, value_int=int(c.created_at.timestamp())
            )
        ],
        crowding_tag=types.IndexDatapoint.CrowdingTag(crowding_attribute=c.note_id),
    )


def _ceil_seconds(moment: Any) -> int:
    ts = moment.timestamp()
    return int(ts) if ts == int(ts) else int(ts) + 1
