"""Firestore EmbeddingCache: ``embeddingCache``, one vector per (tenant, model, text)
key, with the owner's ``tenantId`` so an account deletion finds them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from footnote.adapters.firestore_common import EMBEDDINGS, FirestoreRepository

_BATCH = 400  # under Firestore's 500 writes per commit


class FirestoreEmbeddingCache(FirestoreRepository):
    """EmbeddingCache over Firestore, shared by every function and instance."""

    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]:
        refs = [self.client.collection(EMBEDDINGS).document(k) for k in keys]
        out: dict[str, list[float]] = {}
        for i in range(0, len(refs), 300):
            for snap in self.client.get_all(refs[i : i + 300]):
                if snap.exists:
                    out[snap.id] = list(snap.get("vector"))
        return out

    def put_many(self, items: Mapping[str, Sequence[float]], owner: str | None = None) -> None:
        entries = list(items.items())
        for i in range(0, len(entries), _BATCH):
            batch = self.client.batch()
            for key, vector in entries[i : i + _BATCH]:
                batch.set(
                    self.client.collection(EMBEDDINGS).document(key),
                    {"vector": self._vector(list(vector)), "tenantId": owner},
                )
            batch.commit()
