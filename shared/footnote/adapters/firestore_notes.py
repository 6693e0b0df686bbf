"""Firestore NoteStore: the ``notes`` collection.

An edit that changes a note's content, and a delete, drop its chunks in the
same transaction (see :class:`~footnote.adapters.firestore_common.FirestoreRepository`).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from footnote.adapters.cursors import encode_cursor
from footnote.adapters.firestore_common import (
    CHUNK_IDS,
    CHUNKS,
    CHUNKS_CHANGED_AT,
    NOTE_CHANGES,
    NOTES,
    STATES,
    FirestoreRepository,
    note_doc,
    note_from,
    state_doc,
)
from footnote.domain import (
    ChangeBatch,
    ChangeMark,
    IndexState,
    IndexStatus,
    Note,
    NoteChange,
    NoteChanges,
    NoteEdit,
    NotePage,
    apply_changes,
    same_content,
)
from footnote.errors import Conflict, Contention, PreconditionFailed, Unauthenticated
from footnote.ports import CreatedNotes, NewNote, check_atomic

T = TypeVar("T")
# Rounds of read-and-conditional-write before a writer gives up (503 contention):
# each round one of the concurrent writers of a note commits, so N writers at once
# need at most N rounds.
_WRITE_ATTEMPTS = 30
# An aborted write is tried again only this soon after the first attempt (a lock
# timeout, ~10 s on the emulator, is past it: 503 then).
_ABORTED_RETRY_WINDOW_S = 3.0


class _KeyedLocks:
    """One lock per key while someone holds or waits for it (then forgotten)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, key: str) -> Iterator[None]:
        with self._guard:
            lock, users = self._locks.get(key, (threading.Lock(), 0))
            self._locks[key] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._locks[key]
                if users == 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)


_LOCAL_WRITERS = _KeyedLocks()


