"""Firestore NoteStore: the ``notes`` collection.

An edit that changes a note's content, and a delete, drop its chunks in the
same transaction (see :class:`~footnote.adapters.firestore_common.FirestoreRepository`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from footnote.adapters.cursors import encode_cursor
from footnote.adapters.firestore_common import (
    NOTES,
    STATES,
    FirestoreRepository,
    note_doc,
    note_from,
    state_doc,
)
from footnote.domain import (
    IndexState,
    IndexStatus,
    Note,
    NoteChanges,
    NoteEdit,
    NotePage,
    apply_changes,
    same_content,
)


class FirestoreNoteStore(FirestoreRepository):
    """NoteStore over Firestore."""

    def create_note(self, note: Note) -> Note:
        # A transaction, not a batch: it reads the tenant's deletion fence, so a note
        # can never be created once the account's deletion has begun.
        @self._fs.transactional
        def run(tx: Any) -> None:
            self._check_fence(tx, note.tenant_id)
            tx.create(self.client.collection(NOTES).document(note.id), note_doc(note))
            tx.set(
                self.client.collection(STATES).document(note.id),
                state_doc(IndexState(note.id, note.tenant_id, IndexStatus.PENDING)),
                merge=True,  # keeps chunkIds, which only the chunk transactions write
            )

        self._run_for_api(run, "this note")
        return note

    def get_note(self, tenant_id: str, note_id: str) -> Note | None:
        note = self.read_note(note_id)
        return note if note is not None and note.tenant_id == tenant_id else None

    def update_note(
        self, tenant_id: str, note_id: str, changes: NoteChanges, now: datetime
    ) -> NoteEdit | None:
        ref = self.client.collection(NOTES).document(note_id)

        @self._fs.transactional
        def run(tx: Any) -> NoteEdit | None:
            snap = ref.get(transaction=tx)
            if not snap.exists or snap.get("tenantId") != tenant_id:
                return None
            # Read in the transaction that overwrites it: a concurrent edit either
            # commits before this read or makes the transaction retry, so ``before``
            # is what this edit replaced.
            before = note_from(snap)
            after = apply_changes(before, changes, now)
            changed = not same_content(before, after)
            recorded = self._recorded_chunk_ids(tx, note_id) if changed else []
            tx.set(ref, note_doc(after))
            if changed:
                self._drop_chunks(tx, recorded, IndexState(note_id, tenant_id, IndexStatus.PENDING))
            return NoteEdit(before, after)

        edit: NoteEdit | None = self._run_for_api(run, "this note")
        if edit is not None and not same_content(edit.before, edit.after):
            self._bump(tenant_id)
        return edit

    def delete_note(self, tenant_id: str, note_id: str) -> Note | None:
        ref = self.client.collection(NOTES).document(note_id)

        @self._fs.transactional
        def run(tx: Any) -> Note | None:
            snap = ref.get(transaction=tx)
            if not snap.exists or snap.get("tenantId") != tenant_id:
                return None
            # Read in the transaction that deletes it: a concurrent edit either commits
            # before this read or makes the transaction retry, so this is what went.
            deleted = note_from(snap)
            recorded = self._recorded_chunk_ids(tx, note_id)
            tx.delete(ref)
            self._drop_chunks(tx, recorded, IndexState(note_id, tenant_id, IndexStatus.DELETED))
            return deleted

        deleted: Note | None = self._run_for_api(run, "this note")
        if deleted is not None:
            self._bump(tenant_id)
        return deleted

    def list_notes(self, tenant_id: str, limit: int, cursor: str | None) -> NotePage:
        snaps, last = self._keyset(NOTES, tenant_id, "createdAt", limit, cursor)
        page = [note_from(s) for s in snaps]
        return NotePage(
            page, encode_cursor(page[-1].created_at, page[-1].id) if last is not None else None
        )

    def read_note(self, note_id: str) -> Note | None:
        snap = self.client.collection(NOTES).document(note_id).get()
        return note_from(snap) if snap.exists else None

    def note_ids(self, tenant_id: str | None, after: str | None, limit: int) -> list[str]:
        notes = self.client.collection(NOTES)
        query = notes.order_by("__name__")
        if tenant_id is not None:
            query = query.where(filter=self._where("tenantId", "==", tenant_id))
        if after:
            query = query.start_after({"__name__": notes.document(after)})
        return [s.id for s in query.select([]).limit(limit).stream()]
