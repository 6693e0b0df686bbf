"""Notes as the API exposes them: tenant-scoped, with their index state.

The API is the only caller, and its request models (``api/schemas.py``) have already
checked and normalised every field against the limits in force: nothing is checked
twice here. The indexer checks what it reads on its own (``MalformedNote``), since
a note can be written behind the API's back."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from footnote.config import Settings
from footnote.domain import IndexStatus, MemoryType, Note, NoteChanges
from footnote.errors import NotFound
from footnote.ports import ChunkStore, NoteStore
from footnote.services.results import NoteListing, NoteView


def new_note_id() -> str:
    return secrets.token_urlsafe(15).replace("-", "a").replace("_", "b")


class NotesService:
    def __init__(
        self,
        settings: Settings,
        notes: NoteStore,
        chunks: ChunkStore,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._s = settings
        self._notes = notes
        self._chunks = chunks
        self._clock = clock

    def create(
        self,
        tenant_id: str,
        text: str,
        title: str | None,
        tags: Sequence[str] | None,
        memory_type: MemoryType | None,
    ) -> NoteView:
        now = self._clock()
        note = Note(
            id=new_note_id(),
            tenant_id=tenant_id,
            text=text,
            created_at=now,
            updated_at=now,
            title=title or "",
            tags=tuple(tags or ()),
            type=memory_type,
        )
        return NoteView(self._notes.create_note(note), IndexStatus.PENDING)

    def get(self, tenant_id: str, note_id: str) -> NoteView:
        note = self._notes.get_note(tenant_id, note_id)
        if note is None:
            raise NotFound("note not found")
        state = self._chunks.index_state(note_id)
        return NoteView(
            note,
            state.status if state else IndexStatus.PENDING,
            state.chunk_count if state else 0,
        )

    def list(self, tenant_id: str, limit: int, cursor: str | None) -> NoteListing:
        page = self._notes.list_notes(tenant_id, limit, cursor)
        return NoteListing(tuple(page.notes), page.cursor)

    def update(
        self,
        tenant_id: str,
        note_id: str,
        fields: dict[str, Any],
    ) -> NoteView:
        changes = NoteChanges(
            text=fields.get("text"),
            title=(fields["title"] or "") if "title" in fields else None,
            tags=tuple(fields["tags"] or ()) if "tags" in fields else None,
            type=fields.get("type"),
            clear_type="type" in fields and fields["type"] is None,
        )
        note = self._notes.update_note(tenant_id, note_id, changes, self._clock())
        if note is None:
            raise NotFound("note not found")
        state = self._chunks.index_state(note_id)
        return NoteView(note, state.status if state else IndexStatus.PENDING)

    def delete(self, tenant_id: str, note_id: str) -> None:
        if not self._notes.delete_note(tenant_id, note_id):
            raise NotFound("note not found")
