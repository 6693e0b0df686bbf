"""Answering a prepared question: generate → validate → record, as one stream of events.

There is one pipeline. :meth:`Answerer.events` yields an ``AnswerStarted``, an
``AnswerText`` per checked sentence and, last, the recorded ``ChatOutcome``; a plain
(non-streaming) answer is the fold of the same events: its last one. The two differ
only in how the generator is asked to send its text (``stream``: in pieces as it
writes, or in one piece), so the same question gets the same answer, citations and
regeneration either way (tests/unit/test_stream_fold.py asks 200).
"""

from __future__ import annotations

import collections.abc
import logging
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from footnote.config import Settings
from footnote.domain import Citation, Draft, Fallback, Source, Strategy, TimeWindow, Turn
from footnote.errors import UPSTREAM_ERRORS
from footnote.generation.citations import (
    MARKER,
    SentenceChecker,
    complete_sentences,
    is_abstention,
    needs_regeneration,
    validate,
)
from footnote.generation.prompt import NOT_ENOUGH
from footnote.grounding import ClaimChecks
from footnote.ports import ConversationStore, Generator, Grounder, Pieces
from footnote.query.plan import QueryPlan
from footnote.retrieval.retriever import RetrievalResult
from footnote.services.results import (
    AnswerMeta,
    AnswerStarted,
    AnswerText,
    ChatOutcome,
    RagConfig,
    RetrievalReport,
    Stage,
    StreamEvent,
    citation_record,
)
from footnote.text import sentences

log = logging.getLogger(__name__)

NO_NOTES = "You don't have any notes yet, so I can't answer from them."
RAG_OFF_OFFLINE = "Answers without your notes need a language model; the offline generator answers only from notes."


@dataclass
class Prepared:
    """A question read and its sources retrieved, ready for a generator."""

    tenant_id: str
    plan: QueryPlan
    # The conversation the turn goes to: the caller's, or one minted for a new
    # conversation before anything is generated, so a stream's ``meta`` names it.
    # Nothing is recorded under it until the answer is complete.
    conversation_id: str
    rag: RagConfig
    now: datetime
    result: RetrievalResult
    sources: list[Source]
    timings: dict[Stage, float]
    fallbacks: list[Fallback]
    # the answer's grounding, made when its first sentence is checked
    checks: ClaimChecks | None = None


@dataclass(frozen=True)
class _Checked:
    """A draft after citation validation: the answer text and its citations."""

    draft: Draft
    answer: str
    citations: tuple[Citation, ...]
    regenerated: bool


