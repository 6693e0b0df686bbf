"""Hybrid retrieval: candidates from the first source that answers, ranked by one pipeline.

A query is embedded once, then asked of the candidate sources in order
(``sources.chain``: the in-memory corpus, or Vector Search with Firestore vector
search and the corpus standing in when it fails); whichever answers, the same pure
pipeline (``pipeline.rank``: fuse, support, diversify) ranks its candidates, the
winners are read, the gate decides whether they are enough to answer from, and
this module alone builds the ``RetrievalResult``.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from footnote.config import Settings
from footnote.domain import Chunk, Fallback, QueryAnalysis, ScoredChunk, Strategy, TimeWindow
from footnote.errors import UPSTREAM_ERRORS, SearchUnavailable
from footnote.ports import ChunkStore, Embedder, VectorIndex
from footnote.retrieval import pipeline, sources
from footnote.retrieval.candidates import (
    CandidateRequest,
    Candidates,
    CandidateSource,
    with_chunks,
)
from footnote.retrieval.corpus import CorpusCache, TenantCorpus
from footnote.retrieval.sources import MEMORY
from footnote.retrieval.variant import SHIPPED, RankingVariant
from footnote.temporal import note_dates, supported_language
from footnote.text import language_of_text

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetrievalResult:
    chunks: list[ScoredChunk]
    strategy: Strategy
    candidate_count: int
    confidence: float
    fallbacks: tuple[Fallback, ...] = ()
    # Milliseconds per retrieval stage ("load", "search"...); the API reports their sum.
    timings_ms: dict[str, float] = field(default_factory=dict)
    matched: bool = True  # False: nothing relevant; chunks are recent notes, if any


class Retriever:
    """Hybrid retrieval over candidate sources, asked in order until one answers.

    In memory (``corpora`` given, ``vector_index`` None or the in-memory index): the
    tenant's corpus answers dense, keyword and recency lists exactly.

    Managed (``vector_index`` serves both halves, e.g. Vector Search): one
    ``search_hybrid`` call returns dense and keyword neighbours with their vectors,
    and only the k winners are read from the chunk store — a query costs O(k)
    document reads whatever the size of the notebook. When the index fails,
    ``fallback_index`` (Firestore vector search), then the corpus where one is kept
    (tests, small deployments), answer instead.
    """

    def __init__(
        self,
        settings: Settings,
        corpora: CorpusCache | None,
        embedder: Embedder | None,
        vector_index: VectorIndex | None,
        chunks: ChunkStore | None = None,
        fallback_index: VectorIndex | None = None,
        ranking: RankingVariant = SHIPPED,
    ) -> None:
        self._s = settings
        self._ranking = ranking  # what ships; the evaluation compares others
        self._embedder = embedder
        self._sources = sources.chain(corpora, vector_index, chunks, fallback_index, ranking)
        # Title events come from the corpus, which only the in-memory path searches.
        self._corpora = corpora if isinstance(self._sources[0], sources.CorpusSource) else None

    @classmethod
    def over(
        cls,
        settings: Settings,
        embedder: Embedder | None,
        candidate_sources: Sequence[CandidateSource],
        ranking: RankingVariant = SHIPPED,
    ) -> Retriever:
        """A retriever over the given sources, asked in order (no title events)."""
        if not candidate_sources:
            raise ValueError("a retriever needs at least one candidate source")
        retriever = cls.__new__(cls)
        retriever._s, retriever._embedder, retriever._ranking = settings, embedder, ranking
        retriever._sources, retriever._corpora = list(candidate_sources), None
        return retriever

    def corpus(self, tenant_id: str) -> TenantCorpus | None:
        """The tenant's corpus, read (refreshed) once per question: its title events
        for query analysis, then handed back to :meth:`retrieve`. None on the managed
        path, which keeps no corpus (and so resolves no title events)."""
        if self._corpora is None:
            return None
        return self._corpora.get(tenant_id)

    def events(self, tenant_id: str) -> dict[str, date]:
        """Event names the tenant's note titles date ("launch"), for query analysis."""
        corpus = self.corpus(tenant_id)
        return corpus.events if corpus is not None else {}

    def retrieve(
        self,
        tenant_id: str,
        analysis: QueryAnalysis,
        k: int | None = None,
        fusion_name: str | None = None,
        corpus: TenantCorpus | None = None,
        focus: Sequence[str] = (),
    ) -> RetrievalResult:
        """``corpus``: the one :meth:`corpus` returned for this question, if read
        already; otherwise it is read here, once for both passes.

        ``focus``: chunk ids a follow-up is read in (the passages the previous answer
        cited, in its order). Those the question's window and types admit are among the
        chunks whatever their words, the lead first: a person's "it" or "there" refers
        to what was just said (``pipeline.rank``)."""
        corpus = corpus if corpus is not None else self.corpus(tenant_id)
        result = self._widened_retrieve(tenant_id, analysis, k, fusion_name, corpus, focus)
        if result.strategy is Strategy.PERIOD_NOTES:
            return result
        # A period is also what a note written long after it is about ("Steuerbescheid
        # 2024", noted in 2026; "the 2025 budget"): a note written since the period
        # began that names a day or year of it is the period's evidence too, and wins
        # as the widened window does, by better support.
        told = _since(analysis)
        if told is None:
            return result
        t0 = time.perf_counter()
        later = self._retrieve(tenant_id, told, k, fusion_name, corpus, focus)
        window = analysis.window
        assert window is not None
        naming = [c for c in later.chunks if _names_the_period(c.chunk, window, analysis.language)]
        if not later.matched or not naming:
            return result
        best = max(c.similarity for c in naming)
        if result.matched and best <= _best_support(result):
            return result
        kept = [
            c for c in result.chunks if c.chunk.chunk_id not in {n.chunk.chunk_id for n in naming}
        ]
        chunks = sorted(naming, key=lambda c: -c.similarity) + kept
        chunks = chunks[: k or self._s.retrieval_rerank_to]
        conf, matched = pipeline.gate([c.similarity for c in chunks], self._s)
        return _widened_pass(later, result, t0, chunks=chunks, confidence=conf, matched=matched)

    def _widened_retrieve(
        self,
        tenant_id: str,
        analysis: QueryAnalysis,
        k: int | None,
        fusion_name: str | None,
        corpus: TenantCorpus | None,
        focus: Sequence[str],
    ) -> RetrievalResult:
        result = self._retrieve(tenant_id, analysis, k, fusion_name, corpus, focus)
        widened = _widened(analysis, self._s.window_grace_days)
        if widened is None or result.strategy is Strategy.PERIOD_NOTES:
            return result  # a period asked for is the period's notes, not the days after
        # What happened in a period is often written down after it ("On May 23…" told on
        # May 27 as "last Tuesday"; January's figures noted on 9 February; a race's result
        # the day after the note that named it). The window is what the asker said, the
        # notes are the evidence: the widened window wins when it finds a passage that
        # supports the question better than anything written inside the window.
        t0 = time.perf_counter()
        later = self._retrieve(tenant_id, widened, k, fusion_name, corpus, focus)
        if not later.matched or (result.matched and _best_support(later) <= _best_support(result)):
            return result
        return _widened_pass(later, result, t0)

    def _retrieve(
        self,
        tenant_id: str,
        analysis: QueryAnalysis,
        k: int | None,
        fusion_name: str | None,
        corpus: TenantCorpus | None,
        focus: Sequence[str],
    ) -> RetrievalResult:
        s = self._s
        k = k or s.retrieval_rerank_to
        fallbacks: list[Fallback] = []
        started = time.perf_counter()
        vector = self._embed(analysis, fallbacks)
        timings = {"embed": _ms(started)}
        model_id = self._embedder.model_id if self._embedder is not None else ""
        request = CandidateRequest(tenant_id, analysis, vector, model_id, s.retrieval_top_k, corpus)
        source, found = self._candidates(request, fallbacks)
        fallbacks.extend(found.fallbacks)
        timings.update(found.timings_ms)
        if found.tenant_empty:
            return RetrievalResult([], Strategy.NONE, 0, 0.0, timings_ms=timings, matched=False)
        if _asks_for_the_period(analysis, found, corpus) and not focus:
            # "What did I write in March 2023?", "¿Qué pasó la semana pasada?": the
            # question's content is its time; its sources are that period's notes
            wanted = found.stand_ins[:k]
            stored = source.read(tenant_id, wanted)
            period = sorted(
                (ScoredChunk(stored[c], 1.0, 1.0, ("recency",)) for c in wanted if c in stored),
                key=lambda c: (c.chunk.created_at, c.chunk.chunk_id),
            )
            if period:
                return RetrievalResult(
                    period,
                    Strategy.PERIOD_NOTES,
                    len(found.stand_ins),
                    1.0,
                    tuple(fallbacks),
                    timings,
                    matched=True,
                )

        held = (
            _admitted(source.read(tenant_id, focus), focus, analysis, found.fallbacks)
            if focus
            else []
        )
        found = with_chunks(found, held, model_id)

        started = time.perf_counter()
        ranking = pipeline.rank(
            found,
            vector,
            k,
            fusion_name or self._ranking.fusion,
            s,
            self._ranking,
            focus=[c.chunk_id for c in held],
        )
        timings["rerank"] = _ms(started)
        picks = ranking.picks
        if picks:
            started = time.perf_counter()
            stored = {c.chunk_id: c for c in held}
            stored |= source.read(
                tenant_id, [p.chunk_id for p in picks if p.chunk_id not in stored]
            )
            timings["fetch"] = _ms(started)
            if len(stored) < len(picks):
                fallbacks.append(Fallback.STALE_HITS_DROPPED)
            picks = tuple(p for p in picks if p.chunk_id in stored)
        if picks:
            chunks = [
                ScoredChunk(stored[p.chunk_id], p.score, p.similarity, p.sources, p.breakdown)
                for p in picks
            ]
            conf, matched = pipeline.gate([c.similarity for c in chunks], s)
            strategy = (
                _dense_strategy(fallbacks) if found.vector is not None else Strategy.KEYWORD_RECENCY
            )
        else:
            # Nothing relevant: offer the most recent notes as context, flagged unmatched.
            wanted = found.stand_ins[:k]
            recent = source.read(tenant_id, wanted) if wanted else {}
            chunks = [ScoredChunk(recent[c], 0.0, 0.0, ("recency",)) for c in wanted if c in recent]
            conf, matched, strategy = 0.0, False, Strategy.RECENT_NOTES
        return RetrievalResult(
            chunks, strategy, ranking.candidate_count, conf, tuple(fallbacks), timings, matched
        )

    def _candidates(
        self, request: CandidateRequest, fallbacks: list[Fallback]
    ) -> tuple[CandidateSource, Candidates]:
        """The first source's answer; a stand-in is named in ``fallbacks``."""
        for i, source in enumerate(self._sources):
            try:
                found = source.candidates(request)
            except SearchUnavailable:
                left = [s.name for s in self._sources[i + 1 :]]
                stand_in = "no" if not left else "in-memory" if left[0] == MEMORY else left[0]
                log.exception("vector index %s failed, using %s index", source.name, stand_in)
                continue
            if i > 0:
                fallbacks.append(Fallback(f"vector_index_{source.name}"))
            return source, found
        raise SearchUnavailable("no candidate source could answer the query")

    def _embed(self, analysis: QueryAnalysis, fallbacks: list[Fallback]) -> list[float] | None:
        if self._embedder is None or not analysis.normalized:
            return None
        try:
            return self._embedder.embed_query(analysis.normalized)
        except UPSTREAM_ERRORS as exc:  # degrade to keywords, don't fail the chat
            log.warning("query embedding failed, using keywords: %s", exc)
        fallbacks.append(Fallback.EMBEDDER_DOWN)
        return None


