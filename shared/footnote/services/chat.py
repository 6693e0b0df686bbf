"""Chat and search: read the question → retrieve → answer → record.

``ChatService.chat`` and ``chat_stream`` are one pipeline. ``_prepare`` checks the
conversation, reads the question once into a ``QueryPlan`` (``footnote.query.plan``:
follow-ups are resolved there, through the Generator port), reads the tenant's corpus
once, retrieves, reranks and chooses the sources (``services/context.py``). Then
``services/answering.Answerer`` generates, checks, validates and records, as a
stream of events: ``chat_stream`` returns them, and ``chat`` is their fold, the last
one (the recorded ``ChatOutcome``).

It returns typed results (``services/results.py``); their JSON, the names of the
timings and of the stream's events are the API's (``api/schemas.py``).
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from footnote.config import Settings
from footnote.domain import Citation, Strategy, Turn
from footnote.errors import NotFound
from footnote.ports import ConversationStore, Generator, Grounder, Reranker
from footnote.query.acronyms import with_initials
from footnote.query.plan import plan, read_in, read_search
from footnote.retrieval.retriever import RetrievalResult, Retriever
from footnote.services.answering import NO_NOTES, RAG_OFF_OFFLINE, Answerer, Prepared, folded
from footnote.services.answering import retrieval_report as _retrieval_meta
from footnote.services.context import rerank, sources_for
from footnote.services.results import (
    AnswerSummary,
    ChatOutcome,
    ConversationListing,
    Message,
    QueryReport,
    RagConfig,
    SearchHit,
    SearchResult,
    Stage,
    StreamEvent,
    citation_from_record,
)
from footnote.temporal import DEFAULT_LANGUAGE
from footnote.text import terms, unmarked

# Importable from here as before: the API and the evaluation name them by this module.
__all__ = [
    "NO_NOTES",
    "RAG_OFF_OFFLINE",
    "ChatOutcome",
    "ChatService",
    "RagConfig",
    "StreamEvent",
]


class ChatService:
    def __init__(
        self,
        settings: Settings,
        retriever: Retriever,
        generator: Generator,
        conversations: ConversationStore,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        reranker: Reranker | None = None,
        *,
        fallback: Generator,
        grounder: Grounder | None = None,
        fallback_grounder: Grounder | None = None,
    ) -> None:
        """``fallback`` answers when ``generator`` fails: the offline quote
        generator, chosen by the wiring. ``grounder`` checks each sentence's citations
        (default: the offline grounder on terms alone), ``fallback_grounder`` when it
        fails."""
        self._s = settings
        self._retriever = retriever
        self._generator = generator
        self._conversations = conversations
        self._clock = clock
        self._reranker = reranker
        self._answerer = Answerer(
            settings, generator, fallback, conversations, grounder, fallback_grounder
        )

    # -- search ----------------------------------------------------------------
    def search(
        self,
        tenant_id: str,
        query: str,
        k: int,
        time_zone: str | None = None,
        language: str = DEFAULT_LANGUAGE,
    ) -> SearchResult:
        # The API's request model has checked the query, as it checks chat()'s question
        # (its limits are the API's: api/schemas.py). The evaluation asks directly.
        started = time.perf_counter()
        corpus = self._retriever.corpus(tenant_id)
        analysis = read_search(
            query, self._now(time_zone), corpus.events if corpus else {}, language
        )
        if corpus is not None:
            analysis = with_initials(analysis, corpus.holds)
        result = self._retriever.retrieve(tenant_id, analysis, k=k, corpus=corpus)
        hits = tuple(
            SearchHit(
                c.chunk.chunk_id,
                c.chunk.note_id,
                c.chunk.text,
                c.chunk.created_at,
                c.chunk.memory_type,
                c.score,
                c.similarity,
                c.sources,
                dict(c.breakdown),
                c.chunk.title,
            )
            for c in (result.chunks if result.matched else [])
        )
        query_report = QueryReport(
            analysis.keywords, analysis.intent, analysis.types, analysis.window, analysis.unresolved
        )
        return SearchResult(hits, _retrieval_meta(result, k, started), query_report)

    # -- chat ------------------------------------------------------------------
    def chat(
        self,
        tenant_id: str,
        message: str,
        conversation_id: str | None,
        rag: RagConfig,
        time_zone: str | None = None,
        language: str = DEFAULT_LANGUAGE,
    ) -> ChatOutcome:
        """The answer: the fold of :meth:`chat_stream`'s events, asked of the generator
        in one piece rather than sentence by sentence."""
        p = self._prepare(tenant_id, message, conversation_id, rag, time_zone, language)
        return folded(self._answerer.events(p, stream=False))

    def chat_stream(
        self,
        tenant_id: str,
        message: str,
        conversation_id: str | None,
        rag: RagConfig,
        time_zone: str | None = None,
        language: str = DEFAULT_LANGUAGE,
    ) -> Iterator[StreamEvent]:
        """The answer as the generator writes it: AnswerStarted, one AnswerText per
        checked sentence, then the recorded ChatOutcome (the API's meta, delta and
        done events; ``done`` carries the validated answer and its citations).

        Reading, retrieval (and any bad request or unknown conversation) happen before
        this returns, so errors are ordinary responses. Closing the iterator (the
        client went away) stops the model's generation.
        """
        p = self._prepare(tenant_id, message, conversation_id, rag, time_zone, language)
        return self._answerer.events(p, stream=True)

    def _prepare(
        self,
        tenant_id: str,
        message: str,
        conversation_id: str | None,
        rag: RagConfig,
        time_zone: str | None,
        language: str = DEFAULT_LANGUAGE,
    ) -> Prepared:
        """The stages before generation: read the question once, retrieve, rerank, choose."""
        earlier = self._earlier_turns(tenant_id, conversation_id)
        timings: dict[Stage, float] = {}
        started = time.perf_counter()
        now = self._now(time_zone)
        corpus = self._retriever.corpus(tenant_id)  # read once per question
        # Only a question answered from the notes is rewritten by the model: without
        # them nothing is retrieved, and the offline reading is enough.
        read = plan(
            message,
            now,
            corpus.events if corpus is not None else {},
            earlier,
            self._generator if rag.enable_rag else None,
            rag.types,
            language,
        )
        if corpus is not None:
            # "at Hole in the Wall" over notes that write "HITW": its initials are searched
            read = dataclasses.replace(read, analysis=with_initials(read.analysis, corpus.holds))
        timings[Stage.ANALYZE] = _ms(started)
        t = time.perf_counter()
        result = (
            self._retriever.retrieve(
                tenant_id, read.analysis, k=rag.max_sources, corpus=corpus, focus=read.focus
            )
            if rag.enable_rag
            else RetrievalResult([], Strategy.DISABLED, 0, 0.0, matched=False)
        )
        timings[Stage.RETRIEVE] = _ms(t)
        if read.focus:
            # the follow-up's inherited words, as the passages it is read in state them
            stated = {
                term
                for c in result.chunks
                if c.chunk.chunk_id in read.focus
                for term in (*map(unmarked, c.chunk.terms), *terms(c.chunk.title))
            }
            read = read_in(read, stated)
        result = rerank(self._reranker, message, result, timings)
        return Prepared(
            tenant_id,
            read,
            conversation_id or uuid.uuid4().hex,
            rag,
            now,
            result,
            sources_for(result, read.analysis, self._s),
            timings,
            [*read.fallbacks, *result.fallbacks],
        )

    def _earlier_turns(self, tenant_id: str, conversation_id: str | None) -> list[Turn]:
        if conversation_id is None:
            return []
        found = self._conversations.conversation_turns(tenant_id, conversation_id)
        if found is None:
            raise NotFound("conversation not found")
        return found

    # -- conversations ---------------------------------------------------------
    def conversations(self, tenant_id: str, limit: int, cursor: str | None) -> ConversationListing:
        """A page of the tenant's conversations, latest activity first (the API's
        query model has checked ``limit``; a bad cursor raises InvalidRequest)."""
        page = self._conversations.list_conversations(tenant_id, limit, cursor)
        return ConversationListing(tuple(page.conversations), page.cursor)

    def messages(self, tenant_id: str, conversation_id: str) -> tuple[Message, ...]:
        turns = self._conversations.conversation_turns(tenant_id, conversation_id)
        if turns is None:
            raise NotFound("conversation not found")
        return tuple(
            Message(
                t.message_id,
                t.conversation_id,
                t.role,
                t.text,
                t.created_at,
                tuple(citation_from_record(c) for c in t.citations),
                _answer_meta(t),
            )
            for t in turns
        )

    def sources(self, tenant_id: str, message_id: str) -> tuple[Citation, ...]:
        turn = self._conversations.turn(tenant_id, message_id)
        if turn is None:
            raise NotFound("message not found")
        return tuple(citation_from_record(c) for c in turn.citations)

    def _now(self, time_zone: str | None) -> datetime:
        """Now, on the asker's calendar (an IANA zone the client sends; UTC without one):
        "today", "last week" and a note's "before Friday" are read on it."""
        now = self._clock()
        return now.astimezone(ZoneInfo(time_zone)) if time_zone else now


def _answer_meta(turn: Turn) -> AnswerSummary | None:
    """How an answer was found, as stored with it (turns stored before the strategy
    was kept have none)."""
    meta = turn.meta or {}
    if turn.role != "assistant" or not meta:
        return None
    confidence = meta.get("confidence")
    strategy = meta.get("strategy")
    return AnswerSummary(
        float(confidence) if isinstance(confidence, int | float) else None,
        strategy if isinstance(strategy, str) else None,
    )


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
