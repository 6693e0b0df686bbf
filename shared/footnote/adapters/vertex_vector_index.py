"""Vertex AI Vector Search, through the ``aiplatform_v1`` clients, with stream updates.

Indexing a note upserts one datapoint per chunk (``IndexServiceClient.upsert_datapoints``);
deleting it removes them (``remove_datapoints``). Each datapoint carries
categorical restricts — ``tenant`` (always), ``type`` (memory type) and ``model``
(the embedding model id, so an index never answers with vectors of another
model) — and a numeric restrict ``created`` (epoch seconds) for time windows.
Queries go to the deployed index with ``MatchServiceClient.find_neighbors``,
always restricted to the tenant and the query's model.

The index must be created for stream updates, with DOT_PRODUCT_DISTANCE over
unit-length vectors (``UNIT_L2_NORM``): the neighbour ``distance`` is then the
cosine similarity, higher is closer. Its dimension is the embedding dimension.

Calls retry 429/5xx with backoff and jitter; a query that still fails raises,
and the retriever falls back to exact search over the tenant's chunks
(``vector_index_memory`` in ``meta.retrieval.fallbacks`` and in the logs).
Hybrid (dense + sparse) search is not used: the retriever already fuses BM25
over the tenant's chunks with the dense hits (RRF), which is where the
measured gain comes from.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from footnote.adapters.google_retry import (
    RetryPolicy,
    credentials_for,
    gapic_client_options,
    gapic_transport,
    is_local,
    resource_name,
)
from footnote.config import Settings
from footnote.domain import Chunk, Hit
from footnote.ports import VectorQuery

TENANT = "tenant"
TYPE = "type"
MODEL = "model"
CREATED = "created"
UPSERT_BATCH = 100  # datapoints per upsert request
REMOVE_BATCH = 1000  # ids per remove request


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
    ) -> None:
        self._index_client = index_client
        self._match_client = match_client
        self.index = index
        self.index_endpoint = index_endpoint
        self.deployed_index_id = deployed_index_id
        self.model_id = model_id
        self._retry = retry or RetryPolicy()
        self._query_timeout = query_timeout_s
        self._update_timeout = update_timeout_s

    @classmethod
    def from_settings(cls, s: Settings, credentials: Any = None) -> VertexVectorIndex:
        from google.cloud import aiplatform_v1

        regional = s.vector_search_api_endpoint or f"{s.location}-aiplatform.googleapis.com"
        # A public endpoint answers queries on its own domain; otherwise the regional API.
        # An explicit local override (a wire fake) takes both.
        match_endpoint = regional
        if s.vertex_public_endpoint_domain and not is_local(regional):
            match_endpoint = s.vertex_public_endpoint_domain
        index_client = aiplatform_v1.IndexServiceClient(
            credentials=credentials_for(regional, credentials),
            transport=gapic_transport(regional),
            client_options=gapic_client_options(regional),
        )
        match_client = aiplatform_v1.MatchServiceClient(
            credentials=credentials_for(match_endpoint, credentials),
            transport=gapic_transport(match_endpoint),
            client_options=gapic_client_options(match_endpoint),
        )
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
        for i in range(0, len(chunks), UPSERT_BATCH):
            batch = chunks[i : i + UPSERT_BATCH]
            request = types.UpsertDatapointsRequest(
                index=self.index, datapoints=[_datapoint(c) for c in batch]
            )
            self._retry.call(
                f"upsert {len(batch)} datapoint(s)",
                functools.partial(
                    self._index_client.upsert_datapoints,
                    request=request,
                    retry=None,
                    timeout=self._update_timeout,
                ),
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
            self._retry.call(
                f"remove {len(request.datapoint_ids)} datapoint(s)",
                functools.partial(
                    self._index_client.remove_datapoints,
                    request=request,
                    retry=None,
                    timeout=self._update_timeout,
                ),
            )

    # -- queries -------------------------------------------------------------------
    def search(self, query: VectorQuery) -> list[Hit]:
        from google.cloud.aiplatform_v1 import types

        if not query.tenant_id:
            raise ValueError("a vector query needs a tenant")
        Restriction = types.IndexDatapoint.Restriction
        Numeric = types.IndexDatapoint.NumericRestriction
        restricts = [
            Restriction(namespace=TENANT, allow_list=[query.tenant_id]),
            Restriction(namespace=MODEL, allow_list=[self.model_id]),
        ]
        if query.types:
            restricts.append(Restriction(namespace=TYPE, allow_list=[t.value for t in query.types]))
        numeric = []
        if query.window is not None:
            if query.window.start is not None:
                numeric.append(
                    Numeric(
                        namespace=CREATED,
                        value_int=int(query.window.start.timestamp()),
                        op=Numeric.Operator.GREATER_EQUAL,
                    )
                )
            if query.window.end is not None:
                numeric.append(
                    Numeric(
                        namespace=CREATED,
                        value_int=_ceil_seconds(query.window.end),
                        op=Numeric.Operator.LESS,
                    )
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
        response = self._retry.call(
            "find neighbors",
            lambda: self._match_client.find_neighbors(
                request=request, retry=None, timeout=self._query_timeout
            ),
            deadline_s=self._query_timeout,
        )
        hits: list[Hit] = []
        for result in response.nearest_neighbors:
            for neighbor in result.neighbors:
                hits.append(Hit(neighbor.datapoint.datapoint_id, float(neighbor.distance)))
        return hits[: query.k]


def _datapoint(c: Chunk) -> Any:
    from google.cloud.aiplatform_v1 import types

    Restriction = types.IndexDatapoint.Restriction
    return types.IndexDatapoint(
        datapoint_id=c.chunk_id,
        feature_vector=[float(x) for x in c.embedding],
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