def _asks_for_the_period(
    analysis: QueryAnalysis, found: Candidates, corpus: TenantCorpus | None
) -> bool:
    """The question names a period and none of its words is a word of the notes (of any
    period: "write", "happened", "escribí"): it asks what that period's notes say
    ("what happened last week?"). With a word the notes hold ("in 2023 about travel",
    "after the party, about the tiramisu") it is searched for."""
    if analysis.window is None or Fallback.TIME_WINDOW_AS_KEYWORDS in found.fallbacks:
        return False
    if not found.stand_ins or found.keyword:
        return False
    return corpus is None or not any(corpus.holds(k) for k in analysis.keywords)


def _admitted(
    stored: dict[str, Chunk],
    order: Sequence[str],
    analysis: QueryAnalysis,
    relaxed: Sequence[Fallback],
) -> list[Chunk]:
    """The stored chunks of ``order``, in its order, that the question's window and
    types admit as the source did (``relaxed``: what it had to relax): a follow-up
    that asks about another period reads other notes."""
    window = None if Fallback.TIME_WINDOW_AS_KEYWORDS in relaxed else analysis.window
    types = set() if Fallback.TYPE_FILTER_RELAXED in relaxed else set(analysis.types)
    return [
        c
        for c in (stored.get(cid) for cid in dict.fromkeys(order))
        if c is not None
        and (not types or c.memory_type in types)
        and (window is None or window.contains(c.created_at))
    ]


