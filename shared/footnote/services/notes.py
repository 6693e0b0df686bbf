"""Notes as the API exposes them: validated, tenant-scoped, with their index state."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from footnote.config import Settings
from footnote.domain import IndexStatus, MemoryType, Note, NoteChanges
from footnote.errors import InvalidRequest, NotFound, PayloadTooLarge
from footnote.ports import ChunkStore, NoteStore
from footnote.text import normalize


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
        tags: list[str] | None,
        memory_type: MemoryType | None,
    ) -> dict[str, Any]:
        now = self._clock()
        note = Note(
            id=new_note_id(),
            tenant_id=tenant_id,
            text=self._check_text(text),
            created_at=now,
            updated_at=now,
            title=self._check_title(title or ""),
            tags=self._check_tags(tags or []),
            type=memory_type,
        )
        return self._json(self._notes.create_note(note), IndexStatus.PENDING.value)

    def get(self, tenant_id: str, note_id: str) -> dict[str, Any]:
        note = self._notes.get_note(tenant_id, note_id)
        if note is None:
            raise NotFound("note not found")
        state = self._chunks.index_state(note_id)
        return self._json(
            note,
            state.status.value if state else IndexStatus.PENDING.value,
            state.chunk_count if state else 0,
        )

    def list(self, tenant_id: str, limit: int, cursor: str | None) -> dict[str, Any]:
        if not 1 <= limit <= self._s.page_size_max:
            raise InvalidRequest(f"limit must be between 1 and {self._s.page_size_max}")
        page = self._notes.list_notes(tenant_id, limit, cursor)
        return {
            "notes": [self._json(n) for n in page.notes],
            "cursor": page.cursor,
            "hasMore": page.cursor is not None,
        }

    def update(
        self,
        tenant_id: str,
        note_id: str,
        fields: dict[str, Any],
    ) -> dict[str, Any]:
        changes = NoteChanges(
            text=self._check_text(fields["text"]) if "text" in fields else None,
            title=self._check_title(fields["title"] or "") if "title" in fields else None,
            tags=self._check_tags(fields["tags"] or []) if "tags" in fields else None,
            type=fields.get("type"),
            clear_type="type" in fields and fields["type"] is None,
        )
        note = self._notes.update_note(tenant_id, note_id, changes, self._clock())
        if note is None:
            raise NotFound("note not found")
        state = self._chunks.index_state(note_id)
        return self._json(note, state.status.value if state else IndexStatus.PENDING.value)

    def delete(self, tenant_id: str, note_id: str) -> None:
        if not self._notes.delete_note(tenant_id, note_id):
            raise NotFound("note not found")

    # -- validation --------------------------------------------------------------
    def _check_text(self, text: str) -> str:
        clean = normalize(text)
        if not clean:
            raise InvalidRequest("note text is empty")
        if len(clean) > self._s.note_max_chars:
            raise PayloadTooLarge(f"note text is longer than {self._s.note_max_chars} characters")
        return clean

    def _check_title(self, title: str) -> str:
        clean = normalize(title)
        if len(clean) > self._s.note_title_max_chars:
            raise InvalidRequest(f"title is longer than {self._s.note_title_max_chars} characters")
        return clean

    def _check_tags(self, tags: Sequence[str]) -> tuple[str, ...]:
        if len(tags) > self._s.note_max_tags:
            raise InvalidRequest(f"at most {self._s.note_max_tags} tags")
        clean = tuple(dict.fromkeys(normalize(t) for t in tags if normalize(t)))
        if any(len(t) > 50 for t in clean):
            raise InvalidRequest("a tag is longer than 50 characters")
        return clean

    @staticmethod
    def _json(
        note: Note, status: str | None = None, chunk_count: int | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": note.id,
            "text": note.text,
            "title": note.title,
            "tags": list(note.tags),
            "type": note.type.value if note.type else None,
            "createdAt": note.created_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            "updatedAt": note.updated_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        }
        if status is not None:
            body["indexStatus"] = status
        if chunk_count is not None:
            body["chunkCount"] = chunk_count
        return body
