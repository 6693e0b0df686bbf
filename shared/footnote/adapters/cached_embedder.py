"""Content-hash cache in front of any embedder: identical text is embedded once."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence

from footnote.ports import Embedder, EmbeddingCache
from footnote.text import sha256


def cache_key(model_id: str, text: str) -> str:
    return sha256(model_id, text)


class CachedEmbedder:
    """Documents go through the shared cache; queries through a small in-process LRU."""

    def __init__(self, inner: Embedder, cache: EmbeddingCache, query_cache_size: int = 512):
        self.inner = inner
        self.model_id = inner.model_id
        self.dimension = inner.dimension
        self._cache = cache
        self._queries: OrderedDict[str, list[float]] = OrderedDict()
        self._query_cache_size = query_cache_size
        self.misses = 0

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [cache_key(self.model_id, t) for t in texts]
        found = self._cache.get_many(list(dict.fromkeys(keys)))
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        if todo:
            self.misses += len(todo)
            fresh = dict(
                zip(
                    (cache_key(self.model_id, t) for t in todo),
                    self.inner.embed_documents(todo),
                    strict=True,
                )
            )
            self._cache.put_many(fresh)
            found.update(fresh)
        return [list(found[k]) for k in keys]

    def embed_query(self, text: str) -> list[float]:
        key = cache_key(self.model_id, "query\x1f" + text)
        hit = self._queries.get(key)
        if hit is not None:
            self._queries.move_to_end(key)
            return hit
        vector = self.inner.embed_query(text)
        self._queries[key] = vector
        if len(self._queries) > self._query_cache_size:
            self._queries.popitem(last=False)
        return vector


class MemoryEmbeddingCache:
    def __init__(self) -> None:
        self._data: dict[str, list[float]] = {}

    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]:
        return {k: self._data[k] for k in keys if k in self._data}

    def put_many(self, items: Mapping[str, Sequence[float]]) -> None:
        self._data.update({k: list(v) for k, v in items.items()})