def _dense_strategy(fallbacks: Sequence[Fallback]) -> Strategy:
    """Hybrid, and which index served the dense half when the configured one failed.
    The corpus is the last resort, so when it served, it is what the answer came from."""
    if Fallback.VECTOR_INDEX_MEMORY in fallbacks:
        return Strategy.HYBRID_MEMORY_FALLBACK
    if Fallback.VECTOR_INDEX_FIRESTORE in fallbacks:
        return Strategy.HYBRID_FIRESTORE_FALLBACK
    return Strategy.HYBRID


def _widened(analysis: QueryAnalysis, days: int) -> QueryAnalysis | None:
    """The window as the notes about it may have been written; None when there is none.

    A closed period ("on May 23", "in January") ends ``days`` later, or a third of the
    period later for a long one (a month's figures are written up in the first days of
    the next). "After X" starts on X's own day: the note that dates an event was written
    that day, and so may its outcome be. "Before X" and "until X" end at a bound the
    asker set, never moved."""
    window = analysis.window
    if days <= 0 or window is None or window.start is None:
        return None
    if window.end is None:
        earlier = dataclasses.replace(window, start=window.start - timedelta(days=1))
        return dataclasses.replace(analysis, window=earlier)
    grace = max(timedelta(days=days), (window.end - window.start) / 3)
    later = dataclasses.replace(window, end=window.end + grace)
    return dataclasses.replace(analysis, window=later)


