"""Index one note: read its current state, and make its chunks match it exactly.

The event that triggered us is only a hint that something changed. We always
read the note as it is now, so replayed, duplicated and reordered events all
converge on the same chunks; an unchanged note writes nothing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import Enum

from footnote.config import Settings
from footnote.domain import IndexState, IndexStatus, MemoryType, Note
from footnote.errors import PORT_ERRORS, MalformedNote, QuotaExhausted
from footnote.ingest.chunking import chunk_id
from footnote.ingest.pipeline import PreparedNote, build_chunks, prepare
from footnote.ports import (
    ChunkStore,
    Classifier,
    CreatedNotes,
    Embedder,
    NewNote,
    NoteStore,
    TermStatsStore,
    VectorIndex,
)
from footnote.retrieval.sparse import NoteTerms, chunk_terms

log = logging.getLogger(__name__)


class Outcome(str, Enum):
    INDEXED = "indexed"
    UNCHANGED = "unchanged"
    REMOVED = "removed"
    SUPERSEDED = "superseded"  # the note changed while we worked; its own event follows
    ACCOUNT_DELETED = "account_deleted"  # the tenant's deletion began: nothing is written
    REJECTED = "rejected"  # the stored note is malformed: marked failed, not retried


@dataclass(frozen=True)
class EmbeddedNote:
    """A note's chunks with their vectors, made before the note was stored."""

    prepared: PreparedNote
    memory_type: MemoryType
    vectors: Sequence[Sequence[float]]


@dataclass(frozen=True)
class IndexResult:
    note_id: str
    outcome: Outcome
    chunk_count: int = 0
    removed: int = 0
    elapsed_ms: float = 0.0