class Answerer:
    """Writes, checks and records the answer to a :class:`Prepared` question."""

    def __init__(
        self,
        settings: Settings,
        generator: Generator,
        fallback: Generator,
        conversations: ConversationStore,
        grounder: Grounder | None = None,
        fallback_grounder: Grounder | None = None,
    ) -> None:
        self._s = settings
        self._generator = generator
        self._fallback = fallback
        self._conversations = conversations
        if grounder is None:
            from footnote.grounding import LocalGrounder

            grounder = LocalGrounder()
        self._grounder = grounder
        self._fallback_grounder = fallback_grounder

    def _checks(self, p: Prepared) -> ClaimChecks:
        """The answer's grounding: each of its claims checked once, streamed or not."""
        if p.checks is None:
            analysis = p.plan.analysis
            zone = analysis.now.tzinfo if analysis.now is not None else None
            # (all the answer's sources: a name only another of them gives is another
            # person's)
            p.checks = ClaimChecks(
                self._grounder,
                analysis.language,
                zone,
                self._fallback_grounder,
                p.sources,
                asked=analysis.original,
            )
        return p.checks

    def events(self, p: Prepared, stream: bool) -> Iterator[StreamEvent]:
        """AnswerStarted, AnswerText per checked sentence, then the recorded outcome.
        Closing the iterator (the client went away) closes the generator's text,
        which stops the model's generation."""
        yield AnswerStarted(p.conversation_id, p.plan.analysis.intent)
        t = time.perf_counter()
        draft = yield from self._draft(p, stream)
        p.timings[Stage.GENERATE] = _ms(t)
        yield self._finish(p, draft)

    def _draft(
        self, p: Prepared, stream: bool
    ) -> collections.abc.Generator[AnswerText, None, Draft]:
        fixed = self._fixed_answer(p)
        if fixed is not None:
            for piece in sentences(fixed.text) or [fixed.text]:
                yield AnswerText(piece + " ")
            return fixed
        # Each sentence is sent once it is complete and its markers are checked: a
        # marker naming a source that was not given, or one the sentence does not
        # match, is removed first, and a sentence left with none is not sent.
        checker = SentenceChecker(p.sources, self._checks(p))
        written: list[str] = []
        model, pieces = self._write(p, strict=False, stream=stream)
        try:
            for sentence in complete_sentences(_kept(pieces, written)):
                shown = checker.check(sentence)
                if shown:
                    yield AnswerText(shown)
        finally:
            pieces.close()  # a client that left stops the model's generation
        return Draft("".join(written).strip(), model)

    def _fixed_answer(self, p: Prepared) -> Draft | None:
        """The answer when no generator writes from sources: RAG off, no notes, none found."""
        if not p.rag.enable_rag:
            return self._plain_answer(p)
        if p.result.strategy == Strategy.NONE:
            return Draft(NO_NOTES, self._generator.model)
        if not p.sources:
            return Draft(NOT_ENOUGH, self._generator.model)
        return None

    def _write(self, p: Prepared, strict: bool, stream: bool) -> tuple[str, Pieces]:
        """The generator's model and text, in pieces or one; before any text, a failure
        falls back to the quote generator (after text has been sent, it is raised)."""
        plan = p.plan
        try:
            pieces = self._generator.execute(
                plan.question, p.sources, plan.analysis, strict, plan.history, stream
            )
            first = next(pieces, None)
        except UPSTREAM_ERRORS as exc:
            # timeouts, quota, SDK errors: answer with the quote generator
            log.warning("generator failed (%s); answering with quotes", type(exc).__name__)
            p.fallbacks.append(Fallback.GENERATOR_QUOTE)
            pieces = self._fallback.execute(
                plan.question, p.sources, plan.analysis, strict, plan.history, stream
            )
            return self._fallback.model, _starting(next(pieces, None), pieces)
        return self._generator.model, _starting(first, pieces)

    def _plain_answer(self, p: Prepared) -> Draft:
        if self._generator.model == self._fallback.model:
            return Draft(RAG_OFF_OFFLINE, self._generator.model)
        try:
            return self._generator.generate(p.plan.message, [], p.plan.analysis, False)
        except UPSTREAM_ERRORS as exc:
            p.fallbacks.append(Fallback.GENERATOR_UNAVAILABLE)
            log.warning("generator failed without RAG: %s", type(exc).__name__)
            return Draft(RAG_OFF_OFFLINE, self._fallback.model)

    def _finish(self, p: Prepared, draft: Draft) -> ChatOutcome:
        """The stages after generation: validate, format, store, describe."""
        t = time.perf_counter()
        checked = self._validate(p, draft)
        p.timings[Stage.VALIDATE] = _ms(t)
        if p.checks is not None and p.checks.failed:
            p.fallbacks.append(Fallback.GROUNDING_LOCAL)
        answer = checked.answer
        if not p.rag.include_citations:
            answer = MARKER.sub("", answer).replace(" .", ".").strip()
        confidence = round(p.result.confidence, 4)
        # Declined: no cited claim survived, or the answer says the notes do not answer.
        declined = not checked.citations or is_abstention(checked.answer)
        meta = AnswerMeta(
            checked.draft.model,
            confidence,
            retrieval_report(p.result, p.rag.max_sources, None),
            p.timings,
            tuple(p.fallbacks),
            checked.regenerated,
            p.plan.analysis.intent,
            p.plan.follow_up,
            declined,
        )
        message_id = self._record(p, answer, checked.citations, checked.draft.model, confidence)
        return ChatOutcome(
            answer,
            checked.citations if p.rag.include_citations else (),
            meta,
            p.conversation_id,
            message_id,
            log_fields=_log_fields(p, confidence, len(checked.citations)),
        )

    def _validate(self, p: Prepared, draft: Draft) -> _Checked:
        """Keep the citations the sources support; regenerate strictly, once, when most
        were dropped (never for the quote generator, whose citations are its own).
        A streamed answer is regenerated as a plain one is: ``done`` carries the result."""
        if not p.sources:
            return _Checked(draft, draft.text, (), regenerated=False)
        checks = self._checks(p)
        checked = validate(draft.text, p.sources, checks)
        if not needs_regeneration(checked) or draft.model == self._fallback.model:
            return _Checked(draft, checked.text, tuple(checked.citations), regenerated=False)
        model, pieces = self._write(p, strict=True, stream=False)
        draft = Draft("".join(pieces).strip(), model)
        checked = validate(draft.text, p.sources, checks)
        return _Checked(draft, checked.text, tuple(checked.citations), regenerated=True)

    def _record(
        self, p: Prepared, answer: str, citations: Sequence[Citation], model: str, confidence: float
    ) -> str:
        """Store the question and the answer as two turns; the answer's message id."""
        message_id = uuid.uuid4().hex
        question = Turn(
            uuid.uuid4().hex, p.conversation_id, p.tenant_id, "user", p.plan.message, p.now
        )
        reply = Turn(
            message_id,
            p.conversation_id,
            p.tenant_id,
            "assistant",
            answer,
            p.now,
            tuple(citation_record(c) for c in citations),
            {"model": model, "confidence": confidence, "strategy": p.result.strategy.value},
        )
        self._conversations.append_turns([question, reply])
        return message_id


def folded(events: Iterable[StreamEvent]) -> ChatOutcome:
    """A plain answer: the fold of its stream, whose last event is the recorded outcome."""
    last: StreamEvent | None = None
    for event in events:
        last = event
    if not isinstance(last, ChatOutcome):
        raise RuntimeError("an answer's events end with its recorded outcome")
    return last


def _starting(first: str | None, rest: Pieces) -> Pieces:
    """``first``, then the rest of the pieces; closing it closes them."""
    try:
        if first is not None:
            yield first
        yield from rest
    finally:
        rest.close()


def _kept(pieces: Iterator[str], written: list[str]) -> Iterator[str]:
    """The pieces as they pass, each kept in ``written``: the draft is what was written."""
    for piece in pieces:
        written.append(piece)
        yield piece


def retrieval_report(result: RetrievalResult, k: int, started: float | None) -> RetrievalReport:
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


def _log_fields(p: Prepared, confidence: float, citations: int) -> dict[str, Any]:
    return {
        "strategy": p.result.strategy,
        "confidence": confidence,
        "chunkIds": [c.chunk.chunk_id for c in p.result.chunks],
        # what the generator was given, in its order: what an answer can draw on
        "sourceChunkIds": [s.chunk.chunk_id for s in p.sources],
        # the window the question was read as asking of (None: any time)
        "window": _window_field(p.plan.analysis.window),
        "scores": [round(c.score, 4) for c in p.result.chunks],
        "fallbacks": p.fallbacks,
        "citations": citations,
    }


def _window_field(window: TimeWindow | None) -> list[str | None] | None:
    """A window as ISO moments (null: open on that side), as logs write it."""
    if window is None:
        return None
    return [t.isoformat() if t else None for t in (window.start, window.end)]


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
