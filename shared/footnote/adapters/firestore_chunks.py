"""Firestore ChunkStore: ``noteChunks``, ``indexState`` and the ``tenants`` versions."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from footnote.adapters.firestore_common import (
    CHUNK_IDS,
    CHUNKS,
    CHUNKS_CHANGED_AT,
    NOTES,
    STATES,
    TENANTS,
    FirestoreRepository,
    note_from,
    state_doc,
    state_from,
)
from footnote.domain import Chunk, IndexState, IndexStatus, MemoryType, Note, same_content


class FirestoreChunkStore(FirestoreRepository):
    """ChunkStore over Firestore: chunks, index states and tenant versions."""

    def index_state(self, note_id: str) -> IndexState | None:
        snap = self.client.collection(STATES).document(note_id).get()
        return state_from(snap.id, snap.to_dict() or {}) if snap.exists else None

    def index_states(self, note_ids: Sequence[str]) -> dict[str, IndexState]:
        ids = list(dict.fromkeys(note_ids))
        if not ids:
            return {}
        refs = [self.client.collection(STATES).document(i) for i in ids]
        return {
            snap.id: state_from(snap.id, snap.to_dict() or {})
            for snap in self.client.get_all(refs)
            if snap.exists
        }

    def replace_chunks(
        self, note: Note, chunks: Sequence[Chunk], state: IndexState
    ) -> list[str] | None:
        note_ref = self.client.collection(NOTES).document(note.id)
        new_ids = {c.chunk_id for c in chunks}

        @self._fs.transactional
        def run(tx: Any) -> list[str] | None:
            snap = note_ref.get(transaction=tx)
            if not snap.exists or not same_content(note_from(snap), note):
                return None
            removed = set(self._recorded_chunk_ids(tx, note.id)) - new_ids
            for cid in removed:
                tx.delete(self.client.collection(CHUNKS).document(cid))
            for c in chunks:
                tx.set(self.client.collection(CHUNKS).document(c.chunk_id), self._chunk_doc(c))
            tx.set(
                self.client.collection(STATES).document(note.id),
                state_doc(state)
                | {CHUNK_IDS: sorted(new_ids), CHUNKS_CHANGED_AT: self._fs.SERVER_TIMESTAMP},
            )
            return sorted(removed)

        removed: list[str] | None = run(self.client.transaction(max_attempts=5))
        if removed is not None:
            self._bump(note.tenant_id)
        return removed

    def remove_chunks(self, note_id: str, state: IndexState) -> list[str] | None:
        note_ref = self.client.collection(NOTES).document(note_id)

        @self._fs.transactional
        def run(tx: Any) -> list[str] | None:
            if note_ref.get(transaction=tx).exists:
                return None
            removed = set(self._recorded_chunk_ids(tx, note_id))
            for cid in removed:
                tx.delete(self.client.collection(CHUNKS).document(cid))
            tx.set(
                self.client.collection(STATES).document(note_id),
                state_doc(state) | {CHUNK_IDS: [], CHUNKS_CHANGED_AT: self._fs.SERVER_TIMESTAMP},
            )
            return sorted(removed)

        removed: list[str] | None = run(self.client.transaction(max_attempts=5))
        if removed is not None and state.tenant_id:
            self._bump(state.tenant_id)
        return removed

    def withdraw_chunks(self, state: IndexState) -> list[str]:
        @self._fs.transactional
        def run(tx: Any) -> list[str]:
            ids = sorted(set(self._recorded_chunk_ids(tx, state.note_id)))
            self._drop_chunks(tx, ids, state)
            return ids

        ids: list[str] = run(self.client.transaction(max_attempts=5))
        self._bump(state.tenant_id)
        return ids

    def set_index_state(self, state: IndexState) -> None:
        self.client.collection(STATES).document(state.note_id).set(state_doc(state), merge=True)

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
        # By the ids each note's state records (``FirestoreRepository`` says why
        # they are all of them): point reads, where a query on noteId is a scan of
        # the collection in the emulator. The two reads are not one snapshot, and
        # need not be: a note changed between them has a chunksChangedAt after the
        # corpus's mark, so the next refresh reads it again.
        refs = [self.client.collection(STATES).document(i) for i in dict.fromkeys(note_ids)]
        states = (
            snap.to_dict() or {}
            for snap in self.client.get_all(refs, field_paths=["tenantId", CHUNK_IDS])
            if snap.exists
        )
        chunk_ids = [
            cid
            for state in states
            if state.get("tenantId") == tenant_id
            for cid in state.get(CHUNK_IDS) or ()
        ]
        return self.get_chunks(tenant_id, chunk_ids)

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
