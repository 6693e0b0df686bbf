"""The narrow interfaces behind which every external dependency sits.

Each port has one production and one offline implementation in ``adapters/``,
and one contract suite in ``tests/contract`` that both must pass.

Why this module is over ~400 lines: it is the whole boundary between the core and
the outside, in one place to read; each port is a short Protocol (the Generator, a
small base class) with the values it speaks in.
"""

from __future__ import annotations

import collections.abc
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any, BinaryIO, Protocol, runtime_checkable

from footnote.domain import (
    ChangeBatch,
    ChangeMark,
    Chunk,
    ConversationPage,
    DeletionJob,
    Draft,
    ExportJob,
    Hit,
    ImportJob,
    IndexState,
    Job,
    MemoryType,
    ModelReading,
    Note,
    NoteChanges,
    NoteEdit,
    NotePage,
    QueryAnalysis,
    ScoredChunk,
    Source,
    TimeWindow,
    Turn,
)
from footnote.retrieval.sparse import NoteTerms, TermStatistics

Vector = Sequence[float]
# A generator's text in pieces, as it is written; closing it stops the model.
Pieces = collections.abc.Generator[str, None, None]


# Documents one atomic write may change (Firestore's limit per commit): what
# ``NoteStore.create_notes`` takes at once, counted by ``NewNote.writes``.
ATOMIC_WRITES = 500


@dataclass(frozen=True)
class NewNote:
    """A note to create together with what indexes it: its chunks and the state that
    records them (``IndexStatus.INDEXED`` at its content hash). Without a state the
    note is created pending, as ``create_note`` creates it, for its trigger event."""

    note: Note
    chunks: Sequence[Chunk] = ()
    state: IndexState | None = None

    @property
    def writes(self) -> int:
        """Documents its creation writes: the note, its change entry, its index state
        and each chunk (a chunk of an earlier note of the same id removed is one more,
        rare enough to be left to the margin under ``ATOMIC_WRITES``)."""
        return 3 + len(self.chunks)


@dataclass(frozen=True)
class CreatedNotes:
    """What ``create_notes`` did: the ids it created, the ids that existed already
    (nothing written for them), and per created note the chunk ids of an earlier
    note of the same id that its chunks replaced (their vectors are to remove)."""

    created: list[str]
    existing: list[str]
    removed: dict[str, list[str]] = field(default_factory=dict)


def check_atomic(entries: Sequence[NewNote]) -> None:
    """``create_notes``' limit, checked before anything is written."""
    writes = sum(e.writes for e in entries)
    if writes > ATOMIC_WRITES:
        raise ValueError(f"{writes} documents in one atomic write: at most {ATOMIC_WRITES}")


