"""Firestore implementation of NoteStore, ChunkStore, ConversationStore and EmbeddingCache.

Collections: ``notes`` (what users write), ``noteChunks`` (chunks with vectors),
``indexState`` (one per note, kept apart from the note so the indexer never
writes the document whose changes trigger it), ``tenants`` (a version counter
per tenant that moves whenever its chunks change), ``embeddingCache``,
``conversations`` and ``messages``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from footnote.adapters.cursors import decode_cursor, encode_cursor
from footnote.domain import (
    Chunk,
    IndexState,
    IndexStatus,
    MemoryType,
    Note,
    NoteChanges,
    NotePage,
    Turn,
    apply_changes,
    same_content,
)
from footnote.errors import MalformedNote

if TYPE_CHECKING:
    from google.cloud import firestore

NOTES = "notes"
CHUNKS = "noteChunks"
STATES = "indexState"
TENANTS = "tenants"
EMBEDDINGS = "embeddingCache"
CONVERSATIONS = "conversations"
MESSAGES = "messages"
JOBS = "reindexJobs"
CHUNK_IDS = "chunkIds"  # in indexState: the chunk ids the last chunk transaction wrote
# In indexState: the commit time of the last change to the note's chunks (an index
# write, or the API dropping them on an edit or delete). The change log in-memory
# corpora patch from: ``notes_changed_since`` queries it per tenant.
CHUNKS_CHANGED_AT = "chunksChangedAt"
_IN_LIMIT = 30  # values in one Firestore "in" filter
_BATCH = 400  # under Firestore's 500 writes per commit


def make_client(project_id: str, database: str) -> firestore.Client:
    from google.cloud import firestore

    return firestore.Client(project=project_id, database=database)


class FirestoreStore:
    def __init__(self, client: firestore.Client) -> None:
        from google.cloud import firestore as fs
        from google.cloud.firestore_v1.base_query import FieldFilter
        from google.cloud.firestore_v1.vector import Vector

        self.client = client
        self._fs = fs
        self._where = FieldFilter
        self._vector = Vector

    # -- NoteStore -------------------------------------------------------------
    def create_note(self, note: Note) -> Note:
        batch = self.client.batch()
        batch.create(self.client.collection(NOTES).document(note.id), _note_doc(note))
        batch.set(
            self.client.collection(STATES).document(note.id),
            _state_doc(IndexState(note.id, note.tenant_id, IndexStatus.PENDING)),
            merge=True,  # keeps chunkIds, which only the chunk transactions write
        )
        batch.commit()
        return note

    def get_note(self, tenant_id: str, note_id: str) -> Note | None:
        note = self.read_note(note_id)
        return note if note is not None and note.tenant_id == tenant_id else None

    def update_note(
        self, tenant_id: str, note_id: str, changes: NoteChanges, now: datetime
    ) -> Note | None:
        ref = self.client.collection(NOTES).document(note_id)
        state_ref = self.client.collection(STATES).document(note_id)

        @self._fs.transactional
        def run(tx: Any) -> tuple[Note, bool] | None:
            snap = ref.get(transaction=tx)
            if not snap.exists or snap.get("tenantId") != tenant_id:
                return None
            before = _note_from(snap)
            after = apply_changes(before, changes, now)
            changed = not same_content(before, after)
            recorded = self._recorded_chunk_ids(tx, note_id) if changed else []
            tx.set(ref, _note_doc(after))
            if changed:
                self._drop_chunks(tx, state_ref, recorded, IndexStatus.PENDING, tenant_id)
            return after, changed

        after, changed = run(self.client.transaction()) or (None, False)
        if changed:
            self._bump(tenant_id)
        return after

    def delete_note(self, tenant_id: str, note_id: str) -> bool:
        ref = self.client.collection(NOTES).document(note_id)

        state_ref = self.client.collection(STATES).document(note_id)

        @self._fs.transactional
        def run(tx: Any) -> bool:
            snap = ref.get(transaction=tx)
            if not snap.exists or snap.get("tenantId") != tenant_id:
                return False
            recorded = self._recorded_chunk_ids(tx, note_id)
            tx.delete(ref)
            self._drop_chunks(tx, state_ref, recorded, IndexStatus.DELETED, tenant_id)
            return True

        deleted = bool(run(self.client.transaction()))
        if deleted:
            self._bump(tenant_id)
        return deleted

    def withdraw_chunks(self, tenant_id: str, note_id: str) -> list[str]:
        state_ref = self.client.collection(STATES).document(note_id)
        seen = self._chunk_ids_of(note_id)

        @self._fs.transactional
        def run(tx: Any) -> list[str]:
            ids = sorted(seen | set(self._recorded_chunk_ids(tx, note_id)))
            self._drop_chunks(tx, state_ref, ids, IndexStatus.FAILED, tenant_id)
            return ids

        ids = run(self.client.transaction(max_attempts=5))
        self._bump(tenant_id)
        return ids

    # A delete or an edit through the API drops the note's chunks in its own
    # transaction, so no query (in memory or through Vector Search, whose vectors
    # the indexer removes a moment later) can cite a deleted note or an edited
    # note's old text. indexState keeps chunkIds, so the indexer still knows which
    # vectors to remove.
    def _recorded_chunk_ids(self, tx: Any, note_id: str) -> list[str]:
        state = self.client.collection(STATES).document(note_id).get(transaction=tx)
        return list((state.to_dict() or {}).get(CHUNK_IDS, [])) if state.exists else []

    def _drop_chunks(
        self, tx: Any, state_ref: Any, chunk_ids: Sequence[str], status: IndexStatus, tenant: str
    ) -> None:
        for cid in chunk_ids:
            tx.delete(self.client.collection(CHUNKS).document(cid))
        tx.set(
            state_ref,
            _state_doc(IndexState(state_ref.id, tenant, status))
            | {CHUNKS_CHANGED_AT: self._fs.SERVER_TIMESTAMP},
            merge=True,  # keeps chunkIds, which only the chunk transactions write
        )

    def list_notes(self, tenant_id: str, limit: int, cursor: str | None) -> NotePage:
        fs = self._fs
        notes = self.client.collection(NOTES)
        query = (
            notes.where(filter=self._where("tenantId", "==", tenant_id))
            .order_by("createdAt", direction=fs.Query.DESCENDING)
            .order_by("__name__", direction=fs.Query.DESCENDING)
        )
        if cursor:
            moment, last_id = decode_cursor(cursor)
            query = query.start_after({"createdAt": moment, "__name__": notes.document(last_id)})
        page = [_note_from(s) for s in query.limit(limit + 1).stream()]
        more = len(page) > limit
        page = page[:limit]
        return NotePage(page, encode_cursor(page[-1].created_at, page[-1].id) if more else None)

    def read_note(self, note_id: str) -> Note | None:
        snap = self.client.collection(NOTES).document(note_id).get()
        return _note_from(snap) if snap.exists else None

    def note_ids(self, tenant_id: str | None, after: str | None, limit: int) -> list[str]:
        notes = self.client.collection(NOTES)
        query = notes.order_by("__name__")
        if tenant_id is not None:
            query = query.where(filter=self._where("tenantId", "==", tenant_id))
        if after:
            query = query.start_after({"__name__": notes.document(after)})
        return [s.id for s in query.select([]).limit(limit).stream()]

    # -- ChunkStore ------------------------------------------------------------
    def index_state(self, note_id: str) -> IndexState | None:
        snap = self.client.collection(STATES).document(note_id).get()
        return _state_from(snap.id, snap.to_dict() or {}) if snap.exists else None

    def replace_chunks(
        self, note: Note, chunks: Sequence[Chunk], state: IndexState
    ) -> list[str] | None:
        note_ref = self.client.collection(NOTES).document(note.id)
        new_ids = {c.chunk_id for c in chunks}
        seen = self._chunk_ids_of(note.id)

        @self._fs.transactional
        def run(tx: Any) -> list[str] | None:
            snap = note_ref.get(transaction=tx)
            if not snap.exists or not same_content(_note_from(snap), note):
                return None
            removed = self._known_chunk_ids(tx, note.id, seen) - new_ids
            for cid in removed:
                tx.delete(self.client.collection(CHUNKS).document(cid))
            for c in chunks:
                tx.set(self.client.collection(CHUNKS).document(c.chunk_id), self._chunk_doc(c))
            tx.set(
                self.client.collection(STATES).document(note.id),
                _state_doc(state)
                | {CHUNK_IDS: sorted(new_ids), CHUNKS_CHANGED_AT: self._fs.SERVER_TIMESTAMP},
            )
            return sorted(removed)

        removed = run(self.client.transaction(max_attempts=5))
        if removed is not None:
            self._bump(note.tenant_id)
        return removed

    def remove_chunks(self, note_id: str, state: IndexState) -> list[str] | None:
        note_ref = self.client.collection(NOTES).document(note_id)
        seen = self._chunk_ids_of(note_id)

        @self._fs.transactional
        def run(tx: Any) -> list[str] | None:
            if note_ref.get(transaction=tx).exists:
                return None
            removed = self._known_chunk_ids(tx, note_id, seen)
            for cid in removed:
                tx.delete(self.client.collection(CHUNKS).document(cid))
            tx.set(
                self.client.collection(STATES).document(note_id),
                _state_doc(state) | {CHUNK_IDS: [], CHUNKS_CHANGED_AT: self._fs.SERVER_TIMESTAMP},
            )
            return sorted(removed)

        removed = run(self.client.transaction(max_attempts=5))
        if removed is not None and state.tenant_id:
            self._bump(state.tenant_id)
        return removed

    # No query runs inside these transactions: the Firestore emulator locks a
    # whole collection for a transactional query, so concurrent indexing of
    # different notes aborted each other ("Failed to commit transaction in 5
    # attempts"), and production pays for range locks too. Instead the note's
    # chunk ids come from a plain query before the transaction plus the ids the
    # last committed transaction recorded in indexState/{noteId}.chunkIds, which
    # the transaction reads (and so locks). A chunk committed after the query
    # was committed together with that list, so the union misses none.
    def _chunk_ids_of(self, note_id: str) -> set[str]:
        query = self.client.collection(CHUNKS).where(filter=self._where("noteId", "==", note_id))
        return {s.id for s in query.select([]).stream()}

    #
    # Every id is returned, stored or not: the API may have dropped the documents
    # already (an edit or a delete), and the indexer still removes their vectors.
    def _known_chunk_ids(self, tx: Any, note_id: str, seen: set[str]) -> set[str]:
        return seen | set(self._recorded_chunk_ids(tx, note_id))

    def set_index_state(self, state: IndexState) -> None:
        self.client.collection(STATES).document(state.note_id).set(_state_doc(state), merge=True)

    def tenant_chunks(self, tenant_id: str) -> list[Chunk]:
        return [c for page in self.tenant_chunk_pages(tenant_id) for c in page]

    def tenant_chunk_pages(self, tenant_id: str, page_size: int = 500) -> Iterator[list[Chunk]]:
        chunks = self.client.collection(CHUNKS)
        query = chunks.where(filter=self._where("tenantId", "==", tenant_id)).order_by("__name__")
        last: str | None = None
        while True:
            page_query = query.start_after({"__name__": chunks.document(last)}) if last else query
            page = [_chunk_from(s.to_dict() or {}) for s in page_query.limit(page_size).stream()]
            if page:
                yield page
            if len(page) < page_size:
                return
            last = page[-1].chunk_id

    def tenant_version(self, tenant_id: str) -> int:
        return self.tenant_version_mark(tenant_id)[0]

    def tenant_version_mark(self, tenant_id: str) -> tuple[int, Any]:
        # The read time of this read is the mark: a chunk change committed after it
        # carries a later chunksChangedAt; one committed before it is visible to
        # every read that follows (Firestore reads are strongly consistent).
        snap = self.client.collection(TENANTS).document(tenant_id).get()
        version = int((snap.to_dict() or {}).get("version", 0)) if snap.exists else 0
        return version, snap.read_time

    def notes_changed_since(self, tenant_id: str, mark: Any, limit: int) -> list[str] | None:
        if mark is None:
            return None
        query = (
            self.client.collection(STATES)
            .where(filter=self._where("tenantId", "==", tenant_id))
            .where(filter=self._where(CHUNKS_CHANGED_AT, ">", mark))
        )
        ids = [s.id for s in query.select([]).limit(limit + 1).stream()]
        return None if len(ids) > limit else ids

    def chunks_of_notes(self, tenant_id: str, note_ids: Sequence[str]) -> list[Chunk]:
        out: list[Chunk] = []
        ids = list(dict.fromkeys(note_ids))
        for i in range(0, len(ids), _IN_LIMIT):
            query = self.client.collection(CHUNKS).where(
                filter=self._where("noteId", "in", ids[i : i + _IN_LIMIT])
            )
            out += [
                c
                for c in (_chunk_from(s.to_dict() or {}) for s in query.stream())
                if c.tenant_id == tenant_id
            ]
        return out

    def get_chunks(self, tenant_id: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return []
        refs = [self.client.collection(CHUNKS).document(cid) for cid in ids]
        found = {
            snap.id: _chunk_from(snap.to_dict() or {})
            for snap in self.client.get_all(refs)
            if snap.exists
        }
        return [found[cid] for cid in ids if cid in found and found[cid].tenant_id == tenant_id]

    def unindexed_note_ids(self, after: str | None, limit: int) -> list[str]:
        states = self.client.collection(STATES)
        query = states.where(
            filter=self._where(
                "status", "in", [IndexStatus.PENDING.value, IndexStatus.FAILED.value]
            )
        ).order_by("__name__")
        if after:
            query = query.start_after({"__name__": states.document(after)})
        return [s.id for s in query.select([]).limit(limit).stream()]

    # -- ConversationStore -----------------------------------------------------
    def append_turns(self, turns: Sequence[Turn]) -> None:
        batch = self.client.batch()
        for t in turns:
            batch.set(
                self.client.collection(CONVERSATIONS).document(t.conversation_id),
                {"tenantId": t.tenant_id, "updatedAt": t.created_at},
                merge=True,
            )
            batch.set(
                self.client.collection(MESSAGES).document(t.message_id),
                {
                    "conversationId": t.conversation_id,
                    "tenantId": t.tenant_id,
                    "role": t.role,
                    "text": t.text,
                    "createdAt": t.created_at,
                    "citations": [dict(c) for c in t.citations],
                    "meta": dict(t.meta or {}),
                },
            )
        batch.commit()

    def conversation_turns(self, tenant_id: str, conversation_id: str) -> list[Turn] | None:
        query = (
            self.client.collection(MESSAGES)
            .where(filter=self._where("conversationId", "==", conversation_id))
            .where(filter=self._where("tenantId", "==", tenant_id))
        )
        turns = [_turn_from(s.id, s.to_dict() or {}) for s in query.stream()]
        return sorted(turns, key=lambda t: (t.created_at, t.role != "user")) or None

    def turn(self, tenant_id: str, message_id: str) -> Turn | None:
        snap = self.client.collection(MESSAGES).document(message_id).get()
        if not snap.exists or snap.get("tenantId") != tenant_id:
            return None
        return _turn_from(snap.id, snap.to_dict() or {})

    # -- EmbeddingCache --------------------------------------------------------
    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]:
        refs = [self.client.collection(EMBEDDINGS).document(k) for k in keys]
        out: dict[str, list[float]] = {}
        for i in range(0, len(refs), 300):
            for snap in self.client.get_all(refs[i : i + 300]):
                if snap.exists:
                    out[snap.id] = list(snap.get("vector"))
        return out

    def put_many(self, items: Mapping[str, Sequence[float]]) -> None:
        entries = list(items.items())
        for i in range(0, len(entries), _BATCH):
            batch = self.client.batch()
            for key, vector in entries[i : i + _BATCH]:
                batch.set(
                    self.client.collection(EMBEDDINGS).document(key),
                    {"vector": self._vector(list(vector))},
                )
            batch.commit()

    # -- helpers ---------------------------------------------------------------
    def _bump(self, tenant_id: str) -> None:
        # After the commit, not inside the transaction: every indexing transaction
        # of a tenant writing this one document made concurrent indexing of its
        # notes contend until commits failed ("Failed to commit transaction in 5
        # attempts"). Bumping after the commit keeps the order readers need (a
        # reader that sees the new version also sees the new chunks); Increment
        # is atomic, so concurrent bumps are not lost.
        self.client.collection(TENANTS).document(tenant_id).set(
            {"version": self._fs.Increment(1)},
            merge=True,
        )

    def _chunk_doc(self, c: Chunk) -> dict[str, Any]:
        return {
            "chunkId": c.chunk_id,
            "noteId": c.note_id,
            "tenantId": c.tenant_id,
            "position": c.position,
            "text": c.text,
            "title": c.title,
            "terms": list(c.terms),
            "memoryType": c.memory_type.value,
            "createdAt": c.created_at,
            "embedding": self._vector(list(c.embedding)),
            "embeddingModel": c.embedding_model,
        }


def _note_doc(n: Note) -> dict[str, Any]:
    return {
        "tenantId": n.tenant_id,
        "text": n.text,
        "title": n.title,
        "tags": list(n.tags),
        "type": n.type.value if n.type else None,
        "createdAt": n.created_at,
        "updatedAt": n.updated_at,
    }


def _note_from(snap: Any) -> Note:
    d = snap.to_dict() or {}
    tenant = d.get("tenantId")
    tenant_id = tenant if isinstance(tenant, str) else ""

    def bad(problem: str) -> MalformedNote:
        return MalformedNote(snap.id, problem, tenant_id)

    # Notes written behind the API's back (admin credentials) may have any shape:
    # a clear MalformedNote, never a TypeError / KeyError deep in the pipeline.
    if not tenant_id:
        raise bad("tenantId must be a non-empty string")
    if not isinstance(d.get("text"), str):
        raise bad("text must be a string")
    created, updated = d.get("createdAt"), d.get("updatedAt") or d.get("createdAt")
    if not isinstance(created, datetime) or not isinstance(updated, datetime):
        raise bad("createdAt (and updatedAt) must be timestamps")
    title, tags, kind = d.get("title"), d.get("tags"), d.get("type")
    if title is not None and not isinstance(title, str):
        raise bad("title must be a string")
    if tags is not None and not (isinstance(tags, list) and all(isinstance(t, str) for t in tags)):
        raise bad("tags must be a list of strings")
    if kind and kind not in {m.value for m in MemoryType}:
        raise bad("type is not a known memory type")
    return Note(
        id=snap.id,
        tenant_id=tenant_id,
        text=d["text"],
        created_at=created,
        updated_at=updated,
        title=title or "",
        tags=tuple(tags or ()),
        type=MemoryType(kind) if kind else None,
    )


def _state_doc(s: IndexState) -> dict[str, Any]:
    return {
        "tenantId": s.tenant_id,
        "status": s.status.value,
        "contentHash": s.content_hash,
        "chunkCount": s.chunk_count,
        "model": s.model,
        "sourceUpdateTime": s.source_update_time,
        "error": s.error,
        "attempts": s.attempts,
    }


def _state_from(note_id: str, d: Mapping[str, Any]) -> IndexState:
    return IndexState(
        note_id=note_id,
        tenant_id=d.get("tenantId", ""),
        status=IndexStatus(d.get("status", "pending")),
        content_hash=d.get("contentHash", ""),
        chunk_count=int(d.get("chunkCount", 0)),
        model=d.get("model", ""),
        source_update_time=d.get("sourceUpdateTime"),
        error=d.get("error", ""),
        attempts=int(d.get("attempts", 0)),
    )


def _chunk_from(d: Mapping[str, Any]) -> Chunk:
    return Chunk(
        chunk_id=d["chunkId"],
        note_id=d["noteId"],
        tenant_id=d["tenantId"],
        position=int(d["position"]),
        text=d["text"],
        terms=tuple(d.get("terms") or ()),
        memory_type=MemoryType(d.get("memoryType", "note")),
        created_at=d["createdAt"],
        embedding=tuple(d["embedding"]),
        embedding_model=d.get("embeddingModel", ""),
        title=d.get("title", ""),
    )


def _turn_from(message_id: str, d: Mapping[str, Any]) -> Turn:
    return Turn(
        message_id=message_id,
        conversation_id=d["conversationId"],
        tenant_id=d["tenantId"],
        role=d["role"],
        text=d["text"],
        created_at=d["createdAt"],
        citations=tuple(d.get("citations") or ()),
        meta=d.get("meta") or {},
    )
