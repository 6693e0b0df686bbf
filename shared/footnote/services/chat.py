"""Chat and search: analyse → retrieve → generate → validate → record.

``ChatService.chat`` is a sequence of named stages: ``_prepare`` (check the
question, load earlier turns, ``_read`` it, ``_retrieve`` and rerank, choose the
context), ``_draft`` (generate), and ``_finish`` (``_validate`` the citations,
format, ``_record`` the turns, describe them in ``_chat_meta``/``_log_fields``).
``chat_stream`` runs the same stages, generating sentence by sentence in between.

It returns typed results (``services/results.py``, :class:`ChatOutcome`); their JSON,
the names of the timings and of the stream's events are the API's
(``api/schemas.py``).

Why this module is over ~400 lines: it is the one pipeline both chat paths share,
and splitting it would scatter one sequence of stages over several files
(issue 26 splits query reading and retrieval out of it).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from footnote.config import Settings
from footnote.domain import (
    Citation,
    Draft,
    Fallback,
    Intent,
    MemoryType,
    QueryAnalysis,
    ScoredChunk,
    Source,
    Strategy,
    Turn,
)
from footnote.errors import UPSTREAM_ERRORS, BackendUnavailable, NotFound
from footnote.generation.citations import (
    MARKER,
    SentenceChecker,
    complete_sentences,
    is_abstention,
    validate,
)
from footnote.generation.prompt import NOT_ENOUGH
from footnote.ports import ConversationStore, Generator, Reranker
from footnote.query.analysis import analyze, is_follow_up, names_someone, with_previous
from footnote.retrieval import retriever as strategies
from footnote.retrieval.retriever import RetrievalResult, Retriever
from footnote.services.results import (
    AnswerMeta,
    AnswerStarted,
    AnswerSummary,
    AnswerText,
    ConversationListing,
    Message,
    QueryReport,
    RetrievalReport,
    SearchHit,
    SearchResult,
    Stage,
    citation_from_record,
    citation_record,
)
from footnote.text import sentences

log = logging.getLogger(__name__)

# Earlier turns (user and assistant) a language model sees with a follow-up.
HISTORY_TURNS = 6
NO_NOTES = "You don't have any notes yet, so I can't answer from them."
RAG_OFF_OFFLINE = "Answers without your notes need a language model; the offline generator answers only from notes."


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


@dataclass
class _Prepared:
    """A question analysed and its sources retrieved, ready for a generator."""

    tenant_id: str
    message: str
    question: str
    # The conversation the turn goes to: the caller's, or one minted for a new
    # conversation before anything is generated, so a stream's ``meta`` names it.
    # Nothing is recorded under it until the answer is complete.
    conversation_id: str
    rag: RagConfig
    now: datetime
    analysis: QueryAnalysis
    result: RetrievalResult
    sources: list[Source]
    timings: dict[Stage, float]
    fallbacks: list[Fallback]
    follow_up: bool
    history: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class _Reading:
    """A question read: what the generator is asked, and its analysis."""

    question: str
    analysis: QueryAnalysis
    follow_up: bool
    history: tuple[tuple[str, str], ...]
    fallbacks: tuple[Fallback, ...]


@dataclass(frozen=True)
class _Checked:
    """A draft after citation validation: the answer text and its citations."""

    draft: Draft
    answer: str
    citations: tuple[Citation, ...]
    regenerated: bool


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
    ) -> None:
        """``fallback`` answers when ``generator`` fails: the offline extractive
        generator, chosen by the wiring."""
        self._s = settings
        self._retriever = retriever
        self._generator = generator
        self._extractive = fallback
        self._conversations = conversations
        self._clock = clock
        self._reranker = reranker

    # -- search ----------------------------------------------------------------
    def search(
        self, tenant_id: str, query: str, k: int, time_zone: str | None = None
    ) -> SearchResult:
        # The API's request model has checked the query, as it checks chat()'s question
        # (its limits are the API's: api/schemas.py). The evaluation asks directly.
        started = time.perf_counter()
        analysis = analyze(query, self._now(time_zone), self._retriever.events(tenant_id))
        result = self._retriever.retrieve(tenant_id, analysis, k=k)
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
    ) -> ChatOutcome:
        """Read the question, retrieve and rerank its sources, generate, then
        validate the citations, store the turn and describe it (:meth:`_finish`)."""
        p = self._prepare(tenant_id, message, conversation_id, rag, time_zone)
        t = time.perf_counter()
        draft = self._draft(p)
        p.timings[Stage.GENERATE] = _ms(t)
        return self._finish(p, draft, allow_retry=True)

    def _prepare(
        self,
        tenant_id: str,
        message: str,
        conversation_id: str | None,
        rag: RagConfig,
        time_zone: str | None = None,
    ) -> _Prepared:
        """The stages before generation, shared by :meth:`chat` and :meth:`chat_stream`."""
        earlier = self._earlier_turns(tenant_id, conversation_id)
        timings: dict[Stage, float] = {}
        started = time.perf_counter()
        now = self._now(time_zone)
        reading = self._read(tenant_id, message, earlier, rag, now)
        timings[Stage.ANALYZE] = _ms(started)
        result = self._retrieve(tenant_id, message, reading.analysis, rag, timings)
        return _Prepared(
            tenant_id,
            message,
            reading.question,
            conversation_id or uuid.uuid4().hex,
            rag,
            now,
            reading.analysis,
            result,
            self._context(result, reading.analysis),
            timings,
            [*reading.fallbacks, *result.fallbacks],
            reading.follow_up,
            reading.history,
        )

    def _earlier_turns(self, tenant_id: str, conversation_id: str | None) -> list[Turn]:
        if conversation_id is None:
            return []
        found = self._conversations.conversation_turns(tenant_id, conversation_id)
        if found is None:
            raise NotFound("conversation not found")
        return found

    def _read(
        self, tenant_id: str, message: str, earlier: list[Turn], rag: RagConfig, now: datetime
    ) -> _Reading:
        """Analyse the question; a follow-up is made standalone from the turns before it."""
        events = self._retriever.events(tenant_id)
        analysis = analyze(message, now, events)
        question = message  # what the generator is asked: standalone, for a follow-up
        previous = _last_question(earlier)
        follow_up = previous is not None and is_follow_up(message, analysis)
        history = tuple((t.role, t.text) for t in earlier[-HISTORY_TURNS:])
        fallbacks: list[Fallback] = []
        rewrite = getattr(self._generator, "rewrite_question", None)
        if history and rewrite is not None and rag.enable_rag:
            # A language model makes the retrieval query standalone ("When did she go
            # there?" → "When did Caroline go to the support group?"); the last turns
            # also go into its answer prompt.
            try:
                question = str(rewrite(message, history)) or message
                analysis = analyze(question, now, events)
                follow_up = question != message
                previous = None  # the rewrite replaces the offline inheritance
            except UPSTREAM_ERRORS as exc:
                log.warning(
                    "query rewrite failed (%s); reading the follow-up offline", type(exc).__name__
                )
                fallbacks.append(Fallback.REWRITE_SKIPPED)
        if previous is not None and follow_up:
            # "When did she go there?" is read with the question before it: its
            # subject and time window carry over (offline, without a model to rewrite).
            analysis = with_previous(analysis, analyze(previous, now, events))
            if not names_someone(message):
                question = f"{message} ({previous})"
        if rag.types:
            analysis = dataclasses.replace(analysis, types=rag.types)
        return _Reading(question, analysis, follow_up, history, tuple(fallbacks))

    def _retrieve(
        self,
        tenant_id: str,
        message: str,
        analysis: QueryAnalysis,
        rag: RagConfig,
        timings: dict[Stage, float],
    ) -> RetrievalResult:
        """Retrieve (unless RAG is off), then rerank against the words the user wrote."""
        t = time.perf_counter()
        result = (
            self._retriever.retrieve(tenant_id, analysis, k=rag.max_sources)
            if rag.enable_rag
            else RetrievalResult([], Strategy.DISABLED, 0, 0.0, matched=False)
        )
        timings[Stage.RETRIEVE] = _ms(t)
        return self._rerank(message, result, timings)

    def _draft(self, p: _Prepared) -> Draft:
        if not p.rag.enable_rag:
            return self._plain_answer(p.message, p.analysis, p.fallbacks)
        if p.result.strategy == strategies.NONE:
            return Draft(NO_NOTES, self._generator.model)
        if not p.sources:
            return Draft(NOT_ENOUGH, self._generator.model)
        return self._generate(p.question, p.sources, p.analysis, False, p.fallbacks, p.history)

    def _finish(self, p: _Prepared, draft: Draft, allow_retry: bool) -> ChatOutcome:
        """The stages after generation: validate, format, store, describe."""
        t = time.perf_counter()
        checked = self._validate(p, draft, allow_retry)
        p.timings[Stage.VALIDATE] = _ms(t)
        answer = checked.answer
        if not p.rag.include_citations:
            answer = MARKER.sub("", answer).replace(" .", ".").strip()
        confidence = round(p.result.confidence, 4)
        # Declined: no cited claim survived, or the answer says the notes do not answer.
        declined = not checked.citations or is_abstention(checked.answer)
        meta = _chat_meta(p, checked.draft.model, checked.regenerated, confidence, declined)
        conversation_id, message_id = self._record(
            p, answer, checked.citations, checked.draft.model, confidence
        )
        return ChatOutcome(
            answer,
            checked.citations if p.rag.include_citations else (),
            meta,
            conversation_id,
            message_id,
            log_fields=_log_fields(p, confidence, len(checked.citations)),
        )

    def _validate(self, p: _Prepared, draft: Draft, allow_retry: bool) -> _Checked:
        """Keep the citations the sources support; regenerate strictly, once, when most
        were dropped (never for the extractive generator, whose citations are its own)."""
        if not p.sources:
            return _Checked(draft, draft.text, (), regenerated=False)
        checked = validate(draft.text, p.sources, self._s.citation_min_overlap)
        regenerated = False
        if allow_retry and checked.dropped > checked.kept and draft.model != self._extractive.model:
            regenerated = True
            draft = self._generate(p.question, p.sources, p.analysis, True, p.fallbacks, p.history)
            checked = validate(draft.text, p.sources, self._s.citation_min_overlap)
        return _Checked(draft, checked.text, tuple(checked.citations), regenerated)

    def _record(
        self,
        p: _Prepared,
        answer: str,
        citations: Sequence[Citation],
        model: str,
        confidence: float,
    ) -> tuple[str, str]:
        """Store the question and the answer as two turns; their conversation and message ids."""
        conversation_id = p.conversation_id
        message_id = uuid.uuid4().hex
        self._conversations.append_turns(
            [
                Turn(uuid.uuid4().hex, conversation_id, p.tenant_id, "user", p.message, p.now),
                Turn(
                    message_id,
                    conversation_id,
                    p.tenant_id,
                    "assistant",
                    answer,
                    p.now,
                    tuple(citation_record(c) for c in citations),
                    {"model": model, "confidence": confidence, "strategy": p.result.strategy.value},
                ),
            ]
        )
        return conversation_id, message_id

    def chat_stream(
        self,
        tenant_id: str,
        message: str,
        conversation_id: str | None,
        rag: RagConfig,
        time_zone: str | None = None,
    ) -> Iterator[StreamEvent]:
        """The answer as the generator writes it: AnswerStarted, one AnswerText per
        sentence, then the recorded ChatOutcome (the API's meta, delta and done events).

        Retrieval (and any bad request or unknown conversation) happens before this
        returns, so errors are ordinary responses. Each sentence is sent once it is
        complete and its markers are checked: a marker naming a source that was not
        given, or one the sentence does not match, is removed first, and a sentence
        left with none is not sent. ``done`` carries the validated answer and its
        citations. Closing the iterator (the client went away) closes the
        generator's stream, which stops the model's generation.
        """
        p = self._prepare(tenant_id, message, conversation_id, rag, time_zone)
        return self._stream_events(p)

    def _stream_events(self, p: _Prepared) -> Iterator[StreamEvent]:
        yield AnswerStarted(p.conversation_id, p.analysis.intent)
        t = time.perf_counter()
        if not (p.rag.enable_rag and p.sources and p.result.strategy != strategies.NONE):
            draft = self._draft(p)
            for piece in sentences(draft.text) or [draft.text]:
                yield AnswerText(piece + " ")
        else:
            draft = yield from self._streamed_draft(p)
        p.timings[Stage.GENERATE] = _ms(t)
        outcome = self._finish(p, draft, allow_retry=False)
        yield outcome

    def _streamed_draft(self, p: _Prepared) -> collections.abc.Generator[AnswerText, None, Draft]:
        """Yield each checked sentence as the generator completes it; return the draft."""
        written: list[str] = []
        checker = SentenceChecker(p.sources, self._s.citation_min_overlap)
        pieces = self._stream_pieces(p)
        try:
            for sentence in complete_sentences(pieces):
                written.append(sentence)
                shown = checker.check(sentence)
                if shown:
                    yield AnswerText(shown)
        finally:
            close = getattr(pieces, "close", None)
            if close is not None:
                close()  # a client that left stops the model's generation
        model = (
            self._generator.model
            if Fallback.GENERATOR_EXTRACTIVE not in p.fallbacks
            else (self._extractive.model)
        )
        return Draft("".join(written).strip(), model)

    def _stream_pieces(self, p: _Prepared) -> Iterator[str]:
        """The generator's text as it arrives; before any text, a failure falls back to
        the extractive generator (after text has been sent, it is raised)."""
        stream = (
            self._generator.stream(p.question, p.sources, p.analysis, p.history)
            if p.history
            else self._generator.stream(p.question, p.sources, p.analysis)
        )
        try:
            first = next(stream, None)
        except UPSTREAM_ERRORS as exc:
            log.warning("generator stream failed (%s); answering extractively", type(exc).__name__)
            p.fallbacks.append(Fallback.GENERATOR_EXTRACTIVE)
            stream = self._extractive.stream(p.question, p.sources, p.analysis)
            first = next(stream, None)
        try:
            if first is not None:
                yield first
            yield from stream
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()

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

    # -- internals -------------------------------------------------------------
    def _now(self, time_zone: str | None) -> datetime:
        """Now, on the asker's calendar (an IANA zone the client sends; UTC without one):
        "today", "last week" and a note's "before Friday" are read on it."""
        now = self._clock()
        return now.astimezone(ZoneInfo(time_zone)) if time_zone else now

    def _context(self, result: RetrievalResult, analysis: QueryAnalysis) -> list[Source]:
        chunks: Sequence[ScoredChunk] = result.chunks
        if not result.matched:
            # Recent notes stand in only when the question is about a period or an overview.
            wants_recent = analysis.window is not None or analysis.intent in (
                Intent.SUMMARY,
                Intent.TIMELINE,
            )
            if not wants_recent:
                return []
        out: list[Source] = []
        used = 0
        for c in chunks[: self._s.context_max_chunks]:
            if used + len(c.chunk.text) > self._s.context_max_chars and out:
                break
            used += len(c.chunk.text)
            out.append(Source(f"N{len(out) + 1}", c.chunk, c.score))
        return out

    def _rerank(
        self, query: str, result: RetrievalResult, timings: dict[Stage, float]
    ) -> RetrievalResult:
        """The optional rerank stage; on any failure the retrieval order stands."""
        if self._reranker is None or not result.matched or len(result.chunks) < 2:
            return result
        t = time.perf_counter()
        try:
            chunks = self._reranker.rerank(query, result.chunks)
            if sorted(c.chunk.chunk_id for c in chunks) != sorted(
                c.chunk.chunk_id for c in result.chunks
            ):
                raise BackendUnavailable("a reranker may only reorder the chunks")
        except UPSTREAM_ERRORS as exc:
            log.warning(
                "reranker %s failed (%s); keeping the retrieval order",
                self._reranker.name,
                type(exc).__name__,
            )
            return dataclasses.replace(
                result, fallbacks=(*result.fallbacks, Fallback.RERANKER_SKIPPED)
            )
        finally:
            timings[Stage.RERANK] = _ms(t)
        return dataclasses.replace(result, chunks=chunks)

    def _generate(
        self,
        message: str,
        sources: list[Source],
        analysis: QueryAnalysis,
        strict: bool,
        fallbacks: list[Fallback],
        history: Sequence[tuple[str, str]] = (),
    ) -> Draft:
        try:
            if history:
                return self._generator.generate(message, sources, analysis, strict, history)
            return self._generator.generate(message, sources, analysis, strict)
        except UPSTREAM_ERRORS as exc:  # timeouts, quota, SDK errors: answer extractively
            log.warning("generator failed (%s); answering extractively", type(exc).__name__)
            fallbacks.append(Fallback.GENERATOR_EXTRACTIVE)
            draft = self._extractive.generate(message, sources, analysis, strict)
            return dataclasses.replace(draft, fallback=type(exc).__name__)

    def _plain_answer(
        self, message: str, analysis: QueryAnalysis, fallbacks: list[Fallback]
    ) -> Draft:
        if self._generator.model == self._extractive.model:
            return Draft(RAG_OFF_OFFLINE, self._generator.model)
        try:
            return self._generator.generate(message, [], analysis, False)
        except UPSTREAM_ERRORS as exc:
            fallbacks.append(Fallback.GENERATOR_UNAVAILABLE)
            log.warning("generator failed without RAG: %s", type(exc).__name__)
            return Draft(RAG_OFF_OFFLINE, self._extractive.model)


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


def _last_question(turns: Sequence[Turn]) -> str | None:
    """The conversation's most recent user question, if any."""
    for t in reversed(turns):
        if t.role == "user":
            return t.text
    return None


def _chat_meta(
    p: _Prepared, model: str, regenerated: bool, confidence: float, declined: bool
) -> AnswerMeta:
    return AnswerMeta(
        model,
        confidence,
        _retrieval_meta(p.result, p.rag.max_sources, None),
        p.timings,
        tuple(p.fallbacks),
        regenerated,
        p.analysis.intent,
        p.follow_up,
        declined,
    )


def _log_fields(p: _Prepared, confidence: float, citations: int) -> dict[str, Any]:
    return {
        "strategy": p.result.strategy,
        "confidence": confidence,
        "chunkIds": [c.chunk.chunk_id for c in p.result.chunks],
        "scores": [round(c.score, 4) for c in p.result.chunks],
        "fallbacks": p.fallbacks,
        "citations": citations,
    }


def _retrieval_meta(result: RetrievalResult, k: int, started: float | None) -> RetrievalReport:
    return RetrievalReport(
        k,
        result.strategy,
        result.candidate_count,
        len(result.chunks) if result.matched else 0,
        sum(result.timings_ms.values()),
        result.matched,
        result.confidence,
        result.fallbacks,
        _ms(started) if started is not None else None,
    )


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