def _widened_pass(
    later: RetrievalResult, first: RetrievalResult, started: float, **changes: Any
) -> RetrievalResult:
    """The result of a pass over a wider window, marked so; the first pass's stages cost
    time too: their timings are kept, with the second pass's total."""
    return dataclasses.replace(
        later,
        fallbacks=(*later.fallbacks, Fallback.TIME_WINDOW_WIDENED),
        timings_ms={**first.timings_ms, "widened": _ms(started)},
        **changes,
    )


def _since(analysis: QueryAnalysis) -> QueryAnalysis | None:
    """The question read over the notes written since its period began; None when it
    names no closed period."""
    window = analysis.window
    if window is None or window.start is None or window.end is None:
        return None
    return dataclasses.replace(analysis, window=dataclasses.replace(window, end=None))


def _names_the_period(chunk: Chunk, window: TimeWindow, language: str) -> bool:
    """The chunk was written in ``window`` or names a day of it (read against the day
    it was written, in the language it is written in), or a whole year of it."""
    if window.contains(chunk.created_at):
        return True
    assert window.start is not None and window.end is not None
    zone = window.start.tzinfo
    start, end = window.start.replace(tzinfo=None), window.end.replace(tzinfo=None)
    text = chunk.titled_text
    for year in {int(y) for y in _YEAR.findall(text)}:
        if start <= datetime(year, 1, 1) and datetime(year + 1, 1, 1) <= end:
            return True
    written = chunk.created_at.astimezone(zone).replace(tzinfo=None)
    lang = supported_language(language_of_text(text, prior=language)) or "en"
    for span in note_dates(text, written, lang):
        day = span.named or span.start
        if day is not None and start <= day < end:
            return True
    return False


# A year written out in a note ("Steuerbescheid 2024", "the 2025 budget").
_YEAR = re.compile(r"(?<![\d.,/-])(?:19|20)\d\d(?![\d.,/-]?\d)")


def _best_support(result: RetrievalResult) -> float:
    return max((c.similarity for c in result.chunks), default=0.0)


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
