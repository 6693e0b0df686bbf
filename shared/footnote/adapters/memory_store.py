"""In-process note, chunk and conversation store: the offline twin of Firestore.

Used by the evaluation harness and unit tests; passes the same contract suite
as ``FirestoreStore``.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from footnote.adapters.cursors import keyset_page
from footnote.domain import (
    ChangeBatch,
    ChangeMark,
    Chunk,
    Conversation,
    ConversationPage,
    IndexState,
    IndexStatus,
    Note,
    NoteChange,
    NoteChanges,
    NoteEdit,
    NotePage,
    Turn,
    apply_changes,
    deletion_job_id,
    same_content,
    with_turns,
)
from footnote.errors import Conflict, PreconditionFailed, Unauthenticated
from footnote.ports import CreatedNotes, NewNote, check_atomic


class MemoryStore:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.notes: dict[str, Note] = {}
        self.chunks: dict[str, Chunk] = {}
        self.states: dict[str, IndexState] = {}
        self.versions: dict[str, int] = {}
        self.turns: dict[str, Turn] = {}
        self.conversations: dict[str, Conversation] = {}  # id -> summary, as Firestore
        # Change log, as Firestore keeps it in indexState.chunksChangedAt: a global
        # sequence stands in for commit time; per tenant, (sequence, note id) in order.
        self._seq = 0
        self._changes: dict[str, list[tuple[int, str]]] = {}
        self._note_chunks: dict[str, dict[str, Chunk]] = {}  # note id -> its chunks
        self._recorded: dict[str, set[str]] = {}  # note id -> chunk ids last written
        # Deletion jobs begun (``MemoryTenantData``): their tenants write nothing new.
        self.fenced: set[str] = set()
        # The change feed: note id -> (moment of its latest change, tenant, deleted);
        # moments strictly increase, as commit times of one document's writes do.
        self.feed: dict[str, tuple[datetime, str, bool]] = {}
        self._last_moment = datetime.min.replace(tzinfo=UTC)

    def _check_fence(self, tenant_id: str) -> None:
        if deletion_job_id(tenant_id) in self.fenced:
            raise Unauthenticated("a valid Firebase ID token is required")

    def _record_change(self, note_id: str, tenant_id: str, deleted: bool) -> None:
        moment = max(datetime.now(UTC), self._last_moment + timedelta(microseconds=1))
        self._last_moment = moment
        self.feed[note_id] = (moment, tenant_id, deleted)

    # -- NoteStore -------------------------------------------------------------
    def create_note(self, note: Note) -> Note:
        with self._lock:
            self._check_fence(note.tenant_id)
            if note.id in self.notes:
                raise Conflict(f"note {note.id} exists")
            self.notes[note.id] = note
            self.states[note.id] = IndexState(note.id, note.tenant_id, IndexStatus.PENDING)
            self._record_change(note.id, note.tenant_id, False)
            return note

    def create_notes(self, entries: Sequence[NewNote]) -> CreatedNotes:
        check_atomic(entries)
        with self._lock:
            for entry in entries:
                self._check_fence(entry.note.tenant_id)
            created, existing, removed = [], [], {}
            for entry in entries:
                note = entry.note
                if note.id in self.notes:
                    existing.append(note.id)
                    continue
                self.notes[note.id] = note
                self._record_change(note.id, note.tenant_id, False)
                created.append(note.id)
                if entry.state is None:
                    self.states[note.id] = IndexState(note.id, note.tenant_id, IndexStatus.PENDING)
                    continue
                stale = self.replace_chunks(note, entry.chunks, entry.state)
                if stale:
                    removed[note.id] = stale
            return CreatedNotes(created, existing, removed)

    def existing_note_ids(self, tenant_id: str, note_ids: Sequence[str]) -> set[str]:
        return {i for i in note_ids if self.get_note(tenant_id, i) is not None}

    def get_note(self, tenant_id: str, note_id: str) -> Note | None:
        note = self.notes.get(note_id)
        return note if note is not None and note.tenant_id == tenant_id else None

    def update_note(
        self,
        tenant_id: str,
        note_id: str,
        changes: NoteChanges,
        now: datetime,
        if_match: frozenset[int] | None = None,
    ) -> NoteEdit | None:
        with self._lock:
            note = self.get_note(tenant_id, note_id)
            if note is None:
                return None
            if if_match is not None and note.version not in if_match:
                raise PreconditionFailed(note)
            updated = apply_changes(note, changes, now)
            self.notes[note_id] = updated
            self._record_change(note_id, tenant_id, False)
            if not same_content(note, updated):
                self.states[note_id] = IndexState(note_id, tenant_id, IndexStatus.PENDING)
                self._drop_chunks(tenant_id, note_id)  # old text is never cited again
            return NoteEdit(note, updated)  # read under the same lock as the write

    def delete_note(
        self, tenant_id: str, note_id: str, if_match: frozenset[int] | None = None
    ) -> Note | None:
        with self._lock:
            note = self.get_note(tenant_id, note_id)
            if note is None:
                return None
            if if_match is not None and note.version not in if_match:
                raise PreconditionFailed(note)
            del self.notes[note_id]
            self._drop_chunks(tenant_id, note_id)  # a deleted note is never cited
            self._record_change(note_id, tenant_id, True)
            return note

    def list_notes(self, tenant_id: str, limit: int, cursor: str | None) -> NotePage:
        mine = [n for n in self.notes.values() if n.tenant_id == tenant_id]
        return NotePage(*keyset_page(mine, lambda n: (n.created_at, n.id), limit, cursor, "notes"))

    def note_changes(self, tenant_id: str, after: ChangeMark | None, limit: int) -> ChangeBatch:
        with self._lock:
            entries = sorted(
                (moment, note_id, deleted)
                for note_id, (moment, tenant, deleted) in self.feed.items()
                if tenant == tenant_id
                and (after is None or (moment, note_id) > (after.moment, after.note_id))
            )
            page = entries[:limit]
            changes = [
                NoteChange(ChangeMark(m, nid), None if deleted else self.notes[nid])
                for m, nid, deleted in page
            ]
        last = ChangeMark(page[-1][0], page[-1][1]) if page else None
        return ChangeBatch(changes, last, len(entries) > limit)

    def read_note(self, note_id: str) -> Note | None:
        return self.notes.get(note_id)

    def note_ids(self, tenant_id: str | None, after: str | None, limit: int) -> list[str]:
        ids = sorted(
            n.id for n in self.notes.values() if tenant_id is None or n.tenant_id == tenant_id
        )
        return [i for i in ids if after is None or i > after][:limit]

    # -- ChunkStore ------------------------------------------------------------
    def index_state(self, note_id: str) -> IndexState | None:
        return self.states.get(note_id)

    def index_states(self, note_ids: Sequence[str]) -> dict[str, IndexState]:
        return {i: self.states[i] for i in note_ids if i in self.states}

    def replace_chunks(
        self, note: Note, chunks: Sequence[Chunk], state: IndexState
    ) -> list[str] | None:
        with self._lock:
            current = self.notes.get(note.id)
            if current is None or not same_content(current, note):
                return None
            new_ids = {c.chunk_id for c in chunks}
            before = set(self._note_chunks.get(note.id, {})) | self._recorded.get(note.id, set())
            removed = sorted(before - new_ids)
            for cid in removed:
                self.chunks.pop(cid, None)
            self._note_chunks[note.id] = {c.chunk_id: c for c in chunks}
            for c in chunks:
                self.chunks[c.chunk_id] = c
            self._recorded[note.id] = new_ids
            self.states[note.id] = state
            self._changed(note.tenant_id, note.id)
            return removed

    def remove_chunks(self, note_id: str, state: IndexState) -> list[str] | None:
        with self._lock:
            if note_id in self.notes:
                return None
            before = set(self._note_chunks.pop(note_id, {})) | self._recorded.pop(note_id, set())
            removed = sorted(before)
            for cid in removed:
                self.chunks.pop(cid, None)
            self.states[note_id] = state
            if state.tenant_id:
                self._changed(state.tenant_id, note_id)
            return removed

    def withdraw_chunks(self, state: IndexState) -> list[str]:
        with self._lock:
            note_id = state.note_id
            ids = sorted(
                set(self._note_chunks.get(note_id, {})) | self._recorded.get(note_id, set())
            )
            self._drop_chunks(state.tenant_id, note_id)
            self.states[note_id] = state
            return ids

    def _drop_chunks(self, tenant_id: str, note_id: str) -> None:
        """The API's half of a delete or an edit: the note's chunks go at once; the ids
        stay recorded, so the indexer still removes their vectors."""
        for cid in self._note_chunks.pop(note_id, {}):
            self.chunks.pop(cid, None)
        self._changed(tenant_id, note_id)

    def _changed(self, tenant_id: str, note_id: str) -> None:
        self._seq += 1
        self._changes.setdefault(tenant_id, []).append((self._seq, note_id))
        self.versions[tenant_id] = self.versions.get(tenant_id, 0) + 1

    def set_index_state(self, state: IndexState) -> None:
        with self._lock:
            self.states[state.note_id] = state

    def tenant_chunks(self, tenant_id: str) -> list[Chunk]:
        with self._lock:
            return [c for c in self.chunks.values() if c.tenant_id == tenant_id]

    def tenant_chunk_pages(self, tenant_id: str, page_size: int = 500) -> Iterator[list[Chunk]]:
        mine = self.tenant_chunks(tenant_id)
        for i in range(0, len(mine), page_size):
            yield mine[i : i + page_size]

    def tenant_version(self, tenant_id: str) -> int:
        return self.versions.get(tenant_id, 0)

    def tenant_version_mark(self, tenant_id: str) -> tuple[int, Any]:
        with self._lock:
            return self.versions.get(tenant_id, 0), self._seq

    def notes_changed_since(self, tenant_id: str, mark: Any, limit: int) -> list[str] | None:
        if mark is None:
            return None
        with self._lock:
            log = self._changes.get(tenant_id, [])
            start = bisect.bisect_right(log, (int(mark), "\uffff"))
            changed = list(dict.fromkeys(note_id for _, note_id in log[start:]))
        return None if len(changed) > limit else changed

    def chunks_of_notes(self, tenant_id: str, note_ids: Sequence[str]) -> list[Chunk]:
        with self._lock:
            return [
                c
                for note_id in note_ids
                for c in self._note_chunks.get(note_id, {}).values()
                if c.tenant_id == tenant_id
            ]

    def get_chunks(self, tenant_id: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        with self._lock:
            found = (self.chunks.get(cid) for cid in chunk_ids)
            return [c for c in found if c is not None and c.tenant_id == tenant_id]

    def unindexed_note_ids(self, after: str | None, limit: int) -> list[str]:
        todo = sorted(
            nid
            for nid, s in self.states.items()
            if s.status in (IndexStatus.PENDING, IndexStatus.FAILED)
        )
        return [i for i in todo if after is None or i > after][:limit]

    # -- ConversationStore -----------------------------------------------------
    def append_turns(self, turns: Sequence[Turn]) -> None:
        with self._lock:
            for tenant_id in {t.tenant_id for t in turns}:
                self._check_fence(tenant_id)
            groups: dict[str, list[Turn]] = {}
            for t in turns:
                self.turns[t.message_id] = t
                groups.setdefault(t.conversation_id, []).append(t)
            for cid, group in groups.items():
                self.conversations[cid] = with_turns(self.conversations.get(cid), group)

    def list_conversations(
        self, tenant_id: str, limit: int, cursor: str | None
    ) -> ConversationPage:
        with self._lock:  # a chat may add a conversation meanwhile
            mine = [c for c in self.conversations.values() if c.tenant_id == tenant_id]
        return ConversationPage(
            *keyset_page(mine, lambda c: (c.updated_at, c.id), limit, cursor, "conversations")
        )

    def conversation_turns(self, tenant_id: str, conversation_id: str) -> list[Turn] | None:
        mine = [
            t
            for t in self.turns.values()
            if t.conversation_id == conversation_id and t.tenant_id == tenant_id
        ]
        return sorted(mine, key=lambda t: (t.created_at, t.role != "user")) or None

    def turn(self, tenant_id: str, message_id: str) -> Turn | None:
        t = self.turns.get(message_id)
        return t if t is not None and t.tenant_id == tenant_id else None
