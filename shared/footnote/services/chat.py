"""Chat and search: analyse → retrieve → generate → validate → record."""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from footnote.config import Settings
from footnote.domain import (
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
from footnote.errors import UPSTREAM_ERRORS, BackendUnavailable, InvalidRequest, NotFound
from footnote.generation.citations import MARKER, SentenceChecker, complete_sentences, validate
from footnote.generation.prompt import NOT_ENOUGH
from footnote.ports import ConversationStore, Generator, Reranker
from footnote.retrieval import retriever as strategies
from footnote.retrieval.query import analyze, is_follow_up, names_someone, with_previous
from footnote.retrieval.retriever import RetrievalResult, Retriever
from footnote.text import sentences

log = logging.getLogger(__name__)

# Earlier turns (user and assistant) a language model sees with a follow-up.
HISTORY_TURNS = 6
NO_NOTES = "You don't have any notes yet, so I can't answer from them."
RAG_OFF_OFFLINE = "Answers without your notes need a language model; the offline generator answers only from notes."


@dataclass(frozen=True)
class RagConfig:
    enable_rag: bool = True
    max_sources: int = 8
    include_citations: bool = True
    types: tuple[MemoryType, ...] = ()


@dataclass
class ChatOutcome:
    answer: str
    citations: list[dict[str, Any]]
    meta: dict[str, Any]
    conversation_id: str
    message_id: str
    log_fields: dict[str, Any] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "citations": self.citations,
            "conversationId": self.conversation_id,
            "messageId": self.message_id,
            "meta": self.meta,
        }


