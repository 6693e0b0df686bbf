"""The narrow interfaces behind which every external dependency sits.

Each port has one production and one offline implementation in ``adapters/``,
and one contract suite in ``tests/contract`` that both must pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from footnote.domain import (
    Chunk,
    Draft,
    Hit,
    IndexState,
    MemoryType,
    Note,
    QueryAnalysis,
    ScoredChunk,
    Source,
    TimeWindow,
)

Vector = Sequence[float]


@dataclass(frozen=True)
class NotePage:
    notes: list[Note]
    cursor: str | None


@dataclass(frozen=True)
class NoteChanges:
    text: str | None = None
    title: str | None = None
    tags: tuple[str, ...] | None = None
    type: MemoryType | None = None
    clear_type: bool = False


@runtime_checkable
class NoteStore(Protocol):
    """Notes as users see them. Every call but ``read_note`` is tenant-scoped."""

    def create_note(self, note: Note) -> Note: ...

    def get_note(self, tenant_id: str, note_id: str) -> Note | None: ...

    def update_note(
        self, tenant_id: str, note_id: str, changes: NoteChanges, now: datetime
    ) -> Note | None: ...

    def delete_note(self, tenant_id: str, note_id: str) -> bool: ...

    def list_notes(self, tenant_id: str, limit: int, cursor: str | None) -> NotePage: ...

    def read_note(self, note_id: str) -> Note | None:
        """The current note whatever its tenant: for the indexer, never for the API."""
        ...

    def note_ids(self, tenant_id: str | None, after: str | None, limit: int) -> list[str]:
        """Note ids in id order, for resumable re-index pages."""
        ...


@runtime_checkable
class ChunkStore(Protocol):
    """The index side: chunks with their vectors, and each note's index state."""

    def index_state(self, note_id: str) -> IndexState | None: ...

    def replace_chunks(
        self, note: Note, chunks: Sequence[Chunk], state: IndexState
    ) -> list[str] | None:
        """Atomically swap a note's chunks for ``chunks`` and record ``state``.

        Commits only while the stored note is still the version given (same
        ``updated_at``); returns the ids of chunks removed, or None when the note
        changed or vanished meanwhile (a later event will index it).
        """
        ...

    def remove_chunks(self, note_id: str, state: IndexState) -> list[str] | None:
        """Remove a note's chunks if the note no longer exists; None if it does."""
        ...

    def set_index_state(self, state: IndexState) -> None: ...

    def tenant_chunks(self, tenant_id: str) -> list[Chunk]: ...

    def tenant_version(self, tenant_id: str) -> int:
        """A counter that changes whenever the tenant's chunks change."""
        ...

    def unindexed_note_ids(self, after: str | None, limit: int) -> list[str]:
        """Notes whose index state is pending or failed, in id order."""
        ...


@dataclass(frozen=True)
class Turn:
    message_id: str
    conversation_id: str
    tenant_id: str
    role: str
    text: str
    created_at: datetime
    citations: tuple[Mapping[str, Any], ...] = ()
    meta: Mapping[str, Any] | None = None


@runtime_checkable
class ConversationStore(Protocol):
    def append_turns(self, turns: Sequence[Turn]) -> None: ...

    def conversation_turns(self, tenant_id: str, conversation_id: str) -> list[Turn] | None: ...

    def turn(self, tenant_id: str, message_id: str) -> Turn | None: ...


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dimension: int

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


@runtime_checkable
class EmbeddingCache(Protocol):
    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]: ...

    def put_many(self, items: Mapping[str, Sequence[float]]) -> None: ...


@dataclass(frozen=True)
class VectorQuery:
    tenant_id: str
    vector: Vector
    k: int
    window: TimeWindow | None = None
    types: tuple[MemoryType, ...] = ()


@runtime_checkable
class VectorIndex(Protocol):
    name: str

    def upsert(self, chunks: Sequence[Chunk]) -> None: ...

    def remove(self, tenant_id: str, chunk_ids: Sequence[str]) -> None: ...

    def search(self, query: VectorQuery) -> list[Hit]: ...


@runtime_checkable
class Generator(Protocol):
    model: str

    def generate(
        self, question: str, sources: Sequence[Source], analysis: QueryAnalysis, strict: bool
    ) -> Draft: ...

    def stream(
        self, question: str, sources: Sequence[Source], analysis: QueryAnalysis
    ) -> Iterator[str]: ...


@runtime_checkable
class Reranker(Protocol):
    """An optional stage between retrieval and generation: reorder the retrieved chunks.

    Returns the same chunks (a permutation, none added or dropped), best first.
    A failure raises; the chat service then keeps the retrieval order.
    """

    name: str

    def rerank(self, query: str, chunks: Sequence[ScoredChunk]) -> list[ScoredChunk]: ...


@runtime_checkable
class Classifier(Protocol):
    def classify(self, text: str) -> MemoryType: ...


@runtime_checkable
class TokenVerifier(Protocol):
    def verify(self, token: str) -> str:
        """The caller's user id; raises Unauthenticated for any bad token."""
        ...


@runtime_checkable
class ReindexQueue(Protocol):
    def publish(self, message: Mapping[str, Any]) -> None: ...
