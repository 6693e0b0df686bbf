"""Plain, immutable data that flows between pipeline stages."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum


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


@dataclass(frozen=True)
class Hit:
    """A candidate from one retrieval source: chunk id and that source's raw score."""

    chunk_id: str
    score: float


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
