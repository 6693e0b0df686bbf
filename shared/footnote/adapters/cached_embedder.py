"""Content-hash cache in front of any embedder: identical text is embedded once.

Entries are per tenant: the key hashes the owner with the model and the text, and
the entry records its owner, so deleting an account finds every vector of its text
(the text of every version of every note it ever indexed). Texts without an owner
(lines the quote answer ranks at question time) are cached only in
this process, in a bounded LRU, never in the shared store.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence

from footnote.ports import Embedder, EmbeddingCache
from footnote.text import sha256


def cache_key(model_id: str, text: str, owner: str | None = None) -> str:
    return sha256(model_id, text) if owner is None else sha256(model_id, "owner", owner, text)


class _Lru:
    def __init__(self, size: int) -> None:
        self._data: OrderedDict[str, list[float]] = OrderedDict()
        self._size = size

    def get(self, key: str) -> list[float] | None:
        hit = self._data.get(key)
        if hit is not None:
            self._data.move_to_end(key)
        return hit

    def put(self, key: str, vector: list[float]) -> None:
        self._data[key] = vector
        if len(self._data) > self._size:
            self._data.popitem(last=False)


class CachedEmbedder:
    """Owned documents go through the shared cache; queries and unowned documents
    through small in-process LRUs.

    ``per_owner=False`` keys the shared cache by content alone and stores unowned
    texts there too: the benchmarks' disk cache of public corpora, never a deployment.
    """

    def __init__(
        self,
        inner: Embedder,
        cache: EmbeddingCache,
        query_cache_size: int = 512,
        per_owner: bool = True,
    ):
        self.inner = inner
        self.model_id = inner.model_id
        self.dimension = inner.dimension
        self._cache = cache
        self._per_owner = per_owner
        self._queries = _Lru(query_cache_size)
        self._unowned = _Lru(4096)
        self.misses = 0

    def embed_documents(self, texts: Sequence[str], owner: str | None = None) -> list[list[float]]:
        if self._per_owner and owner is None:
            return self._embed_unowned(texts)
        key_owner = owner if self._per_owner else None
        keys = [cache_key(self.model_id, t, key_owner) for t in texts]
        found = self._cache.get_many(list(dict.fromkeys(keys)))
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        if todo:
            self.misses += len(todo)
            fresh = dict(
                zip(
                    (cache_key(self.model_id, t, key_owner) for t in todo),
                    self.inner.embed_documents(todo),
                    strict=True,
                )
            )
            self._cache.put_many(fresh, key_owner)
            found.update(fresh)
        return [list(found[k]) for k in keys]

    def _embed_unowned(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [cache_key(self.model_id, t) for t in texts]
        found = {k: v for k in dict.fromkeys(keys) if (v := self._unowned.get(k)) is not None}
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        if todo:
            self.misses += len(todo)
            for text, vector in zip(todo, self.inner.embed_documents(todo), strict=True):
                key = cache_key(self.model_id, text)
                self._unowned.put(key, vector)
                found[key] = vector
        return [list(found[k]) for k in keys]

    def embed_query(self, text: str) -> list[float]:
        key = cache_key(self.model_id, "query\x1f" + text)
        hit = self._queries.get(key)
        if hit is not None:
            return hit
        vector = self.inner.embed_query(text)
        self._queries.put(key, vector)
        return vector


class MemoryEmbeddingCache:
    def __init__(self) -> None:
        self._data: dict[str, list[float]] = {}
        self.owners: dict[str, str | None] = {}

    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]:
        return {k: self._data[k] for k in keys if k in self._data}

    def put_many(self, items: Mapping[str, Sequence[float]], owner: str | None = None) -> None:
        self._data.update({k: list(v) for k, v in items.items()})
        self.owners.update(dict.fromkeys(items, owner))

    def purge_owner(self, owner: str, limit: int) -> int:
        """Forget up to ``limit`` of ``owner``'s entries; how many went."""
        mine = [k for k, o in self.owners.items() if o == owner][:limit]
        for key in mine:
            self._data.pop(key, None)
            self.owners.pop(key, None)
        return len(mine)

    def __len__(self) -> int:
        return len(self._data)
