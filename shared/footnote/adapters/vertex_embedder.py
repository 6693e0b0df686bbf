"""Embeddings from Vertex AI through google-genai (``gemini-embedding-001`` by default).

Chunks are embedded as RETRIEVAL_DOCUMENT, queries as RETRIEVAL_QUERY, at the
configured output dimensionality (768 unless set). Requests respect the API's
limits: ``gemini-embedding-001`` takes one text per request (sent a few at a
time in parallel); older text-embedding models take up to 250 texts and about
20,000 tokens per request. 429 and 5xx are retried with backoff and jitter
(``google_retry``); chunks (RETRIEVAL_DOCUMENT) wait out a RESOURCE_EXHAUSTED
quota for up to ``GOOGLE_QUOTA_WAIT_S``, then raise ``QuotaExhausted``. The content-hash cache sits in front (``CachedEmbedder``,
added by the wiring), and every vector is stored with ``model_id``, which names
backend, model and dimension.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from footnote.adapters.embedding_base import BatchEmbedder, Task, unit
from footnote.adapters.google_retry import RetryPolicy, credentials_for, unavailable_on_sdk_errors
from footnote.config import Settings
from footnote.errors import BackendUnavailable

SINGLE_TEXT_MODELS = frozenset({"gemini-embedding-001"})
MAX_TEXTS_PER_REQUEST = 250
# ~20,000 tokens per request; 3 characters a token keeps us clear of it.
MAX_CHARS_PER_REQUEST = 60_000


def genai_client(
    project: str, location: str, endpoint: str, timeout_ms: int, credentials: Any = None
) -> Any:
    """A google-genai client on Vertex AI; ``endpoint`` overrides the base URL."""
    from google import genai
    from google.genai import types

    options = types.HttpOptions(timeout=timeout_ms, base_url=endpoint or None)
    return genai.Client(
        vertexai=True,
        project=project,
        location=location,
        credentials=credentials_for(endpoint, credentials),
        http_options=options,
    )


class VertexEmbedder(BatchEmbedder):
    def __init__(
        self,
        client: Any,
        model: str,
        dimension: int,
        model_id: str,
        retry: RetryPolicy | None = None,
        batch_size: int = 32,
        parallelism: int = 4,
    ) -> None:
        self._client = client
        self.model = model
        self.model_id = model_id
        self.dimension = dimension
        self._retry = retry or RetryPolicy()
        self._single = model in SINGLE_TEXT_MODELS
        self.batch_size = 1 if self._single else min(batch_size, MAX_TEXTS_PER_REQUEST)
        self._parallelism = max(1, parallelism)

    @classmethod
    def from_settings(cls, s: Settings, credentials: Any = None) -> VertexEmbedder:
        client = genai_client(
            s.project_id, s.location, s.vertex_api_endpoint, s.embedding_timeout_ms, credentials
        )
        return cls(
            client,
            s.resolved_embedding_model,
            s.resolved_embedding_dimension,
            s.embedding_model_id,
            RetryPolicy.from_settings(s),
            s.embedding_batch_size,
        )

    def embed_query(self, text: str) -> list[float]:
        # A question cannot wait: its embedding fails fast, as the port's error
        # (errors.UPSTREAM_ERRORS), and retrieval falls back to keywords.
        with unavailable_on_sdk_errors(f"embedding a question with {self.model}"):
            return super().embed_query(text)

    # BatchEmbedder splits by batch_size; we also split by size and, for
    # one-text models, send the requests concurrently.
    def _embed(self, texts: Sequence[str], task: Task) -> list[list[float]]:
        batches = list(self._requests(texts))
        if len(batches) <= 1 or self._parallelism == 1:
            return [v for b in batches for v in self._checked(b, task)]
        with ThreadPoolExecutor(min(self._parallelism, len(batches))) as pool:
            results = list(pool.map(lambda b: self._checked(b, task), batches))
        return [v for r in results for v in r]

    def _requests(self, texts: Sequence[str]) -> list[list[str]]:
        out: list[list[str]] = []
        current: list[str] = []
        chars = 0
        for text in texts:
            if current and (
                len(current) >= self.batch_size or chars + len(text) > MAX_CHARS_PER_REQUEST
            ):
                out.append(current)
                current, chars = [], 0
            current.append(text)
            chars += len(text)
        if current:
            out.append(current)
        return out

    def _checked(self, batch: list[str], task: Task) -> list[list[float]]:
        vectors = self._embed_batch(batch, task)
        for vector in vectors:
            if len(vector) != self.dimension:
                raise BackendUnavailable(
                    f"embedder returned dimension {len(vector)}, expected {self.dimension}"
                )
        return [unit(v) for v in vectors]

    def _embed_batch(self, texts: Sequence[str], task: Task) -> list[list[float]]:
        from google.genai import types

        # The API rejects empty content; an empty chunk still needs a vector.
        contents = [t if t.strip() else " " for t in texts]
        config = types.EmbedContentConfig(
            task_type=task.value,
            output_dimensionality=self.dimension,
            auto_truncate=True,
        )
        what = f"embed {len(contents)} text(s) with {self.model}"
        with unavailable_on_sdk_errors(what):  # the port's error, for chunks as for questions
            response = self._retry.call(
                what,
                lambda: self._client.models.embed_content(
                    model=self.model, contents=contents, config=config
                ),
                # chunks wait out a quota (the indexer can come back later); a question
                # cannot, so its embedding fails fast and retrieval falls back to keywords
                wait_out_quota=task is Task.DOCUMENT,
            )
        embeddings = response.embeddings or []
        vectors = [list(e.values or []) for e in embeddings]
        if len(vectors) != len(contents):
            raise BackendUnavailable(
                f"Vertex AI returned {len(vectors)} embeddings for {len(contents)} texts"
            )
        return vectors