@runtime_checkable
class NoteStore(Protocol):
    """Notes as users see them. Every call but ``read_note`` is tenant-scoped."""

    def create_note(self, note: Note) -> Note:
        """Create the note with its own id and dates; ``Conflict`` if the id exists."""
        ...

    def create_notes(self, entries: Sequence[NewNote]) -> CreatedNotes:
        """Create new notes of one tenant, each with its chunks and index state, in one
        atomic write (all or nothing; at most ``ATOMIC_WRITES`` documents, counted by
        ``NewNote.writes``, else ``ValueError`` before anything is written). A note
        whose id exists already is left as it is and reported ``existing``; refused
        like ``create_note`` once the tenant's deletion has begun. No trigger event of
        a created note can find it without its chunks: they commit together."""
        ...

    def existing_note_ids(self, tenant_id: str, note_ids: Sequence[str]) -> set[str]:
        """Which of these ids name a note of the tenant: one batched read."""
        ...

    def get_note(self, tenant_id: str, note_id: str) -> Note | None: ...

    def update_note(
        self,
        tenant_id: str,
        note_id: str,
        changes: NoteChanges,
        now: datetime,
        if_match: frozenset[int] | None = None,
    ) -> NoteEdit | None:
        """Apply the changes; return the note as the update found it and as it wrote
        it (None if there was none), both from the update's own atomic write, so what
        the caller accounts for (the length it replaced, for the stored-characters
        quota) is what the update replaced, not an earlier read. The written note's
        ``version`` is one more than the one it replaced.

        ``if_match``: the versions the caller edited; when the stored version is not
        one of them, nothing is written and ``PreconditionFailed`` carries the current
        note, at once (no waiting on other writers). Without it, the last write wins.
        """
        ...

    def delete_note(
        self, tenant_id: str, note_id: str, if_match: frozenset[int] | None = None
    ) -> Note | None:
        """Delete the note; return it as the delete found it (None if there was none),
        read by the delete's own atomic write, so what the caller accounts for (its
        length, for the stored-characters quota) is what went, not an earlier read.
        ``if_match`` as for ``update_note``."""
        ...

    def list_notes(self, tenant_id: str, limit: int, cursor: str | None) -> NotePage: ...

    def note_changes(self, tenant_id: str, after: ChangeMark | None, limit: int) -> ChangeBatch:
        """The tenant's notes whose latest create, edit or delete committed after
        ``after`` (from the start when None), in commit order, at most ``limit``.

        Every write of a note records its change in the same atomic write, at its
        commit moment, so a reader that goes on from ``last`` misses no change
        committed later and sees each note's latest state (its deletion as a
        tombstone) at least once."""
        ...

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

    def index_states(self, note_ids: Sequence[str]) -> dict[str, IndexState]:
        """The index states of these notes, by note id (a note without one is left
        out): one batched read, for a page of the notes list."""
        ...

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

    def withdraw_chunks(self, state: IndexState) -> list[str]:
        """Drop a note's chunks whatever its state (a note that cannot be indexed
        must not stay citable by its old chunks) and record ``state`` (why) in the
        same write, so no reader sees the withdrawal without its reason; the ids,
        for vector removal."""
        ...

    def tenant_chunks(self, tenant_id: str) -> list[Chunk]: ...

    def tenant_chunk_pages(self, tenant_id: str, page_size: int = 500) -> Iterator[list[Chunk]]:
        """All the tenant's chunks, a page at a time (a cold in-memory load)."""
        ...

    def tenant_version(self, tenant_id: str) -> int:
        """A counter that changes whenever the tenant's chunks change."""
        ...

    def tenant_version_mark(self, tenant_id: str) -> tuple[int, Any]:
        """The tenant's version and a change mark taken at the same read: every chunk
        change committed after the mark is found by ``notes_changed_since(mark)``,
        and every one before it is visible to any read that follows."""
        ...

    def notes_changed_since(self, tenant_id: str, mark: Any, limit: int) -> list[str] | None:
        """Ids of the tenant's notes whose chunks changed after ``mark``, or None when
        there are more than ``limit`` of them (or no mark): then load everything."""
        ...

    def chunks_of_notes(self, tenant_id: str, note_ids: Sequence[str]) -> list[Chunk]:
        """The current chunks of these notes of the tenant (none for a deleted note)."""
        ...

    def get_chunks(self, tenant_id: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """These chunks of the tenant that still exist, in the order asked: one
        batched read, the only chunk reads of a production query. A note deleted or
        edited through the API loses its chunks in the same transaction, so a
        vector hit of a deleted or stale note finds nothing here."""
        ...

    def unindexed_note_ids(self, after: str | None, limit: int) -> list[str]:
        """Notes whose index state is pending or failed, in id order."""
        ...


@runtime_checkable
class ConversationStore(Protocol):
    """Conversations and their turns. Every read is tenant-scoped."""

    def append_turns(self, turns: Sequence[Turn]) -> None:
        """Store the turns and bring their conversation's summary up to date (its
        latest activity and message count; its title and creation when they start
        it), in one write."""
        ...

    def list_conversations(
        self, tenant_id: str, limit: int, cursor: str | None
    ) -> ConversationPage:
        """A page of the tenant's conversations, latest activity first (ties by id,
        descending); ``cursor`` is the previous page's. A bad cursor raises
        InvalidRequest."""
        ...

    def conversation_turns(self, tenant_id: str, conversation_id: str) -> list[Turn] | None: ...

    def turn(self, tenant_id: str, message_id: str) -> Turn | None: ...


@runtime_checkable
class Store(NoteStore, ChunkStore, ConversationStore, Protocol):
    """The note, chunk and conversation ports as one store serves them (Firestore, or
    in memory): the chunk swap commits against the note in one transaction."""


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dimension: int

    def embed_documents(self, texts: Sequence[str], owner: str | None = None) -> list[list[float]]:
        """``owner``: the tenant whose text this is. A caching embedder keeps the
        vectors under that tenant (so deleting the account finds them) and keeps
        texts without an owner in process memory only."""
        ...

    def embed_query(self, text: str) -> list[float]: ...


@runtime_checkable
class EmbeddingCache(Protocol):
    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]: ...

    def put_many(self, items: Mapping[str, Sequence[float]], owner: str | None = None) -> None:
        """Store the vectors; ``owner`` (a tenant) is recorded with each entry."""
        ...


