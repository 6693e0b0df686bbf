"""Builders for domain objects in tests."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from footnote.adapters.hash_embedder import HashEmbedder
from footnote.domain import Chunk, MemoryType, Note, Source
from footnote.grounding import ClaimChecks
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


def all_conversation_pages(
    fetch: Callable[[str | None], dict[str, Any]], limit: int, most: int = 50
) -> list[dict[str, Any]]:
    """Every conversation of ``GET /conversations``, page after page; ``fetch(cursor)``
    returns one page's body. Each page holds at most ``limit`` and says whether more
    follow exactly when it gives a cursor."""
    seen: list[dict[str, Any]] = []
    cursor = None
    for _ in range(most):
        body = fetch(cursor)
        assert len(body["conversations"]) <= limit
        seen += body["conversations"]
        assert body["hasMore"] is (body["cursor"] is not None)
        cursor = body["cursor"]
        if cursor is None:
            return seen
    raise AssertionError("the pages never ended")


def checks(language: str = "en") -> ClaimChecks:
    """An answer's grounding by the offline grounder on what must agree and the terms
    (no embedder): what ``/chat`` falls back to."""
    from footnote.grounding import LocalGrounder

    return ClaimChecks(LocalGrounder(), language)
