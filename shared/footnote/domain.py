"""Plain, immutable data that flows between pipeline stages.

Why this module is over 450 lines: it holds only values (enums and frozen
dataclasses) that every layer imports, so they stay in one module without import
cycles and are read in one place.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from enum import Enum
from typing import Any


class MemoryType(str, Enum):
    DECISION = "decision"
    METRIC = "metric"
    FEEDBACK = "feedback"
    TASK = "task"
    RESEARCH = "research"
    NOTE = "note"


class Intent(str, Enum):
    DECISION = "decision"
    FACTUAL = "factual"
    LIST = "list"
    SUMMARY = "summary"
    TIMELINE = "timeline"


class IndexStatus(str, Enum):
    PENDING = "pending"
    INDEXED = "indexed"
    FAILED = "failed"
    DELETED = "deleted"


class Strategy(str, Enum):
    """How retrieval found an answer's sources: ``meta.retrieval.strategy`` in the API,
    its OpenAPI description and the logs."""

    HYBRID = "hybrid_reranked"
    # Hybrid, but the configured vector index (Vector Search) failed and another
    # stood in: which one, so clients and dashboards see it without parsing logs.
    HYBRID_MEMORY_FALLBACK = "hybrid_reranked_memory_fallback"  # the in-memory index
    HYBRID_FIRESTORE_FALLBACK = "hybrid_reranked_firestore_fallback"  # find_nearest
    KEYWORD_RECENCY = "keyword_recency"  # no query vector (the embedder failed)
    RECENT_NOTES = "recent_notes"  # nothing relevant: the newest notes, unmatched
    # The question asks what was written in a period ("what happened last week?"): no
    # word of it is in the period's notes, which are the sources, oldest first.
    PERIOD_NOTES = "period_notes"
    NONE = "none"  # the tenant has no indexed notes
    DISABLED = "disabled"  # the request turned retrieval off (enableRag false)


class Fallback(str, Enum):
    """A degraded step of one request, listed in ``meta.fallbacks`` and
    ``meta.retrieval.fallbacks`` (docs/vertex.md has what each costs)."""

    # retrieval
    VECTOR_INDEX_MEMORY = "vector_index_memory"
    VECTOR_INDEX_FIRESTORE = "vector_index_firestore"
    EMBEDDER_DOWN = "embedder_down"
    EMBEDDING_MODEL_MISMATCH = "embedding_model_mismatch"
    EMBEDDING_MODEL_MIXED = "embedding_model_mixed"
    TYPE_FILTER_RELAXED = "type_filter_relaxed"
    STALE_HITS_DROPPED = "stale_hits_dropped"
    TIME_WINDOW_AS_KEYWORDS = "time_window_as_keywords"
    TIME_WINDOW_WIDENED = "time_window_widened"
    # chat
    REWRITE_SKIPPED = "rewrite_skipped"
    RERANKER_SKIPPED = "reranker_skipped"
    GENERATOR_QUOTE = "generator_quote"
    GENERATOR_UNAVAILABLE = "generator_unavailable"
    GROUNDING_LOCAL = "grounding_local"  # the grounding API failed: checked offline


@dataclass(frozen=True)
class Note:
    id: str
    tenant_id: str
    text: str
    created_at: datetime
    updated_at: datetime
    title: str = ""
    tags: tuple[str, ...] = ()
    type: MemoryType | None = None  # set by the user; otherwise classified
    # Moves by one with every write through the API: the note's ETag. 0 for a note
    # written behind the API's back without one.
    version: int = 0


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


@dataclass(frozen=True)
class NoteEdit:
    """An edit as its store transaction saw it: the note it replaced and the note it
    wrote. ``before`` is read inside that transaction, so a caller accounting for the
    change (the stored-characters quota) sees what the edit really replaced."""

    before: Note
    after: Note


@dataclass(frozen=True)
class ChangeMark:
    """A position in a tenant's change feed: the commit moment of a note's latest
    change and its id (ties)."""

    moment: datetime
    note_id: str


@dataclass(frozen=True)
class NoteChange:
    """A note's latest change: the note as it is now, or None once it is deleted
    (a tombstone, at ``mark.moment``)."""

    mark: ChangeMark
    note: Note | None


@dataclass(frozen=True)
class ChangeBatch:
    """Changes after a mark in commit order; ``last`` is the mark of the last entry
    read (a note deleted since its entry was read is left out, to come back as its
    tombstone), ``more`` whether entries follow."""

    changes: list[NoteChange]
    last: ChangeMark | None
    more: bool


def apply_changes(note: Note, changes: NoteChanges, now: datetime) -> Note:
    """The note after an edit: fields not given keep their value; ``clear_type``
    drops a user-set type (the classifier decides again)."""
    return dataclasses.replace(
        note,
        text=changes.text if changes.text is not None else note.text,
        title=changes.title if changes.title is not None else note.title,
        tags=changes.tags if changes.tags is not None else note.tags,
        type=None if changes.clear_type else (changes.type or note.type),
        updated_at=now,
        version=note.version + 1,
    )


def same_content(a: Note, b: Note) -> bool:
    """Same indexable content: what decides whether chunks are still right."""
    return (a.text, a.title, a.type, a.tenant_id) == (b.text, b.title, b.type, b.tenant_id)


@dataclass(frozen=True)
class ChunkDraft:
    """A piece of a note before it is embedded."""

    position: int
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    note_id: str
    tenant_id: str
    position: int
    text: str
    terms: tuple[str, ...]
    memory_type: MemoryType
    created_at: datetime
    embedding: tuple[float, ...]
    embedding_model: str
    title: str = ""

    @property
    def titled_text(self) -> str:
        """The passage under its note's title, as a reader sees it."""
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class IndexState:
    note_id: str
    tenant_id: str
    status: IndexStatus
    content_hash: str = ""
    chunk_count: int = 0
    model: str = ""
    source_update_time: datetime | None = None
    error: str = ""
    attempts: int = 0
    # The memory type the note was indexed as (its own, or the classifier's).
    memory_type: MemoryType | None = None


