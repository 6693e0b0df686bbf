"""What the services return: typed, frozen values. The JSON the API writes from them
(camelCase, rounding, ISO instants, the names of timings and of a stream's events) is
made by the API's response models (``api/schemas.py``), which ``api/wire.py`` builds
from these by attribute name: a field that is to reach the wire has the same name here
and on its model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from footnote.domain import (
    ChangeMark,
    Citation,
    Conversation,
    Fallback,
    IndexStatus,
    Intent,
    MemoryType,
    Note,
    Strategy,
    TimeWindow,
)


@dataclass(frozen=True)
class ChangedNote:
    """One entry of the change feed: the note as it is now with its index state (as
    ``GET /notes`` lists it, so a synced note shows its state like a listed one), or
    None once it is deleted (a tombstone, at ``mark.moment``)."""

    mark: ChangeMark
    view: NoteView | None


@dataclass(frozen=True)
class ChangeListing:
    """A page of the change feed and the token to go on from."""

    changes: tuple[ChangedNote, ...]
    token: str
    more: bool


@dataclass(frozen=True)
class NoteView:
    """A note with its index state; None where the operation does not report it (a
    listing and an edit report no chunk count)."""

    note: Note
    index_status: IndexStatus | None = None
    chunk_count: int | None = None
    # The memory type it was indexed as (its own or the classifier's); None until indexed.
    memory_type: MemoryType | None = None


@dataclass(frozen=True)
class NoteListing:
    notes: tuple[NoteView, ...]  # each with its index status
    cursor: str | None  # None: this is the last page


@dataclass(frozen=True)
class ConversationListing:
    """A page of the caller's conversations, latest activity first."""

    conversations: tuple[Conversation, ...]
    cursor: str | None  # None: this is the last page


@dataclass(frozen=True)
class RetrievalReport:
    """How the sources of an answer or a search were found."""

    k: int
    strategy: Strategy
    candidate_count: int
    rerank_count: int
    time_ms: float
    matched: bool
    confidence: float
    fallbacks: tuple[Fallback, ...]
    total_ms: float | None = None  # search only: the whole call


class Stage(str, Enum):
    """A timed stage of answering a question; the API names its timing (``api/schemas.py``)."""

    ANALYZE = "analyze"
    RETRIEVE = "retrieve"
    RERANK = "rerank"
    GENERATE = "generate"
    VALIDATE = "validate"


@dataclass(frozen=True)
class AnswerMeta:
    model: str
    confidence: float
    retrieval: RetrievalReport
    timings: Mapping[Stage, float]  # milliseconds per stage, in the order they ran
    fallbacks: tuple[Fallback, ...]
    regenerated: bool
    intent: Intent
    follow_up: bool
    # The answer says the notes do not answer the question: a client shows it as such,
    # and an evaluation counts it, without reading the answer's text.
    declined: bool = False


@dataclass(frozen=True)
class AnswerStarted:
    """A streamed answer's first event: its conversation (minted for a new one) and how
    the question was read."""

    conversation_id: str
    intent: Intent


@dataclass(frozen=True)
class AnswerText:
    """A streamed answer's next checked sentence (or piece), as the client shows it."""

    text: str


@dataclass(frozen=True)
class RagConfig:
    """How to answer: with the notes (``enable_rag``), from at most ``max_sources``,
    citing them, from notes of ``types`` only (any type when empty). The defaults are
    the API's (``ragConfig``); its limits are the API's request model's."""

    enable_rag: bool = True
    max_sources: int = 8
    include_citations: bool = True
    types: tuple[MemoryType, ...] = ()


@dataclass(frozen=True)
class ChatOutcome:
    """An answer, as recorded (a stream's last event); the API maps it to its
    response model (``api/schemas.ChatResponse``)."""

    answer: str
    citations: tuple[Citation, ...]
    meta: AnswerMeta
    conversation_id: str
    message_id: str
    log_fields: Mapping[str, Any] = field(default_factory=dict)


# What a streamed answer yields, in order: one AnswerStarted, AnswerText per checked
# sentence, then the recorded ChatOutcome. The API names the events and writes them.
StreamEvent = AnswerStarted | AnswerText | ChatOutcome


@dataclass(frozen=True)
class QueryReport:
    """What search read in the query."""

    keywords: tuple[str, ...]
    intent: Intent
    types: tuple[MemoryType, ...]
    window: TimeWindow | None
    # Time hints that could not be turned into dates ("before the launch" with no
    # known launch): the client can say the filter was not applied.
    unresolved: tuple[str, ...]


@dataclass(frozen=True)
class SearchHit:
    chunk_id: str
    note_id: str
    text: str
    created_at: datetime
    memory_type: MemoryType
    score: float
    similarity: float
    sources: tuple[str, ...]
    breakdown: Mapping[str, float]
    title: str = ""  # the note's title as indexed (a chunk's text starts with it)


@dataclass(frozen=True)
class SearchResult:
    hits: tuple[SearchHit, ...]
    retrieval: RetrievalReport
    query: QueryReport


@dataclass(frozen=True)
class AnswerSummary:
    """How a stored answer was found: its confidence and retrieval strategy (None
    where the turn did not record it)."""

    confidence: float | None
    strategy: str | None


@dataclass(frozen=True)
class Message:
    """One turn of a conversation; an answer with how it was found."""

    id: str
    conversation_id: str
    role: str
    text: str
    created_at: datetime
    citations: tuple[Citation, ...]
    meta: AnswerSummary | None = None


# -- citations as stored with a turn ----------------------------------------------------
# A turn keeps its citations as plain maps (the conversation store's format, with the
# instant as an ISO string); these convert both ways, exactly.


def citation_record(c: Citation) -> dict[str, Any]:
    return {
        "cid": c.cid,
        "noteId": c.note_id,
        "chunkId": c.chunk_id,
        "createdAt": iso(c.created_at),
        "snippet": c.snippet,
        "score": c.score,
        "support": c.support,
    }


def citation_from_record(m: Mapping[str, Any]) -> Citation:
    return Citation(
        m["cid"],
        m["noteId"],
        m["chunkId"],
        datetime.fromisoformat(m["createdAt"]),
        m["snippet"],
        m["score"],
        m.get("support", 1.0),  # turns recorded before support was checked
    )


def iso(moment: datetime) -> str:
    """An instant as ISO 8601 in UTC with a ``Z``."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
