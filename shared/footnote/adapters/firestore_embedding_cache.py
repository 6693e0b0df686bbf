"""Firestore EmbeddingCache: ``embeddingCache``, one vector per (tenant, model, text)
key, with the owner's ``tenantId`` so an account deletion finds them.

A vector is stored as its doubles packed in one bytes value (little-endian): the
client encodes a list or ``Vector`` value by value in Python, 2.1 ms for 384 of them
(holding the GIL, twice per chunk an import writes with the chunk's own vector), bytes
in 0.01 ms. Nothing queries this collection by vector; the chunk documents keep a
``Vector`` for Firestore's vector search. Exact: doubles in, the same doubles out.
A vector stored as a list by an earlier version is still read."""

from __future__ import annotations

import array
import sys
from collections.abc import Mapping, Sequence
from typing import Any

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
                    out[snap.id] = _unpacked(snap.get("vector"))
        return out

    def put_many(self, items: Mapping[str, Sequence[float]], owner: str | None = None) -> None:
        entries = list(items.items())
        for i in range(0, len(entries), _BATCH):
            batch = self.client.batch()
            for key, vector in entries[i : i + _BATCH]:
                batch.set(
                    self.client.collection(EMBEDDINGS).document(key),
                    {"vector": _packed(vector), "tenantId": owner},
                )
            batch.commit()


def _packed(vector: Sequence[float]) -> bytes:
    doubles = array.array("d", vector)
    if sys.byteorder != "little":
        doubles.byteswap()
    return doubles.tobytes()


def _unpacked(stored: Any) -> list[float]:
    if not isinstance(stored, bytes):
        return list(stored)  # a list or Vector written before vectors were packed
    doubles = array.array("d")
    doubles.frombytes(stored)
    if sys.byteorder != "little":
        doubles.byteswap()
    return doubles.tolist()