@dataclass(frozen=True)
class TimeWindow:
    start: datetime | None = None
    end: datetime | None = None
    label: str = ""

    def contains(self, moment: datetime) -> bool:
        after_start = self.start is None or moment >= self.start
        before_end = self.end is None or moment < self.end
        return after_start and before_end


@dataclass(frozen=True)
class QueryAnalysis:
    original: str
    normalized: str
    keywords: tuple[str, ...]
    intent: Intent
    window: TimeWindow | None = None
    types: tuple[MemoryType, ...] = ()
    unresolved: tuple[str, ...] = ()  # time hints seen but not turned into a window
    # A follow-up's "it", "there", "her": the names the previous answer gave, as terms.
    # A preference among sentences that answer equally well, not words to cover.
    referents: tuple[str, ...] = ()
    # When the question was asked, in the asker's time zone: the generator reads a
    # note's relative dates ("before Friday") on that calendar.
    now: datetime | None = field(default=None, compare=False)
    # The asker's language (a code ``temporal`` reads): how the notes' dates are told.
    language: str = "en"
    # The question's words as notes in another language hold them: stopped as another
    # language the question may be in, or stemmed as another language the notes may be
    # stemmed in ("What are my todos?" asked by a Spanish reader of English notes).
    # Keyword search looks for these too; a chunk's word support is the best reading's.
    readings: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Hit:
    """A candidate from one retrieval source: chunk id and that source's raw score."""

    chunk_id: str
    score: float


@dataclass(frozen=True)
class ModelReading:
    """A language model's reading of a follow-up (``Generator.read_question``): the
    standalone question, and what it read of time, memory types, intent and keywords
    (empty or None: it read none; the offline reading of the question stands)."""

    question: str
    first_day: date | None = None  # the window asked about, first and last day inclusive
    last_day: date | None = None
    types: tuple[MemoryType, ...] = ()
    intent: Intent | None = None
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScoredChunk:
    chunk: Chunk
    score: float
    similarity: float  # cosine to the query; the gate and MMR read it
    sources: tuple[str, ...] = ()
    breakdown: dict[str, float] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Source:
    """A chunk as offered to the generator, under its citation id."""

    cid: str
    chunk: Chunk
    score: float


@dataclass(frozen=True)
class Citation:
    cid: str
    note_id: str
    chunk_id: str
    created_at: datetime
    snippet: str
    score: float
    # How far the cited source supports the sentences citing it (the least, over
    # them), in [0, 1]: the grounder's score, at or above its threshold.
    support: float = 1.0