@dataclass(frozen=True)
class VectorQuery:
    tenant_id: str
    vector: Vector
    k: int
    window: TimeWindow | None = None
    types: tuple[MemoryType, ...] = ()


@dataclass(frozen=True)
class HybridQuery:
    """One retrieval request to an index that serves both halves of hybrid search.

    ``keywords`` are the stemmed query terms (``footnote.text.terms``); each index
    weighs them its own way (exact BM25 in memory, a sparse query vector with the
    tenant's IDF in Vector Search). ``vector`` is None when the embedder is down.
    Only vectors of ``model_id`` may be compared with ``vector``.
    """

    tenant_id: str
    model_id: str
    vector: Vector | None
    keywords: tuple[str, ...]
    k: int
    window: TimeWindow | None = None
    types: tuple[MemoryType, ...] = ()


@dataclass(frozen=True)
class Neighbor:
    """A candidate chunk as an index returns it: enough to fuse, gate and diversify
    without reading the chunk document (only the k winners are read)."""

    chunk_id: str
    score: float  # this list's raw score: cosine (dense), BM25 dot product (keyword)
    created: float  # epoch seconds of the note's creation
    vector: tuple[float, ...] | None = None  # the dense vector, when its model matches
    memory_type: MemoryType | None = None  # when the index returns it


@dataclass(frozen=True)
class HybridHits:
    dense: list[Neighbor]  # best first; empty when the query had no vector
    keyword: list[Neighbor]  # best first; only chunks holding a query term
    # Most recent first over the whole filtered tenant, where the index can say
    # (in memory); an empty list lets the retriever rank recency among candidates.
    recent: list[Neighbor] = field(default_factory=list)


@runtime_checkable
class VectorIndex(Protocol):
    name: str

    def upsert(self, chunks: Sequence[Chunk]) -> None: ...

    def remove(self, tenant_id: str, chunk_ids: Sequence[str]) -> None: ...

    def search(self, query: VectorQuery) -> list[Hit]: ...

    def search_hybrid(self, query: HybridQuery) -> HybridHits:
        """Dense and keyword neighbours of one query, restricted to the tenant, the
        query's model, time window and types, in one round trip."""
        ...


class Generator(ABC):
    """A language model behind one method, in the shape of simonw/llm's ``Model``.

    A subclass implements :meth:`execute`: the answer's text, in pieces as it is
    written (``stream``) or in one piece. :meth:`generate` (one answer, folded) and
    :meth:`stream` (the pieces) are what callers use; both go through ``execute``,
    so the two are the same answer asked two ways. :meth:`rewrite_question` reads a
    follow-up with the conversation's last turns (``history``, as (role, text),
    oldest first; empty for a first question); a generator without a language model
    keeps the default, None, and the question is then read offline
    (``footnote.query.plan``).
    """

    model: str

    @abstractmethod
    def execute(
        self,
        question: str,
        sources: Sequence[Source],
        analysis: QueryAnalysis,
        strict: bool,
        history: Sequence[tuple[str, str]],
        stream: bool,
    ) -> Pieces:
        """The answer's text: sentence by sentence or as the model sends it when
        ``stream``, in one piece otherwise. A failure raises (an UPSTREAM_ERROR)."""

    def generate(
        self,
        question: str,
        sources: Sequence[Source],
        analysis: QueryAnalysis,
        strict: bool,
        history: Sequence[tuple[str, str]] = (),
    ) -> Draft:
        text = "".join(self.execute(question, sources, analysis, strict, history, stream=False))
        return Draft(text, self.model)

    def stream(
        self,
        question: str,
        sources: Sequence[Source],
        analysis: QueryAnalysis,
        history: Sequence[tuple[str, str]] = (),
    ) -> Pieces:
        return self.execute(question, sources, analysis, False, history, stream=True)

    def rewrite_question(self, message: str, history: Sequence[tuple[str, str]]) -> str | None:
        """``message`` as a standalone question for retrieval, or None: this generator
        has no language model to rewrite with, and the question is read offline."""
        return None

    def read_question(
        self, message: str, history: Sequence[tuple[str, str]], now: datetime, language: str
    ) -> ModelReading | None:
        """The model's whole reading of a follow-up (asked at ``now``, the user's local
        time, in ``language``): by default the rewrite alone; a generator that can
        return structured output reads the window, types, intent and keywords too.
        None: no model, the question is read offline."""
        rewritten = self.rewrite_question(message, history)
        return None if rewritten is None else ModelReading(rewritten)