class IndexingService:
    def __init__(
        self,
        settings: Settings,
        notes: NoteStore,
        chunks: ChunkStore,
        embedder: Embedder,
        classifier: Classifier,
        vector_index: VectorIndex,
        term_stats: TermStatsStore | None = None,
        fence: Callable[[str], bool] | None = None,
        index_reads_chunk_store: bool = False,
    ) -> None:
        """``term_stats``: kept for indexes that score keywords as sparse vectors
        (Vector Search); None when the index computes BM25 itself (in memory).
        ``fence(tenant)``: whether the tenant's account is being deleted; then the
        indexer writes nothing for it (the deletion job removes what there is).
        ``index_reads_chunk_store``: the vector index searches the chunks the chunk
        store holds (the in-memory index), so a note is fully indexed once its chunks
        are written: ``new_notes`` may then write new notes with their chunks."""
        self._fence = fence or (lambda _tenant: False)
        # Whether a chunk write alone indexes a note: nothing to upsert or count
        # elsewhere after it, so no crash after the write can leave a note "indexed"
        # without its vectors or its term statistics.
        self._chunks_alone_index = index_reads_chunk_store and term_stats is None
        self._s = settings
        self._notes = notes
        self._chunks = chunks
        self._embedder = embedder
        self._classifier = classifier
        self._index = vector_index
        self._stats = term_stats

    def index_note(self, note_id: str, force: bool = False) -> IndexResult:
        return self._guarded(note_id, lambda: self._index_note(note_id, force))

    # -- a page of new notes, embedded before they are written (imports) ------------
    def embed_notes(self, notes: Sequence[Note]) -> dict[str, EmbeddedNote]:
        """The chunks of notes about to be written, embedded in one call per tenant
        (an import's page is one tenant's) through the embedder, which splits it by
        its own batch size: by note id, for ``commit`` once each note is stored.
        Nothing is read or written here; notes of an account being deleted are left
        out. Raises what the embedder raises (``QuotaExhausted`` once its retry
        policy gives up): the notes are then written unindexed, and their trigger
        events index them."""
        s = self._s
        by_tenant: dict[str, list[Note]] = {}
        for note in notes:
            by_tenant.setdefault(note.tenant_id, []).append(note)
        embedded: dict[str, EmbeddedNote] = {}
        for tenant, theirs in by_tenant.items():
            if self._fence(tenant):
                continue
            work = [
                (note, prepare(note, self._embedder.model_id, s.chunk_size, s.chunk_overlap))
                for note in theirs
            ]
            texts = [d.text for _, p in work for d in p.drafts]
            vectors = self._embedder.embed_documents(texts, owner=tenant) if texts else []
            at = 0
            for note, prepared in work:
                count = len(prepared.drafts)
                memory_type = note.type or self._classifier.classify(note.text)
                embedded[note.id] = EmbeddedNote(prepared, memory_type, vectors[at : at + count])
                at += count
        return embedded

    def new_notes(
        self, notes: Sequence[Note], embedded: Mapping[str, EmbeddedNote]
    ) -> list[NewNote]:
        """What ``NoteStore.create_notes`` writes for notes about to be created: each
        that ``embed_notes`` embedded with its chunks and its ``indexed`` state, the
        others alone (pending, for their trigger events). A note and its chunks then
        commit together, so no trigger event finds one of them unindexed: each event
        finds its note indexed at its content and does nothing (an edit made after
        the write drops the chunks, and the edit's own event indexes the user's text).

        Only where the chunk write alone indexes a note (the in-memory index, no term
        statistics): with Vector Search the vectors and term statistics are written
        after the chunks, elsewhere, and a crash in between would leave a note
        ``indexed`` without them, which no redelivered event would mend. There every
        note is written alone (pending), and ``commit`` then indexes it with its
        vectors, by the trigger's own write."""
        model = self._embedder.model_id
        entries: list[NewNote] = []
        for note in notes:
            ready = embedded.get(note.id)
            if not self._chunks_alone_index or ready is None or ready.prepared.note != note:
                entries.append(NewNote(note))
                continue
            chunks = build_chunks(ready.prepared, ready.memory_type, ready.vectors, model)
            state = self._indexed_state(ready.prepared, ready.memory_type, len(chunks))
            entries.append(NewNote(note, chunks, state))
        return entries

    def index_created(self, entries: Sequence[NewNote], done: CreatedNotes) -> None:
        """After ``create_notes`` wrote ``entries``: what ``index_note`` does after its
        swap, for the notes it created with chunks: the vectors of an earlier note of
        the same id removed, the chunks upserted (one call for all; both no-ops for
        the in-memory index, which reads the chunk store, but the port's contract).
        A failed backend is logged, not raised (the notes are written): their states
        then say pending (a quota) or failed, and the sweep indexes them again. A bug
        is raised."""
        created = set(done.created)
        written = [e for e in entries if e.state is not None and e.note.id in created]
        if written:
            self._publish(written, done.removed)

    def _publish(self, written: Sequence[NewNote], removed: Mapping[str, list[str]]) -> None:
        """Index what ``create_notes`` wrote beyond Firestore, as ``_write`` does."""
        try:
            for entry in written:
                if removed.get(entry.note.id):
                    self._index.remove(entry.note.tenant_id, removed[entry.note.id])
            self._index.upsert([c for entry in written for c in entry.chunks])
        except PORT_ERRORS as exc:
            log.warning("%d imported notes left to the sweep: %s", len(written), type(exc).__name__)
            for entry in written:
                if isinstance(exc, QuotaExhausted):
                    self._mark_pending(entry.note.id, exc)
                else:
                    self._mark_failed(entry.note.id, exc)

    def commit(self, embedded: EmbeddedNote) -> IndexResult:
        """Index a note just written with the vectors ``embed_notes`` made for it: the
        trigger's own decision and version-checked write (``index_note``), minus the
        embedding. The stored note decides: edited meanwhile, it is left to the edit's
        event (SUPERSEDED); already indexed at this content, nothing is written
        (UNCHANGED). Errors are recorded as ``index_note`` records them (pending on
        a quota, failed otherwise) and raised."""
        note = embedded.prepared.note
        return self._guarded(note.id, lambda: self._commit_embedded(embedded))

    def _commit_embedded(self, embedded: EmbeddedNote) -> IndexResult:
        note = embedded.prepared.note
        if self._fence(note.tenant_id):
            return IndexResult(note.id, Outcome.ACCOUNT_DELETED)
        prior = self._chunks.index_state(note.id)
        if _up_to_date(prior, embedded.prepared):
            assert prior is not None
            return IndexResult(note.id, Outcome.UNCHANGED, prior.chunk_count)
        return self._write(embedded.prepared, embedded.memory_type, embedded.vectors)

    # -- one note, read as it is now (the trigger) ---------------------------------
    def _guarded(self, note_id: str, work: Callable[[], IndexResult]) -> IndexResult:
        started = time.perf_counter()
        try:
            result = work()
        except MalformedNote as exc:
            # A bad event, not a transient failure: retrying cannot fix the note, so
            # it is marked failed (the sweep and GET /notes show it) and acknowledged.
            log.error("not indexing malformed note %s: %s", note_id, exc.problem)
            if exc.tenant_id:  # its old chunks must not stay citable
                failed = replace(self._failed_state(note_id, exc, exc.tenant_id), chunk_count=0)
                removed = self._chunks.withdraw_chunks(failed)
                if removed:
                    self._index.remove(exc.tenant_id, removed)
            else:
                self._mark_failed(note_id, exc)
            result = IndexResult(note_id, Outcome.REJECTED)
        except QuotaExhausted as exc:
            # A quota (Vertex AI embeddings or Vector Search said RESOURCE_EXHAUSTED
            # for longer than a write may wait), not a fault of the note: it stays
            # pending, with its prior chunks, and the event is raised back, so the
            # trigger (or the re-index subscription) delivers it again after its own
            # backoff. Pending, not indexed, so that delivery redoes the writes.
            log.warning("indexing %s waits for quota: %s", note_id, exc.message)
            self._mark_pending(note_id, exc)
            raise
        except PORT_ERRORS as exc:
            # A backend failed: marked failed for the sweep, and raised so the event
            # is delivered again. A bug is neither caught nor recorded as the note's
            # failure: it surfaces as itself (the note keeps its state; pending ones
            # are swept all the same).
            self._mark_failed(note_id, exc)
            raise
        return replace(result, elapsed_ms=round((time.perf_counter() - started) * 1000, 1))

    def _index_note(self, note_id: str, force: bool) -> IndexResult:
        note = self._notes.read_note(note_id)
        prior = self._chunks.index_state(note_id)
        tenant_of = note.tenant_id if note is not None else (prior.tenant_id if prior else "")
        if tenant_of and self._fence(tenant_of):
            return IndexResult(note_id, Outcome.ACCOUNT_DELETED)
        if note is None and prior is None:
            # Never stored, or removed with its whole account: nothing names its
            # chunks, and writing a state would leave a document behind.
            return IndexResult(note_id, Outcome.REMOVED)
        if note is None:
            tenant = prior.tenant_id if prior else ""
            removed = self._chunks.remove_chunks(
                note_id, IndexState(note_id, tenant, IndexStatus.DELETED)
            )
            if removed is None:
                return IndexResult(note_id, Outcome.SUPERSEDED)
            if prior is not None and prior.status in (IndexStatus.PENDING, IndexStatus.FAILED):
                # An earlier delivery may have dropped the chunks and then failed to
                # remove their vectors (a quota, say): its state kept how many there
                # were, and the store has forgotten them. Removing is idempotent.
                redo = (chunk_id(note_id, i) for i in range(prior.chunk_count))
                removed = sorted(set(removed).union(redo))
            if self._stats is not None and tenant:
                # the tombstone subtracts the note's terms and outlives late indexers
                self._stats.record(tenant, note_id, None, None)
            if removed and tenant:
                try:
                    self._index.remove(tenant, removed)
                except PORT_ERRORS as exc:
                    self._keep_unremoved(note_id, tenant, removed, exc)
                    raise
            return IndexResult(note_id, Outcome.REMOVED, removed=len(removed))

        s = self._s
        prepared = prepare(note, self._embedder.model_id, s.chunk_size, s.chunk_overlap)
        if not force and _up_to_date(prior, prepared):
            assert prior is not None
            return IndexResult(note_id, Outcome.UNCHANGED, prior.chunk_count)

        memory_type = note.type or self._classifier.classify(note.text)
        vectors = self._embedder.embed_documents(
            [d.text for d in prepared.drafts], owner=note.tenant_id
        )
        return self._write(prepared, memory_type, vectors)

    def _write(
        self, prepared: PreparedNote, memory_type: MemoryType, vectors: Sequence[Sequence[float]]
    ) -> IndexResult:
        """Swap the note's chunks for these, if the stored note is still this version."""
        note = prepared.note
        chunks = build_chunks(prepared, memory_type, vectors, self._embedder.model_id)
        state = self._indexed_state(prepared, memory_type, len(chunks))
        removed = self._chunks.replace_chunks(note, chunks, state)
        if removed is None:
            return IndexResult(note.id, Outcome.SUPERSEDED)
        if self._stats is not None:
            # After the swap, outside its transaction; before the upsert, whose
            # sparse weights read the tenant's average chunk length. A failure here
            # marks the note failed, so the sweep redoes it (record is idempotent).
            self._stats.record(
                note.tenant_id,
                note.id,
                note.updated_at,
                NoteTerms.of(chunk_terms(c) for c in chunks),
            )
        if removed:
            self._index.remove(note.tenant_id, removed)
        self._index.upsert(chunks)
        return IndexResult(note.id, Outcome.INDEXED, len(chunks), len(removed))

    def _indexed_state(
        self, prepared: PreparedNote, memory_type: MemoryType, chunk_count: int
    ) -> IndexState:
        note = prepared.note
        return IndexState(
            note_id=note.id,
            tenant_id=note.tenant_id,
            status=IndexStatus.INDEXED,
            content_hash=prepared.content_hash,
            chunk_count=chunk_count,
            model=self._embedder.model_id,
            source_update_time=note.updated_at,
            memory_type=memory_type,
        )

    def _keep_unremoved(
        self, note_id: str, tenant: str, chunk_ids: list[str], failure: Exception
    ) -> None:
        """Keep how many vectors are still to remove in the deleted note's state
        (``index_note`` then marks it pending or failed), so a redelivery finds them."""
        positions = [int(t) for c in chunk_ids if (t := c.rsplit("_", 1)[-1]).isdigit()]
        state = IndexState(
            note_id, tenant, IndexStatus.DELETED, chunk_count=1 + max(positions, default=-1)
        )
        self._record(failure, "the vectors left to remove", note_id, lambda: state)

    def _failed_state(self, note_id: str, exc: Exception, tenant_id: str = "") -> IndexState:
        prior = self._chunks.index_state(note_id)
        if tenant_id:
            tenant = tenant_id
        else:
            note = self._notes.read_note(note_id)
            tenant = note.tenant_id if note else (prior.tenant_id if prior else "")
        return IndexState(
            note_id=note_id,
            tenant_id=tenant,
            status=IndexStatus.FAILED,
            content_hash=prior.content_hash if prior else "",
            chunk_count=prior.chunk_count if prior else 0,
            model=prior.model if prior else "",
            source_update_time=datetime.now(UTC),
            error=type(exc).__name__,
            attempts=(prior.attempts if prior else 0) + 1,
        )

    def _mark_pending(self, note_id: str, exc: Exception) -> None:
        def pending() -> IndexState:
            state = self._failed_state(note_id, exc)
            attempts = max(state.attempts - 1, 0)  # not a failure: the count stands
            return replace(state, status=IndexStatus.PENDING, attempts=attempts)

        self._record(exc, "the quota wait", note_id, pending)

    def _mark_failed(self, note_id: str, exc: Exception) -> None:
        self._record(exc, "the failure", note_id, lambda: self._failed_state(note_id, exc))

    def _record(
        self, failure: Exception, what: str, note_id: str, state: Callable[[], IndexState]
    ) -> None:
        """Record ``failure`` in the note's index state, while it is being handled (its
        caller raises it, or logs it). The store failing as well must not hide it: the
        store's error is logged and noted on ``failure``, which goes on as the error.
        A bug here is not caught: it surfaces, ``failure`` as its context."""
        try:
            self._chunks.set_index_state(state())
        except PORT_ERRORS as exc:
            log.exception("could not record %s of %s", what, note_id)
            failure.add_note(f"recording {what} of {note_id} failed: {type(exc).__name__}")


def _up_to_date(prior: IndexState | None, prepared: PreparedNote) -> bool:
    """Whether the note is indexed at this content already: the one test of "nothing
    to do", for a trigger event and for an import's own indexing alike."""
    return (
        prior is not None
        and prior.status is IndexStatus.INDEXED
        and prior.content_hash == prepared.content_hash
    )