@dataclass(frozen=True)
class Draft:
    """What a generator wrote, before validation."""

    text: str
    model: str
    fallback: str = ""  # why a fallback generator answered, if one did


@dataclass(frozen=True)
class ValidatedAnswer:
    text: str
    citations: tuple[Citation, ...]
    dropped: int
    kept: int


@dataclass(frozen=True)
class Job:
    """A re-index job's progress: the cursor of its next page, moved by compare-and-set."""

    job_id: str
    scope: str
    tenant_id: str | None
    cursor: str | None = None
    previous_cursor: str | None = None
    processed: int = 0
    done: bool = False


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


# A conversation's title is its first question on one line, cut to fit a list row.
CONVERSATION_TITLE_MAX_CHARS = 80


@dataclass(frozen=True)
class Conversation:
    """A conversation as its owner's list shows it (the turns are read apart)."""

    id: str
    tenant_id: str
    title: str
    created_at: datetime
    updated_at: datetime  # the latest turn's time: lists show the most recent first
    message_count: int  # questions and answers: the turns GET .../messages returns


@dataclass(frozen=True)
class ConversationPage:
    conversations: list[Conversation]
    cursor: str | None


def conversation_title(question: str) -> str:
    """The first question on one line, cut at a word boundary when too long."""
    line = " ".join(question.split())
    if len(line) <= CONVERSATION_TITLE_MAX_CHARS:
        return line
    cut = line[: CONVERSATION_TITLE_MAX_CHARS - 1]
    space = cut.rfind(" ")
    if space >= CONVERSATION_TITLE_MAX_CHARS // 2:  # else one long word: cut inside it
        cut = cut[:space]
    return cut.rstrip() + "\u2026"


def with_turns(before: Conversation | None, turns: Sequence[Turn]) -> Conversation:
    """The conversation once ``turns`` (of one conversation) are added to it.

    Both stores keep this summary beside the turns, so a list reads one document
    per conversation. ``before`` None: ``turns`` start it (its title is the first
    question). The latest activity never moves back (a late write of older turns).
    """
    ordered = sorted(turns, key=lambda t: (t.created_at, t.role != "user"))
    first, last = ordered[0], ordered[-1]
    if before is None:
        question = next((t.text for t in ordered if t.role == "user"), "")
        return Conversation(
            first.conversation_id,
            first.tenant_id,
            conversation_title(question),
            first.created_at,
            last.created_at,
            len(ordered),
        )
    return dataclasses.replace(
        before,
        updated_at=max(before.updated_at, last.created_at),
        message_count=before.message_count + len(ordered),
    )


# -- accounts -----------------------------------------------------------------------
# The steps of an account deletion, in order (``services/accounts.py`` runs them).
# Vectors go before the documents that name them: ``chunks`` and ``states`` remove
# each page's datapoints by id, then delete that page; the Auth user goes last.
DELETION_STEPS = (
    "revoke",  # refresh tokens revoked: no new ID token can be minted
    "grace",  # wait out requests and indexer runs that began before the fence
    "notes",
    "chunks",  # noteChunks: datapoints removed by id, then the documents
    "states",  # indexState: datapoints of recorded chunk ids, then the documents
    "conversations",
    "messages",
    "termStats",
    "quotas",
    "jobs",
    "exports",  # export records and their archives
    "files",  # every file under users/{uid}/ in Cloud Storage (uploads to import)
    "embeddings",  # the tenant's embedding-cache entries
    "tenant",  # tenants/{uid}: the version counter
    "auth",  # the Firebase Auth user
)


def deletion_job_id(tenant_id: str) -> str:
    """The id of a tenant's deletion job, and of the fence that refuses its writes.

    Derived from the uid, so a replayed or concurrent DELETE /account names the same
    job; a hash, so the record kept after the deletion does not name the user."""
    return hashlib.sha256(f"footnote-account-deletion\x1f{tenant_id}".encode()).hexdigest()[:40]


@dataclass(frozen=True)
class DeletionJob:
    job_id: str
    step: str  # the next step to run; "done" when finished
    fenced_at: datetime
    deleted: Mapping[str, int] = field(default_factory=dict)  # documents per step

    @property
    def done(self) -> bool:
        return self.step == "done"


