"""Builders for domain objects in tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from footnote.adapters.hash_embedder import HashEmbedder
from footnote.domain import Chunk, MemoryType, Note, Source
from footnote.text import terms

NOW = datetime(2026, 11, 22, 15, 0, tzinfo=UTC)
_EMBEDDER = HashEmbedder()


def note(
    note_id: str = "n1",
    text: str = "We chose Firestore.",
    tenant: str = "alice",
    days_ago: float = 0,
    **kw: object,
) -> Note:
    moment = NOW - timedelta(days=days_ago)
    return Note(id=note_id, tenant_id=tenant, text=text, created_at=moment, updated_at=moment, **kw)  # type: ignore[arg-type]


def chunk(
    chunk_id: str = "n1_000",
    text: str = "We chose Firestore.",
    tenant: str = "alice",
    days_ago: float = 0,
    memory_type: MemoryType = MemoryType.NOTE,
) -> Chunk:
    note_id = chunk_id.rsplit("_", 1)[0]
    return Chunk(
        chunk_id=chunk_id,
        note_id=note_id,
        tenant_id=tenant,
        position=int(chunk_id.rsplit("_", 1)[1]),
        text=text,
        terms=tuple(terms(text)),
        memory_type=memory_type,
        created_at=NOW - timedelta(days=days_ago),
        embedding=tuple(_EMBEDDER.embed_documents([text])[0]),
        embedding_model=_EMBEDDER.model_id,
    )


def source(cid: str, text: str, chunk_id: str | None = None) -> Source:
    return Source(cid, chunk(chunk_id or f"{cid.lower()}_000", text), 1.0)