@dataclass
class _Prepared:
    """A question analysed and its sources retrieved, ready for a generator."""

    tenant_id: str
    message: str
    question: str
    conversation_id: str | None
    rag: RagConfig
    now: datetime
    analysis: QueryAnalysis
    result: RetrievalResult
    sources: list[Source]
    timings: dict[str, float]
    fallbacks: list[str]
    follow_up: bool
    history: tuple[tuple[str, str], ...] = ()


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
        """``fallback`` answers when ``generator`` fails or is unconfigured: the
        offline extractive generator, chosen by the wiring."""
        self._s = settings
        self._retriever = retriever
        self._generator = generator
        self._extractive = fallback
        self._conversations = conversations
        self._clock = clock
        self._reranker = reranker

    # -- search ----------------------------------------------------------------
    def search(self, tenant_id: str, query: str, k: int) -> dict[str, Any]:
        self._check_query(query)
        started = time.perf_counter()
        analysis = analyze(query, self._clock(), self._retriever.events(tenant_id))
        result = self._retriever.retrieve(tenant_id, analysis, k=k)
        return {
            "results": [
                {
                    "chunkId": c.chunk.chunk_id,
                    "noteId": c.chunk.note_id,
                    "text": c.chunk.text,
                    "createdAt": _iso(c.chunk.created_at),
                    "memoryType": c.chunk.memory_type.value,
                    "score": round(c.score, 6),
                    "similarity": round(c.similarity, 4),
                    "sources": list(c.sources),
                    "breakdown": {k2: round(v, 6) for k2, v in c.breakdown.items()},
                }
                for c in (result.chunks if result.matched else [])
            ],
            "meta": {
                **_retrieval_meta(result, k, started),
                "query": _analysis_meta(analysis),
            },
        }

    # -- chat ------------------------------------------------------------------
    def chat(
        self,
        tenant_id: str,
        message: str,
        conversation_id: str | None,
        rag: RagConfig,
    ) -> ChatOutcome:
        p = self._prepare(tenant_id, message, conversation_id, rag)
        t = time.perf_counter()
        draft = self._draft(p)
        p.timings["generateMs"] = _ms(t)
        return self._finish(p, draft, allow_retry=True)

    def _prepare(
        self, tenant_id: str, message: str, conversation_id: str | None, rag: RagConfig
    ) -> _Prepared:
        self._check_query(message)
        earlier: list[Turn] = []
        if conversation_id is not None:
            found = self._conversations.conversation_turns(tenant_id, conversation_id)
            if found is None:
                raise NotFound("conversation not found")
            earlier = found
        timings: dict[str, float] = {}
        started = time.perf_counter()
        now = self._clock()
        events = self._retriever.events(tenant_id)
        analysis = analyze(message, now, events)
        question = message  # what the generator is asked: standalone, for a follow-up
        previous = _last_question(earlier)
        follow_up = previous is not None and is_follow_up(message, analysis)
        history = tuple((t.role, t.text) for t in earlier[-HISTORY_TURNS:])
        fallbacks_before: list[str] = []
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
                fallbacks_before.append("rewrite_skipped")
        if previous is not None and follow_up:
            # "When did she go there?" is read with the question before it: its
            # subject and time window carry over (offline, without a model to rewrite).
            analysis = with_previous(analysis, analyze(previous, now, events))
            if not names_someone(message):
                question = f"{message} ({previous})"
        if rag.types:
            analysis = dataclasses.replace(analysis, types=rag.types)
        timings["analyzeMs"] = _ms(started)

        t = time.perf_counter()
        result = (
            self._retriever.retrieve(tenant_id, analysis, k=rag.max_sources)
            if rag.enable_rag
            else RetrievalResult([], Strategy.DISABLED, 0, 0.0, matched=False)
        )
        timings["retrieveMs"] = _ms(t)
        result = self._rerank(message, result, timings)
        fallbacks = fallbacks_before + list(result.fallbacks)
        sources = self._context(result, analysis)
        return _Prepared(
            tenant_id,
            message,
            question,
            conversation_id,
            rag,
            now,
            analysis,
            result,
            sources,
            timings,
            fallbacks,
            follow_up,
            history,
        )

    def _draft(self, p: _Prepared) -> Draft:
        if not p.rag.enable_rag:
            return self._plain_answer(p.message, p.analysis, p.fallbacks)
        if p.result.strategy == strategies.NONE:
            return Draft(NO_NOTES, self._generator.model)
        if not p.sources:
            return Draft(NOT_ENOUGH, self._generator.model)
        return self._generate(p.question, p.sources, p.analysis, False, p.fallbacks, p.history)

    def _finish(self, p: _Prepared, draft: Draft, allow_retry: bool) -> ChatOutcome:
        timings, sources, rag, result = p.timings, p.sources, p.rag, p.result
        t = time.perf_counter()
        answer, citations, regenerated = draft.text, [], False
        if sources:
            checked = validate(draft.text, sources, self._s.citation_min_overlap)
            if (
                allow_retry
                and checked.dropped > checked.kept
                and draft.model != self._extractive.model
            ):
                regenerated = True
                retry = self._generate(
                    p.question, sources, p.analysis, True, p.fallbacks, p.history
                )
                checked = validate(retry.text, sources, self._s.citation_min_overlap)
                draft = retry
            answer = checked.text
            citations = [
                {
                    "cid": c.cid,
                    "noteId": c.note_id,
                    "chunkId": c.chunk_id,
                    "createdAt": _iso(c.created_at),
                    "snippet": c.snippet,
                    "score": c.score,
                }
                for c in checked.citations
            ]
        timings["validateMs"] = _ms(t)
        if not rag.include_citations:
            answer = MARKER.sub("", answer).replace(" .", ".").strip()

        confidence = round(result.confidence, 4)
        meta = {
            "model": draft.model,
            "confidence": confidence,
            "retrieval": _retrieval_meta(result, rag.max_sources, None),
            "timings": timings,
            "fallbacks": p.fallbacks,
            "regenerated": regenerated,
            "intent": p.analysis.intent.value,
            "followUp": p.follow_up,
        }
        conversation_id = p.conversation_id or uuid.uuid4().hex
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
                    tuple(citations),
                    {"model": draft.model, "confidence": confidence},
                ),
            ]
        )
        return ChatOutcome(
            answer,
            citations if rag.include_citations else [],
            meta,
            conversation_id,
            message_id,
            log_fields={
                "strategy": result.strategy,
                "confidence": confidence,
                "chunkIds": [c.chunk.chunk_id for c in result.chunks],
                "scores": [round(c.score, 4) for c in result.chunks],
                "fallbacks": p.fallbacks,
                "timings": timings,
                "citations": len(citations),
            },
        )

    def stream(self, outcome: ChatOutcome) -> Iterator[tuple[str, dict[str, Any]]]:
        """Server-sent events for a finished answer: meta, the text in pieces, done."""
        yield "meta", {"conversationId": outcome.conversation_id, "meta": outcome.meta}
        for piece in sentences(outcome.answer) or [outcome.answer]:
            yield "delta", {"text": piece + " "}
        yield "done", outcome.body()

    def chat_stream(
        self,
        tenant_id: str,
        message: str,
        conversation_id: str | None,
        rag: RagConfig,
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Server-sent events as the generator writes: meta, one ``delta`` per sentence, done.

        Retrieval (and any bad request or unknown conversation) happens before this
        returns, so errors are ordinary responses. Each sentence is sent once it is
        complete and its markers are checked: a marker naming a source that was not
        given, or one the sentence does not match, is removed first, and a sentence
        left with none is not sent. ``done`` carries the validated answer and its
        citations. Closing the iterator (the client went away) closes the
        generator's stream, which stops the model's generation.
        """
        p = self._prepare(tenant_id, message, conversation_id, rag)
        return self._stream_events(p)

    def _stream_events(self, p: _Prepared) -> Iterator[tuple[str, dict[str, Any]]]:
        yield (
            "meta",
            {"conversationId": p.conversation_id, "meta": {"intent": p.analysis.intent.value}},
        )
        t = time.perf_counter()
        if not (p.rag.enable_rag and p.sources and p.result.strategy != strategies.NONE):
            draft = self._draft(p)
            for piece in sentences(draft.text) or [draft.text]:
                yield "delta", {"text": piece + " "}
        else:
            written: list[str] = []
            checker = SentenceChecker(p.sources, self._s.citation_min_overlap)
            pieces = self._stream_pieces(p)
            try:
                for sentence in complete_sentences(pieces):
                    written.append(sentence)
                    shown = checker.check(sentence)
                    if shown:
                        yield "delta", {"text": shown}
            finally:
                close = getattr(pieces, "close", None)
                if close is not None:
                    close()  # a client that left stops the model's generation
            model = (
                self._generator.model
                if "generator_extractive" not in p.fallbacks
                else (self._extractive.model)
            )
            draft = Draft("".join(written).strip(), model)
        p.timings["generateMs"] = _ms(t)
        outcome = self._finish(p, draft, allow_retry=False)
        yield "done", outcome.body()

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
            p.fallbacks.append("generator_extractive")
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
    def messages(self, tenant_id: str, conversation_id: str) -> list[dict[str, Any]]:
        turns = self._conversations.conversation_turns(tenant_id, conversation_id)
        if turns is None:
            raise NotFound("conversation not found")
        return [_turn_json(t) for t in turns]

    def sources(self, tenant_id: str, message_id: str) -> list[dict[str, Any]]:
        turn = self._conversations.turn(tenant_id, message_id)
        if turn is None:
            raise NotFound("message not found")
        return [dict(c) for c in turn.citations]

    # -- internals -------------------------------------------------------------
    def _check_query(self, text: str) -> None:
        if not text.strip():
            raise InvalidRequest("the question is empty")
        if len(text) > self._s.chat_max_query_length:
            raise InvalidRequest(
                f"the question is longer than {self._s.chat_max_query_length} characters"
            )

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
        self, query: str, result: RetrievalResult, timings: dict[str, float]
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
            timings["rerankMs"] = _ms(t)
        return dataclasses.replace(result, chunks=chunks)

    def _generate(
        self,
        message: str,
        sources: list[Source],
        analysis: QueryAnalysis,
        strict: bool,
        fallbacks: list[str],
        history: Sequence[tuple[str, str]] = (),
    ) -> Draft:
        try:
            if history:
                return self._generator.generate(message, sources, analysis, strict, history)
            return self._generator.generate(message, sources, analysis, strict)
        except UPSTREAM_ERRORS as exc:  # timeouts, quota, SDK errors: answer extractively
            log.warning("generator failed (%s); answering extractively", type(exc).__name__)
            fallbacks.append("generator_extractive")
            draft = self._extractive.generate(message, sources, analysis, strict)
            return dataclasses.replace(draft, fallback=type(exc).__name__)

    def _plain_answer(self, message: str, analysis: QueryAnalysis, fallbacks: list[str]) -> Draft:
        if self._generator.model == self._extractive.model:
            return Draft(RAG_OFF_OFFLINE, self._generator.model)
        try:
            return self._generator.generate(message, [], analysis, False)
        except UPSTREAM_ERRORS as exc:
            fallbacks.append("generator_unavailable")
            log.warning("generator failed without RAG: %s", type(exc).__name__)
            return Draft(RAG_OFF_OFFLINE, self._extractive.model)


def _last_question(turns: Sequence[Turn]) -> str | None:
    """The conversation's most recent user question, if any."""
    for t in reversed(turns):
        if t.role == "user":
            return t.text
    return None


def _retrieval_meta(result: RetrievalResult, k: int, started: float | None) -> dict[str, Any]:
    meta = {
        "k": k,
        "strategy": result.strategy,
        "candidateCount": result.candidate_count,
        "rerankCount": len(result.chunks) if result.matched else 0,
        "timeMs": round(sum(result.timings_ms.values()), 2),
        "matched": result.matched,
        "confidence": round(result.confidence, 4),
        "fallbacks": list(result.fallbacks),
    }
    if started is not None:
        meta["totalMs"] = _ms(started)
    return meta


def _analysis_meta(a: QueryAnalysis) -> dict[str, Any]:
    return {
        "keywords": list(a.keywords),
        "intent": a.intent.value,
        "types": [t.value for t in a.types],
        "window": None
        if a.window is None
        else {
            "start": _iso(a.window.start) if a.window.start else None,
            "end": _iso(a.window.end) if a.window.end else None,
            "label": a.window.label,
        },
        # time hints we could not turn into dates ("before the launch" with no
        # known launch): the client can say the filter was not applied.
        "unresolved": list(a.unresolved),
    }


def _turn_json(t: Turn) -> dict[str, Any]:
    return {
        "id": t.message_id,
        "conversationId": t.conversation_id,
        "role": t.role,
        "text": t.text,
        "createdAt": _iso(t.created_at),
        "citations": [dict(c) for c in t.citations],
    }


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