# -- imports ------------------------------------------------------------------------

IMPORT_STATUSES = ("queued", "running", "done", "cancelled", "failed")
IMPORT_FAILURES_KEPT = 200  # the report lists this many problems; the count is exact
# A file's name or a reason in the report is cut to this many characters: a zip entry's
# name may run to 65,535 bytes, and the whole report is one Firestore document (1 MiB).
IMPORT_PROBLEM_CHARS = 300
# Runs one import message may have (each delivery a run; a run that raises is
# delivered again): the next delivery ends the job as failed instead. A fault that
# recurs would otherwise be retried until the message is dead-lettered (at 5
# deliveries at least, infra/variables.tf, counted by Pub/Sub on a best effort),
# leaving the job 'running' for good. A run that outlasts its time budget publishes a
# new message, whose runs are counted afresh.
IMPORT_RUNS_PER_MESSAGE = 3
# A run saves its job after every page and ends within the worker's timeout (540 s,
# under the subscription's 600 s ack deadline): an unfinished job not saved for longer
# has no run alive. Its message may be gone with it (the local Pub/Sub emulator keeps
# nothing across restarts), so the job sweep publishes it again; runs that keep dying
# are counted like any (IMPORT_RUNS_PER_MESSAGE) and end the job failed.
IMPORT_LEASE = timedelta(seconds=660)


@dataclass(frozen=True)
class ImportProblem:
    file: str  # where in the archive
    reason: str  # for a person


@dataclass(frozen=True)
class ImportJob:
    """An import of an uploaded archive (``imports/{jobId}``). ``cursor`` is how many
    of the archive's records (notes and failures, in archive order) are accounted for:
    a redelivered message resumes there, and a record is written before the cursor
    passes it, so a crash between the two finds the note already there (a duplicate)."""

    id: str
    tenant_id: str
    object_name: str  # the upload in the blob store, under users/{uid}/
    created_at: datetime
    status: str = "queued"
    cursor: int = 0
    found: int = 0  # notes read from the archive so far
    imported: int = 0
    duplicates: int = 0  # already in the notebook (the same file imported before)
    failed: int = 0
    problems: tuple[ImportProblem, ...] = ()
    reason: str | None = None  # why the job stopped early (quota, a refused archive)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    attempts: int = 0  # runs of the current message so far (IMPORT_RUNS_PER_MESSAGE)
    updated_at: datetime | None = None  # last saved: a run's heartbeat (IMPORT_LEASE)

    @property
    def finished(self) -> bool:
        return self.status in ("done", "cancelled", "failed")


def imported_note_id(tenant_id: str, source: str, text: str, created: datetime | None) -> str:
    """The id an imported note gets: the same file of the same archive imports to the
    same id, so a re-import (or a redelivered page) finds it and adds nothing."""
    key = "\x00".join((tenant_id, source, created.isoformat() if created else "", text))
    return "imp" + hashlib.sha256(key.encode()).hexdigest()[:29]


# -- exports ------------------------------------------------------------------------


# Runs one export may have (each delivery, or the sweep's publication, a run; a run that
# raises is delivered again): the next ends it failed, so an export whose every run
# dies (or whose worker is killed each time) does not stay queued for good. An export
# is written in one run (no cursor), within the worker's timeout, so IMPORT_LEASE is
# also how long after a run began no run of it can still be alive.
EXPORT_RUNS = 3


@dataclass(frozen=True)
class ExportJob:
    """An export of everything a user keeps (``exports/{jobId}``): one zip in the blob
    store. A redelivered message writes the whole archive again (it is derived data,
    and the object is only replaced once complete)."""

    id: str
    tenant_id: str
    created_at: datetime
    status: str = "queued"  # queued, done, failed
    object_name: str = ""  # users/{uid}/exports/{jobId}.zip once done
    notes: int = 0
    conversations: int = 0
    size: int = 0  # bytes of the archive
    finished_at: datetime | None = None
    reason: str | None = None
    attempts: int = 0  # runs so far (EXPORT_RUNS)
    updated_at: datetime | None = None  # when a run last began, or the sweep stamped it

    @property
    def finished(self) -> bool:
        return self.status in ("done", "failed")
