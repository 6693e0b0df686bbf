"""A disk-backed ``EmbeddingCache``: vectors in one SQLite file, float32 blobs.

Keys come from ``cached_embedder.cache_key`` (a hash of model id and text), so
vectors of different models never collide and an edited text is a new key.
Used by the evaluation harness so a repeated benchmark run embeds nothing.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

_BATCH = 500  # below SQLite's bound-parameter limit


class SqliteEmbeddingCache:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
        )
        self._db.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        with self._lock:
            for i in range(0, len(keys), _BATCH):
                batch = list(keys[i : i + _BATCH])
                marks = ",".join("?" * len(batch))
                rows = self._db.execute(
                    f"SELECT key, vector FROM embeddings WHERE key IN ({marks})", batch
                )
                for key, blob in rows:
                    found[key] = np.frombuffer(blob, dtype=np.float32).tolist()
        return found

    def put_many(self, items: Mapping[str, Sequence[float]], owner: str | None = None) -> None:
        # The benchmarks' cache of public corpora: kept by content alone.
        rows = [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?)", rows)
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()