class FirestoreNoteStore(FirestoreRepository):
    """NoteStore over Firestore."""

    # How long a deletion stays in noteChanges (its expiresAt, for the TTL policy);
    # the wiring sets it from TOMBSTONE_RETENTION_DAYS.
    tombstone_retention = timedelta(days=30)

    def create_note(self, note: Note) -> Note:
        # A transaction, not a batch: it reads the tenant's deletion fence, so a note
        # can never be created once the account's deletion has begun.
        @self._fs.transactional
        def run(tx: Any) -> None:
            self._check_fence(tx, note.tenant_id)
            tx.create(self.client.collection(NOTES).document(note.id), note_doc(note))
            self._record_change(tx, note.id, note.tenant_id, deleted=False)
            tx.set(
                self.client.collection(STATES).document(note.id),
                state_doc(IndexState(note.id, note.tenant_id, IndexStatus.PENDING)),
                merge=True,  # keeps chunkIds, which only the chunk transactions write
            )

        from google.api_core.exceptions import AlreadyExists

        try:
            self._run_for_api(run, "this note")
        except AlreadyExists as exc:
            raise Conflict(f"note {note.id} exists") from exc
        except ValueError as exc:  # the SDK's wrapper of a failed commit
            if isinstance(exc.__cause__, AlreadyExists):
                raise Conflict(f"note {note.id} exists") from exc
            raise
        return note

    def create_notes(self, entries: Sequence[NewNote]) -> CreatedNotes:
        """One transaction: it reads the tenant's fence, the notes and their index
        states (locking them, so two jobs writing the same notes take turns and the
        second finds them), then creates the absent notes with their change entries,
        chunks and states. A chunk of an earlier note of the same id (deleted, its
        vectors perhaps still to remove) is found as ``replace_chunks`` finds it: in
        the ids its state records, read inside (``FirestoreRepository`` says why no
        query is needed)."""
        check_atomic(entries)
        if not entries:
            return CreatedNotes([], [])
        tenants = {e.note.tenant_id for e in entries}
        notes = self.client.collection(NOTES)
        states = self.client.collection(STATES)

        @self._fs.transactional
        def run(tx: Any) -> CreatedNotes:
            # One read: the fences (locked, so a deletion starting concurrently makes
            # this transaction retry and see it), the notes and their states.
            fences = [self._fence_ref(t) for t in sorted(tenants)]
            refs = [*fences, *(notes.document(e.note.id) for e in entries)]
            refs += [states.document(e.note.id) for e in entries]
            snaps = {s.reference.path: s for s in self.client.get_all(refs, transaction=tx)}
            if any(snaps[f.path].exists for f in fences):
                raise Unauthenticated("a valid Firebase ID token is required")
            created, existing, removed = [], [], {}
            for entry in entries:
                note = entry.note
                if snaps[notes.document(note.id).path].exists:
                    existing.append(note.id)
                    continue
                created.append(note.id)
                tx.create(notes.document(note.id), note_doc(note))
                self._record_change(tx, note.id, note.tenant_id, deleted=False)
                state_ref = states.document(note.id)
                if entry.state is None:
                    tx.set(
                        state_ref,
                        state_doc(IndexState(note.id, note.tenant_id, IndexStatus.PENDING)),
                        merge=True,  # keeps chunkIds, which only the chunk writes write
                    )
                    continue
                prior = snaps[state_ref.path]
                recorded = (prior.to_dict() or {}).get(CHUNK_IDS, []) if prior.exists else []
                new_ids = {c.chunk_id for c in entry.chunks}
                stale = sorted(set(recorded) - new_ids)
                for cid in stale:
                    tx.delete(self.client.collection(CHUNKS).document(cid))
                for c in entry.chunks:
                    tx.set(self.client.collection(CHUNKS).document(c.chunk_id), self._chunk_doc(c))
                tx.set(
                    state_ref,
                    state_doc(entry.state)
                    | {CHUNK_IDS: sorted(new_ids), CHUNKS_CHANGED_AT: self._fs.SERVER_TIMESTAMP},
                )
                if stale:
                    removed[note.id] = stale
            return CreatedNotes(created, existing, removed)

        done: CreatedNotes = self._run_for_api(run, "these notes")
        if any(e.state is not None and e.note.id in done.created for e in entries):
            for tenant in tenants:
                self._bump(tenant)  # once for the commit, as replace_chunks bumps once
        return done

    def existing_note_ids(self, tenant_id: str, note_ids: Sequence[str]) -> set[str]:
        ids = list(dict.fromkeys(note_ids))
        if not ids:
            return set()
        refs = [self.client.collection(NOTES).document(i) for i in ids]
        return {
            s.id
            for s in self.client.get_all(refs, field_paths=["tenantId"])
            if s.exists and s.get("tenantId") == tenant_id
        }

    def get_note(self, tenant_id: str, note_id: str) -> Note | None:
        note = self.read_note(note_id)
        return note if note is not None and note.tenant_id == tenant_id else None

    def update_note(
        self,
        tenant_id: str,
        note_id: str,
        changes: NoteChanges,
        now: datetime,
        if_match: frozenset[int] | None = None,
    ) -> NoteEdit | None:
        def write(found: _Found, batch: Any) -> NoteEdit:
            before = found.note
            after = apply_changes(before, changes, now)
            batch.update(found.note_ref, note_doc(after), option=found.note_unchanged)
            self._record_change(batch, note_id, tenant_id, deleted=False)
            if not same_content(before, after):
                found.drop_chunks(batch, IndexStatus.PENDING)
            return NoteEdit(before, after)

        edit: NoteEdit | None = self._conditional_write(tenant_id, note_id, if_match, write)
        if edit is not None and not same_content(edit.before, edit.after):
            self._bump(tenant_id)
        return edit

    def delete_note(
        self, tenant_id: str, note_id: str, if_match: frozenset[int] | None = None
    ) -> Note | None:
        def write(found: _Found, batch: Any) -> Note:
            batch.delete(found.note_ref, option=found.note_unchanged)
            self._record_change(batch, note_id, tenant_id, deleted=True)
            found.drop_chunks(batch, IndexStatus.DELETED)
            return found.note

        deleted: Note | None = self._conditional_write(tenant_id, note_id, if_match, write)
        if deleted is not None:
            self._bump(tenant_id)
        return deleted

    def _conditional_write(
        self,
        tenant_id: str,
        note_id: str,
        if_match: frozenset[int] | None,
        write: Callable[[_Found, Any], T],
    ) -> T | None:
        """Read the note and its index state, then write a batch that commits only if
        neither changed since that read (preconditions on their update times): no
        transaction, so no lock is held between the read and the write, and a writer
        never waits on another one.

        Two writers of one note: one commits, the other's precondition fails at once
        and it reads again. With ``if_match`` that read decides: a version the caller
        did not name is ``PreconditionFailed`` (412) with the current note. Without
        it, the edit is applied again to the note as it now is (last write wins);
        such writers of one note on this instance also queue on a local lock, so
        they take turns instead of colliding (every collision costs the loser a
        read and a commit; ten at once cost 55 of each). Writers on other instances
        are kept apart by the preconditions alone.
        The index state is in the precondition because the batch drops the chunk ids
        it records: an indexer committing new chunks in between makes the batch read
        again rather than leave chunks of the old text behind."""
        if if_match is not None:  # one read decides: no queue to wait in
            return self._write_rounds(tenant_id, note_id, if_match, write)
        with _LOCAL_WRITERS.hold(note_id):
            return self._write_rounds(tenant_id, note_id, None, write)

    def _write_rounds(
        self,
        tenant_id: str,
        note_id: str,
        if_match: frozenset[int] | None,
        write: Callable[[_Found, Any], T],
    ) -> T | None:
        from google.api_core.exceptions import Aborted, AlreadyExists, FailedPrecondition
        from google.api_core.exceptions import NotFound as DocumentMissing

        note_ref = self.client.collection(NOTES).document(note_id)
        state_ref = self.client.collection(STATES).document(note_id)
        started = time.monotonic()
        for attempt in range(_WRITE_ATTEMPTS):
            snaps = {s.reference.path: s for s in self.client.get_all([note_ref, state_ref])}
            snap, state = snaps[note_ref.path], snaps[state_ref.path]
            if not snap.exists or snap.get("tenantId") != tenant_id:
                return None
            note = note_from(snap)
            if if_match is not None and note.version not in if_match:
                raise PreconditionFailed(note)
            found = _Found(self, note, note_ref, snap, state_ref, state)
            batch = self.client.batch()
            result = write(found, batch)
            try:
                batch.commit()
            except Aborted as exc:
                # The write met a transaction holding the note or its index state (an
                # indexer's) and the store aborted it: a deadlock broken, or a lock held
                # past the store's timeout. Nothing was written. Soon after starting,
                # read and try again; after a long wait, let the client retry (503).
                if time.monotonic() - started > _ABORTED_RETRY_WINDOW_S:
                    raise Contention("this note") from exc
                time.sleep(random.uniform(0, 0.05))
                continue
            except (FailedPrecondition, DocumentMissing, AlreadyExists):
                # Another write committed since the read: read again, after a short
                # random pause so the losers of one round do not collide again.
                time.sleep(random.uniform(0, 0.005 * min(attempt + 1, 8)))
                continue
            return result
        raise Contention("this note")

    def _record_change(self, batch: Any, note_id: str, tenant_id: str, deleted: bool) -> None:
        doc: dict[str, Any] = {
            "tenantId": tenant_id,
            "changedAt": self._fs.SERVER_TIMESTAMP,
            "deleted": deleted,
        }
        if deleted:  # a tombstone: the collection's TTL policy removes it after retention
            doc["expiresAt"] = datetime.now(UTC) + self.tombstone_retention
        batch.set(self.client.collection(NOTE_CHANGES).document(note_id), doc)

    def note_changes(self, tenant_id: str, after: ChangeMark | None, limit: int) -> ChangeBatch:
        fs = self._fs
        entries = self.client.collection(NOTE_CHANGES)
        query = (
            entries.where(filter=self._where("tenantId", "==", tenant_id))
            .order_by("changedAt", direction=fs.Query.ASCENDING)
            .order_by("__name__", direction=fs.Query.ASCENDING)
        )
        if after is not None and not after.note_id:  # a floor: at or after the moment
            query = query.start_at({"changedAt": after.moment})
        elif after is not None:
            query = query.start_after(
                {"changedAt": after.moment, "__name__": entries.document(after.note_id)}
            )
        snaps = list(query.limit(limit + 1).stream())
        page = snaps[:limit]
        live = [s.id for s in page if not s.get("deleted")]
        notes = {}
        if live:
            refs = [self.client.collection(NOTES).document(i) for i in live]
            notes = {s.id: s for s in self.client.get_all(refs) if s.exists}
        changes: list[NoteChange] = []
        for s in page:
            mark = ChangeMark(s.get("changedAt"), s.id)
            if s.get("deleted"):
                changes.append(NoteChange(mark, None))
            elif s.id in notes and notes[s.id].get("tenantId") == tenant_id:
                changes.append(NoteChange(mark, note_from(notes[s.id])))
            # else: deleted since this entry was read; its tombstone follows
        last = ChangeMark(page[-1].get("changedAt"), page[-1].id) if page else None
        return ChangeBatch(changes, last, len(snaps) > limit)

    def list_notes(self, tenant_id: str, limit: int, cursor: str | None) -> NotePage:
        snaps, last = self._keyset(NOTES, tenant_id, "createdAt", limit, cursor)
        page = [note_from(s) for s in snaps]
        return NotePage(
            page,
            encode_cursor(page[-1].created_at, page[-1].id, NOTES) if last is not None else None,
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


@dataclass(frozen=True)
class _Found:
    """A note and its index state as one conditional write read them."""

    store: FirestoreNoteStore
    note: Note
    note_ref: Any
    snap: Any
    state_ref: Any
    state: Any

    @property
    def note_unchanged(self) -> Any:
        return self.store.client.write_option(last_update_time=self.snap.update_time)

    def drop_chunks(self, batch: Any, status: IndexStatus) -> None:
        """The API's half of an edit of the content, or of a delete: the note's chunks
        go in the same batch, so no query can cite the old text; indexState keeps
        chunkIds, so the indexer still removes their vectors."""
        client = self.store.client
        recorded = (self.state.to_dict() or {}).get(CHUNK_IDS, []) if self.state.exists else []
        for cid in recorded:
            batch.delete(client.collection(CHUNKS).document(cid))
        fields = state_doc(IndexState(self.note.id, self.note.tenant_id, status)) | {
            CHUNKS_CHANGED_AT: self.store._fs.SERVER_TIMESTAMP
        }
        if self.state.exists:
            batch.update(
                self.state_ref,
                fields,
                option=client.write_option(last_update_time=self.state.update_time),
            )
        else:
            batch.create(self.state_ref, fields)