@runtime_checkable
class Reranker(Protocol):
    """An optional stage between retrieval and generation: reorder the retrieved chunks.

    Returns the same chunks (a permutation, none added or dropped), best first.
    A failure raises; the chat service then keeps the retrieval order.
    """

    name: str

    def rerank(self, query: str, chunks: Sequence[ScoredChunk]) -> list[ScoredChunk]: ...


@runtime_checkable
class Grounder(Protocol):
    """How far each cited source supports one claim (a sentence of an answer).

    Returns one score in [0, 1] per source, in order; a citation is kept at
    ``threshold`` or above. ``language`` is the answer's, ``zone`` the user's (a
    source's relative dates are read from its note's local day); ``others`` are the
    answer's other sources (a name only another note gives is another person's);
    ``asked`` the question it answers (what the user said, the answer may repeat). A
    failure raises; the answer is then checked by the offline grounder.
    """

    name: str
    threshold: float

    def support(
        self,
        claim: str,
        sources: Sequence[Source],
        language: str,
        zone: tzinfo | None,
        others: Sequence[Source] = (),
        asked: str = "",
    ) -> list[float]: ...


@runtime_checkable
class Classifier(Protocol):
    def classify(self, text: str) -> MemoryType: ...


@runtime_checkable
class TokenVerifier(Protocol):
    def verify(self, token: str, fresh: bool = False, check_account: bool = True) -> str:
        """The caller's user id; raises Unauthenticated for any bad token, and for a
        token of an account deleted, disabled or signed out everywhere. ``fresh``:
        check the account now (writes); otherwise a recent check may be reused.
        ``check_account=False``: the token alone (signature, expiry, audience), for
        the one request a closed account may still make, asking again for its own
        deletion."""
        ...


@runtime_checkable
class ReindexQueue(Protocol):
    def publish(self, message: Mapping[str, Any]) -> None: ...


@runtime_checkable
class QuotaCounter(Protocol):
    """Per-user counters shared by every API instance (Firestore in production)."""

    def consume(self, key: str, amount: int, limit: int, expires_at: datetime | None) -> int | None:
        """Atomically add ``amount`` to the counter ``key`` if the total stays within
        ``limit`` and return the new total; if it would not, add nothing and return
        None. A negative amount (a release) always applies, never below zero.
        ``expires_at`` lets the store drop the counter after its window (a TTL)."""
        ...

    def value(self, key: str) -> int:
        """The counter's current total (0 if it does not exist)."""
        ...


@dataclass(frozen=True)
class StoredResponse:
    """A response as an idempotency record keeps it, to answer a retry with it."""

    status: int
    body: bytes
    mimetype: str
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class IdempotencyRecord:
    """A claimed ``Idempotency-Key``: the request it was first used with
    (``fingerprint``), and its response once there is one (None while it runs)."""

    fingerprint: str
    started_at: datetime
    expires_at: datetime
    response: StoredResponse | None = None
    # Whose request it was: account deletion finds a tenant's keys (and the responses
    # they keep, which hold note text) by it.
    tenant_id: str = ""


@runtime_checkable
class IdempotencyStore(Protocol):
    """Idempotency keys shared by every API instance (``idempotencyKeys`` in
    Firestore). ``key`` is already scoped (tenant, endpoint) and hashed by the caller."""

    def claim(
        self, key: str, record: IdempotencyRecord, now: datetime, lease_s: float
    ) -> IdempotencyRecord | None:
        """Store ``record`` (pending) under ``key`` unless a live record is there:
        None when this caller claimed it, else the record found. A record past its
        ``expires_at``, or still pending ``lease_s`` after it started (its request
        died), is purged here and the key claimed anew."""
        ...

    def complete(self, key: str, response: StoredResponse) -> None:
        """Record the response of the request that claimed ``key``."""
        ...

    def release(self, key: str) -> None:
        """Forget the claim (the request failed): a retry runs again."""
        ...


@runtime_checkable
class AppCheckVerifier(Protocol):
    def verify(self, token: str) -> str:
        """The Firebase app id the App Check token was issued to; raises
        Unauthenticated for a missing, forged or expired token."""
        ...


