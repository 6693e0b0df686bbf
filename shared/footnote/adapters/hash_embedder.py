"""Deterministic hashed bag-of-terms embedder: instant, offline, for tests and smoke runs.

Texts sharing stemmed terms get similar vectors, so retrieval behaves
sensibly without a model; it is not meant to be good.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from footnote.adapters.embedding_base import BatchEmbedder, Task
from footnote.text import terms


class HashEmbedder(BatchEmbedder):
    def __init__(self, model_id: str = "hash:hash-v1:256", dimension: int = 256) -> None:
        self.model_id = model_id
        self.dimension = dimension
        self.batch_size = 256

    def _embed_batch(self, texts: Sequence[str], task: Task) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def _one(self, text: str) -> list[float]:
        vector = [0.0] * self.dimension
        for term in terms(text) or ["\0empty"]:
            digest = hashlib.blake2b(term.encode(), digest_size=8).digest()
            slot = int.from_bytes(digest[:4], "little") % self.dimension
            vector[slot] += 1.0 if digest[4] & 1 else -1.0
        return vector
