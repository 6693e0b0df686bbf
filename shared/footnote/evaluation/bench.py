"""One in-process Footnote built by the project's own wiring, for benchmarks.

``NOTE_STORE=memory`` gives the in-memory store, jobs and vector index; the only
substitution is a disk embedding cache, so documents are embedded once per
model and text across runs. Documents become notes of one tenant and go
through ``IndexingService.index_note`` exactly as a saved note would.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from footnote.config import Settings
from footnote.domain import Note
from footnote.evaluation.data import Document
from footnote.ingest.pipeline import prepare
from footnote.text import normalize
from footnote.wiring import Container, lazy

if TYPE_CHECKING:
    from footnote.evaluation.config import EvaluationConfig
    from footnote.ports import EmbeddingCache

DEFAULT_CACHE_DIR = Path.home() / ".cache" / "footnote" / "embeddings"
# Benchmark notes all carry one date, so no time window or recency can favour any.
NOTES_CREATED = datetime(2025, 1, 1, tzinfo=UTC)
QUESTIONS_ASKED = datetime(2026, 1, 1, tzinfo=UTC)
_EMBED_BATCH = 256

Progress = Callable[[str], None]


def stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def eval_settings(**overrides: Any) -> Settings:
    """The environment's settings (EMBEDDER, CHUNK_SIZE, …) with an in-memory store."""
    return Settings(note_store="memory", reindex_queue="inline", **overrides)


class BenchContainer(Container):
    """The production wiring, with the embedding cache on disk instead of in memory,
    kept by content alone (public corpora: no owner to delete them for), and the
    variant an evaluation compares (``evaluation``; None: what ships)."""

    cache_per_owner = False

    def __init__(
        self,
        settings: Settings,
        cache_dir: Path | None,
        evaluation: EvaluationConfig | None = None,
        **prebuilt: Any,
    ) -> None:
        if evaluation is not None:
            prebuilt.setdefault("ranking", evaluation.ranking)
        super().__init__(settings, **prebuilt)
        self._cache_dir = cache_dir

    @lazy
    def embedding_cache(self) -> EmbeddingCache:
        if self._cache_dir is None:
            from footnote.adapters.cached_embedder import MemoryEmbeddingCache

            return MemoryEmbeddingCache()
        from footnote.adapters.disk_embedding_cache import SqliteEmbeddingCache

        return SqliteEmbeddingCache(self._cache_dir / "embeddings.sqlite")


def note_id(tenant_id: str, doc_id: str) -> str:
    # Note ids are global in a store; two tenants may hold the same document.
    return f"{tenant_id}~{doc_id}"


def doc_id(note_id: str) -> str:
    return note_id.split("~", 1)[1]


def note_for(doc: Document, tenant_id: str) -> Note:
    # An abstract with no body is still findable by its title.
    text = normalize(doc.text) or normalize(doc.title) or doc.doc_id
    return Note(
        id=note_id(tenant_id, doc.doc_id),
        tenant_id=tenant_id,
        text=text,
        created_at=NOTES_CREATED,
        updated_at=NOTES_CREATED,
        title=normalize(doc.title),
    )


def index_documents(
    app: Container,
    tenant_id: str,
    docs: Sequence[Document],
    progress: Progress = stderr_progress,
) -> None:
    """Store each document as a note and index it with the indexing service.

    Chunk texts are embedded first in large batches (through the same cached
    embedder the indexer uses) because per-note calls of one or two chunks
    waste most of a CPU model's time; indexing then finds every vector cached.
    """
    index_notes(app, [note_for(d, tenant_id) for d in docs], progress, tenant_id)


def index_notes(
    app: Container, notes: Sequence[Note], progress: Progress = stderr_progress, label: str = ""
) -> None:
    """Index ready-made notes (their own dates and titles) as ``index_documents`` does."""
    s = app.settings
    texts = [
        draft.text
        for note in notes
        for draft in prepare(note, app.embedder.model_id, s.chunk_size, s.chunk_overlap).drafts
    ]
    unique = list(dict.fromkeys(texts))
    for i in range(0, len(unique), _EMBED_BATCH):
        app.embedder.embed_documents(unique[i : i + _EMBED_BATCH])
        if i and i % (_EMBED_BATCH * 8) == 0:
            progress(f"  embedded {i}/{len(unique)} chunks")
    for note in notes:
        app.store.create_note(note)
        app.indexing.index_note(note.id)
    progress(f"  indexed {len(notes)} notes as {len(texts)} chunks ({label})")