@runtime_checkable
class TermStatsStore(Protocol):
    """Each tenant's BM25 term statistics — chunk count, total chunk length and df
    per term id — for indexes that score keywords as a sparse dot product.

    The indexer ``record``s a note's contribution after its chunk swap committed;
    queries read ``statistics`` (cached: at most ``ttl`` old in production).
    """

    def record(
        self, tenant_id: str, note_id: str, version: datetime | None, terms: NoteTerms | None
    ) -> None:
        """Make the note's contribution ``terms`` (its current chunks'), idempotently.

        ``version`` is the note's ``updated_at`` for the chunks just swapped in: an
        older version than the one recorded changes nothing (a late indexer).
        ``terms=None`` records that the note is gone, for good: its contribution is
        subtracted and no later record for it counts.
        """
        ...

    def statistics(self, tenant_id: str) -> TermStatistics: ...


@runtime_checkable
class JobStore(Protocol):
    """Re-index job progress (``reindexJobs/{jobId}`` in Firestore)."""

    def create(self, job_id: str, scope: str, tenant_id: str | None) -> Job: ...

    def get_or_create(self, job_id: str, scope: str, tenant_id: str | None) -> Job: ...

    def get(self, job_id: str) -> Job | None: ...

    def advance(
        self, job_id: str, expected: str | None, cursor: str | None, processed: int, done: bool
    ) -> bool:
        """Move the job from ``expected`` to ``cursor``; False if it was not at ``expected``."""
        ...


@runtime_checkable
class TenantData(Protocol):
    """Everything the database holds for a tenant, as account deletion sees it, and
    the deletion job's record (``accountDeletions/{jobId}``), which is also the fence:
    while it exists the tenant's writes are refused.

    Areas are the names of ``footnote.domain.DELETION_STEPS`` that hold documents."""

    def begin_deletion(self, job_id: str, now: datetime) -> DeletionJob:
        """Create the job (and so the fence) unless it exists; the job as stored."""
        ...

    def deletion(self, job_id: str) -> DeletionJob | None: ...

    def record_step(self, job_id: str, step: str, deleted: Mapping[str, int]) -> None:
        """The job now starts at ``step``; ``deleted`` adds to its counts."""
        ...

    def is_deleting(self, tenant_id: str) -> bool:
        """Whether the tenant's account is being (or was) deleted: one read."""
        ...

    def vector_page(self, tenant_id: str, area: str, limit: int) -> tuple[list[str], list[str]]:
        """A page of the ``chunks`` or ``states`` area: the document ids and the chunk
        (datapoint) ids they name. Empty when the area is empty."""
        ...

    def delete_documents(self, area: str, doc_ids: Sequence[str]) -> None: ...

    def purge(self, tenant_id: str, area: str, limit: int) -> int:
        """Delete up to ``limit`` of the tenant's documents in ``area``; how many went
        (0: the area is empty)."""
        ...

    def tenants_after(self, after: str | None, limit: int) -> list[str]:
        """Up to ``limit`` ids, in order, of the tenants that hold any data, each
        greater than ``after``: the orphan sweep's walk over every tenant."""
        ...


@dataclass(frozen=True)
class AuthUser:
    uid: str
    email: str | None


@runtime_checkable
class AccountAuth(Protocol):
    """The identity provider's admin side (Firebase Auth), for account deletion."""

    def user(self, uid: str) -> AuthUser | None:
        """The user, or None when there is none (deleted)."""
        ...

    def revoke(self, uid: str) -> None:
        """End the user's sessions: revoke their refresh tokens and disable sign-in
        (a deleted account must not sign in while its data is being deleted);
        nothing when the user is gone."""
        ...

    def delete(self, uid: str) -> None:
        """Delete the user; nothing when the user is gone."""
        ...


