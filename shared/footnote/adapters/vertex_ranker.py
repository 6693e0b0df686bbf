"""The Vertex AI ranking API (Discovery Engine ``RankService.Rank``) as a rerank stage.

``RERANKER=vertex`` turns it on (off by default). It is called through the
``google-cloud-discoveryengine`` client (``discoveryengine_v1.RankServiceClient``,
REST transport) with the ranking config
``projects/P/locations/global/rankingConfigs/default_ranking_config`` and the
model from ``RANKING_MODEL``. Each retrieved chunk is a record (id = chunk id,
title = note title, content = chunk text); the answer orders the records by
relevance score. Chunks the service leaves out keep their retrieval order after
the ranked ones, so the stage only reorders. 429 and 5xx are retried within
``RANKING_TIMEOUT_MS``; a failure raises and ``ChatService`` keeps the retrieval
order (``reranker_skipped`` in ``meta.fallbacks``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from footnote.adapters.google_retry import (
    RetryPolicy,
    gapic_client,
    resource_name,
    unavailable_on_sdk_errors,
)
from footnote.config import Settings
from footnote.domain import ScoredChunk
from footnote.errors import BackendUnavailable

RANKING_LOCATION = "global"
MAX_RECORDS = 200  # records per request, the API's limit
MAX_CONTENT_CHARS = 4_000  # the model reads ~1,024 tokens of a record at most


class VertexRanker:
    name = "vertex"

    def __init__(
        self,
        client: Any,
        ranking_config: str,
        model: str,
        retry: RetryPolicy | None = None,
        timeout_s: float = 3.0,
    ) -> None:
        self._client = client
        self.ranking_config = ranking_config
        self.model = model
        self._retry = retry or RetryPolicy()
        self._timeout_s = timeout_s

    @classmethod
    def from_settings(cls, s: Settings, credentials: Any = None) -> VertexRanker:
        from google.cloud import discoveryengine_v1

        endpoint = s.ranking_api_endpoint
        client = gapic_client(discoveryengine_v1.RankServiceClient, endpoint, credentials)
        return cls(
            client,
            resource_name(s.ranking_config, s.project_id, RANKING_LOCATION, "rankingConfigs"),
            s.ranking_model,
            RetryPolicy.from_settings(s),
            s.ranking_timeout_ms / 1000,
        )

    def rerank(self, query: str, chunks: Sequence[ScoredChunk]) -> list[ScoredChunk]:
        from google.cloud.discoveryengine_v1 import types

        if len(chunks) < 2 or not query.strip():
            return list(chunks)
        head, tail = list(chunks[:MAX_RECORDS]), list(chunks[MAX_RECORDS:])
        by_id = {c.chunk.chunk_id: c for c in head}
        request = types.RankRequest(
            ranking_config=self.ranking_config,
            model=self.model,
            query=query.strip(),
            top_n=len(head),
            records=[
                types.RankingRecord(
                    id=c.chunk.chunk_id,
                    title=c.chunk.title,
                    content=c.chunk.text[:MAX_CONTENT_CHARS],
                )
                for c in head
            ],
            ignore_record_details_in_response=True,
        )
        with unavailable_on_sdk_errors(f"rank with {self.model}"):
            response = self._retry.call(
                f"rank {len(head)} record(s) with {self.model}",
                lambda: self._client.rank(request=request, retry=None, timeout=self._timeout_s),
                deadline_s=self._timeout_s,
            )
        ranked: list[ScoredChunk] = []
        for record in response.records:
            chunk = by_id.pop(record.id, None)
            if chunk is None:
                raise BackendUnavailable(f"ranking API returned unknown record {record.id!r}")
            breakdown = {**chunk.breakdown, "rerank": float(record.score)}
            ranked.append(dataclasses.replace(chunk, breakdown=breakdown))
        left = [c for c in head if c.chunk.chunk_id in by_id]
        return ranked + left + tail
