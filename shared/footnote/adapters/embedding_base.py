"""Shared shape of every embedder: subclasses embed one batch, the base does the rest."""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import Enum

from footnote.errors import BackendUnavailable


class Task(str, Enum):
    DOCUMENT = "RETRIEVAL_DOCUMENT"
    QUERY = "RETRIEVAL_QUERY"


class BatchEmbedder:
    """Base class: splits work into batches, checks dimensions, L2-normalises.

    Subclasses set ``model_id``, ``dimension`` and ``batch_size`` and implement
    ``_embed_batch``. Vectors come back unit-length, so a dot product is the
    cosine similarity everywhere downstream.
    """

    model_id: str = ""
    dimension: int = 0
    batch_size: int = 32

    def _embed_batch(self, texts: Sequence[str], task: Task) -> list[list[float]]:
        raise NotImplementedError

    def embed_documents(self, texts: Sequence[str], owner: str | None = None) -> list[list[float]]:
        return self._embed(texts, Task.DOCUMENT)

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text], Task.QUERY)[0]

    def _embed(self, texts: Sequence[str], task: Task) -> list[list[float]]:
        out: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            batch = texts[i : i + self.batch_size]
            vectors = self._embed_batch(batch, task)
            if len(vectors) != len(batch):
                raise BackendUnavailable(
                    f"embedder returned {len(vectors)} vectors for {len(batch)} texts"
                )
            for vector in vectors:
                if len(vector) != self.dimension:
                    raise BackendUnavailable(
                        f"embedder returned dimension {len(vector)}, expected {self.dimension}"
                    )
                out.append(unit(vector))
        return out


def unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [float(x) / norm for x in vector] if norm > 0 else [0.0 for _ in vector]