@runtime_checkable
class BlobStore(Protocol):
    """Uploaded and generated files (Cloud Storage; the Storage emulator locally).

    Object names are ``users/{uid}/...``: each user's files under their own prefix,
    which the Storage security rules enforce for client uploads. Reads are streamed
    and seekable (a zip's directory sits at its end), so no file is held whole."""

    def open_read(self, name: str) -> BinaryIO:
        """A seekable binary stream of the object; ``FileNotFoundError`` if absent."""
        ...

    def open_write(self, name: str, content_type: str) -> AbstractContextManager[BinaryIO]:
        """A stream that becomes the object when the context closes without error
        (nothing is written when it raises)."""
        ...

    def size(self, name: str) -> int | None:
        """The object's size in bytes, or None if there is none."""
        ...

    def names(self, prefix: str) -> Iterator[str]:
        """Every object name under the prefix."""
        ...

    def delete_prefix(self, prefix: str) -> int:
        """Delete every object under the prefix; how many went."""
        ...

    def folders(self, prefix: str) -> Iterator[str]:
        """The names of the "folders" right under the prefix ("users/" -> each uid),
        without listing the objects inside them."""
        ...

    def upload_session(
        self, name: str, content_type: str, size: int, origin: str | None
    ) -> str | None:
        """A URL to which a client PUTs exactly ``size`` bytes that become this one
        object (a resumable upload session, created with the caller's rights, for a
        browser at ``origin``); None if this store takes no uploads from clients."""
        ...

    def cancel_upload(self, url: str) -> None:
        """End an upload session: a PUT to its URL creates nothing any more (Cloud
        Storage answers the session's DELETE with 499). Nothing when it is over."""
        ...


def snapshot_object(tenant_id: str) -> str:
    """Where a tenant's index snapshot is kept among its files: under ``users/{uid}/``,
    so account deletion and the orphan sweep remove it with the rest, and outside
    ``uploads/``, so no client can write it (storage.rules)."""
    if not tenant_id or "/" in tenant_id:
        raise ValueError(f"not a tenant id: {tenant_id!r}")
    return f"users/{tenant_id}/index/corpus.fnsnap"


@runtime_checkable
class IndexSnapshots(Protocol):
    """Each tenant's index snapshot (``footnote.retrieval.snapshot``): one object per
    tenant, replaced whole (Cloud Storage; the storage emulator locally; memory)."""

    def read(self, tenant_id: str) -> bytearray | None:
        """The snapshot's bytes in a writable buffer, or None when there is none."""
        ...

    def write(self, tenant_id: str, data: bytes) -> None:
        """Replace the tenant's snapshot: readers see the old one or the new one whole."""
        ...

    def delete(self, tenant_id: str) -> None:
        """Remove the tenant's snapshot (nothing when there is none)."""
        ...


@runtime_checkable
class ImportJobStore(Protocol):
    """Import jobs (``imports/{jobId}`` in Firestore, with their ``tenantId``)."""

    def create(self, job: ImportJob) -> ImportJob:
        """Store the job unless one with its id exists; the job as stored."""
        ...

    def get(self, job_id: str) -> ImportJob | None: ...

    def save(self, job: ImportJob, expected_cursor: int) -> bool:
        """Replace the stored job if it is still at ``expected_cursor`` and not
        cancelled; False otherwise (another delivery moved it, or it was cancelled)."""
        ...

    def cancel(self, job_id: str) -> ImportJob | None:
        """Mark an unfinished job cancelled; the job as stored (None if none)."""
        ...

    def unfinished(self, limit: int) -> list[ImportJob]:
        """Up to ``limit`` jobs queued or running, of every tenant (the job sweep)."""
        ...

    def record_upload(self, tenant_id: str, upload_id: str, url: str, expires: datetime) -> None:
        """An upload session handed out (``uploadSessions/{id}``, its TTL ``expires``):
        account deletion cancels it, so its URL cannot create a file afterwards."""
        ...

    def uploads(self, tenant_id: str, limit: int) -> list[tuple[str, str]]:
        """Up to ``limit`` of the tenant's recorded sessions: (upload id, URL)."""
        ...

    def forget_uploads(self, upload_ids: Sequence[str]) -> None: ...


@runtime_checkable
class ExportJobStore(Protocol):
    """Export jobs (``exports/{jobId}`` in Firestore, with their ``tenantId``)."""

    def create(self, job: ExportJob) -> ExportJob:
        """Store the job unless one with its id exists; the job as stored."""
        ...

    def get(self, job_id: str) -> ExportJob | None: ...

    def save(self, job: ExportJob) -> None: ...

    def unfinished(self, limit: int) -> list[ExportJob]:
        """Up to ``limit`` jobs not done or failed, of every tenant (the job sweep)."""
        ...

    def claim(self, job: ExportJob, now: datetime) -> bool:
        """Stamp the stored job ``updated_at=now`` if it is unfinished and nothing has
        stamped it since ``job`` was read (its ``updated_at`` is unchanged); False
        otherwise: a run began meanwhile, or another sweep took it."""
        ...
