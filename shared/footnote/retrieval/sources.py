"""The candidate-source adapters (candidates.py): the tenant's corpus, and any vector
index that serves both halves of hybrid search in one call.

``CorpusSource`` answers from the tenant's corpus in memory: exact dense, BM25 and
recency lists, and word support as the idf-weighted share of the query's words a
chunk holds. ``IndexSource`` answers from one ``search_hybrid`` call (Vertex AI
Vector Search, Firestore ``find_nearest``): the neighbours bring their vectors, so
nothing is read until the winners are (``read``, O(k) documents).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence

import numpy as np

from footnote.domain import Chunk, Fallback, Hit, QueryAnalysis
from footnote.errors import UPSTREAM_ERRORS, SearchUnavailable
from footnote.ports import ChunkStore, HybridHits, HybridQuery, Neighbor, VectorIndex, VectorQuery
from footnote.retrieval.candidates import CandidateRequest, Candidates, CandidateSource
from footnote.retrieval.corpus import CorpusCache, TenantCorpus
from footnote.retrieval.variant import SHIPPED, RankingVariant
from footnote.text import terms

log = logging.getLogger(__name__)

MEMORY = "memory"  # the in-memory vector index's name: it searches the corpus itself


class CorpusSource:
    """The tenant's corpus, in memory. ``dense_index`` (the in-memory vector index)
    answers the dense list through its port, so a failure of it (fault injection)
    is seen; the corpus then answers it directly (``vector_index_memory``)."""

    name = MEMORY

    def __init__(
        self,
        corpora: CorpusCache,
        dense_index: VectorIndex | None = None,
        ranking: RankingVariant = SHIPPED,
    ) -> None:
        self._ranking = ranking
        self._corpora = corpora
        self._dense_index = dense_index

    def candidates(self, request: CandidateRequest) -> Candidates:
        started = time.perf_counter()
        try:
            corpus = request.corpus
            if corpus is None:
                corpus = self._corpora.get(request.tenant_id)
        except UPSTREAM_ERRORS as exc:  # the chunk store it loads from
            raise SearchUnavailable(f"loading the tenant's corpus failed: {exc}") from exc
        timings = {"load": _ms(started)}
        with corpus.lock:
            return self._candidates(corpus, request, timings)

    def read(self, tenant_id: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        # The corpus holds no text: the winners are read from the chunk store (O(k)).
        try:
            return self._corpora.read(tenant_id, chunk_ids)
        except UPSTREAM_ERRORS as exc:
            raise SearchUnavailable(f"reading the tenant's chunks failed: {exc}") from exc

    def _candidates(
        self, corpus: TenantCorpus, request: CandidateRequest, timings: dict[str, float]
    ) -> Candidates:
        if not len(corpus):
            return Candidates(timings_ms=timings, tenant_empty=True)
        fallbacks: list[Fallback] = []
        analysis = _content_dates_as_keywords(request.analysis, corpus, fallbacks)
        mask = corpus.mask(analysis.window, analysis.types)
        if analysis.types and not mask.any():
            # A type filter that hides everything is more likely wrong than right; every
            # list (the dense index's too) searches without it.
            fallbacks.append(Fallback.TYPE_FILTER_RELAXED)
            analysis = dataclasses.replace(analysis, types=())
            mask = corpus.mask(analysis.window, ())
        if not mask.any():
            return Candidates(fallbacks=tuple(fallbacks), timings_ms=timings)

        started = time.perf_counter()
        vector_hits = self._dense(request, analysis, corpus, mask, fallbacks)
        timings["vector"] = _ms(started)
        started = time.perf_counter()
        feedback = self._ranking.feedback
        keyword_hits = corpus.keyword_hits(searched_terms(analysis), request.depth, mask, feedback)
        timings["keyword"] = _ms(started)
        recent_hits = corpus.recent_hits(request.depth, mask)
        recency = recent_hits if _dates_differ(corpus, mask) else None

        ids = list(
            dict.fromkeys(
                h.chunk_id for hits in (vector_hits, keyword_hits, recency) for h in hits or ()
            )
        )
        rows = [corpus.by_id[cid] for cid in ids]
        return Candidates(
            keyword=keyword_hits,
            vector=vector_hits,
            recency=recency,
            row={cid: i for i, cid in enumerate(ids)},
            # copies: the pipeline reads them after the corpus lock is released
            vectors=corpus.vectors(rows),
            comparable=corpus.model_mask(request.model_id)[rows],
            words=best_coverage(corpus, analysis, ids),
            stand_ins=tuple(h.chunk_id for h in recent_hits),
            fallbacks=tuple(fallbacks),
            timings_ms=timings,
        )

    def _dense(
        self,
        request: CandidateRequest,
        analysis: QueryAnalysis,
        corpus: TenantCorpus,
        mask: np.ndarray,
        fallbacks: list[Fallback],
    ) -> list[Hit] | None:
        vector, model_id = request.vector, request.model_id
        if vector is None:
            return None
        if model_id not in corpus.model_ids and corpus.model_ids:
            # Vectors of another model must never be compared with this query.
            fallbacks.append(Fallback.EMBEDDING_MODEL_MISMATCH)
            return None
        if len(corpus.model_ids) > 1:
            # Mid-migration: the chunks not yet re-embedded are found by keyword only.
            fallbacks.append(Fallback.EMBEDDING_MODEL_MIXED)
            mask = mask & corpus.model_mask(model_id)
        if self._dense_index is not None:
            query = VectorQuery(
                request.tenant_id, vector, request.depth, analysis.window, analysis.types
            )
            try:
                hits = self._dense_index.search(query)
            except UPSTREAM_ERRORS:
                log.exception("vector index %s failed, using the corpus", self._dense_index.name)
                fallbacks.append(Fallback.VECTOR_INDEX_MEMORY)
            else:
                by_id = corpus.by_id
                return [h for h in hits if h.chunk_id in by_id and mask[by_id[h.chunk_id]]]
        return corpus.vector_hits(vector, request.depth, mask)


class IndexSource:
    """A vector index that serves both halves in one round trip; the winners are read
    from the chunk store."""

    def __init__(self, index: VectorIndex, chunks: ChunkStore) -> None:
        self.name = index.name
        self._index = index
        self._chunks = chunks

    def candidates(self, request: CandidateRequest) -> Candidates:
        analysis = request.analysis
        query = HybridQuery(
            request.tenant_id,
            request.model_id,
            request.vector,
            searched_terms(analysis),  # every reading of its words, as the corpus searches
            request.depth,
            analysis.window,
            analysis.types,
        )
        fallbacks: list[Fallback] = []
        started = time.perf_counter()
        hits = self._search(query)
        if analysis.types and not (hits.dense or hits.keyword):
            # A type filter that hides everything is more likely wrong than right.
            fallbacks.append(Fallback.TYPE_FILTER_RELAXED)
            analysis = dataclasses.replace(analysis, types=())
            hits = self._search(dataclasses.replace(query, types=()))
        timings = {"search": _ms(started)}
        hits = _within(hits, analysis)
        vector = request.vector
        if vector is not None and any(n.vector is None for n in hits.keyword):
            # Mid-migration: chunks not yet re-embedded are found by keyword only.
            fallbacks.append(Fallback.EMBEDDING_MODEL_MIXED)
        neighbors: dict[str, Neighbor] = {}
        for n in [*hits.dense, *hits.keyword, *hits.recent]:
            neighbors.setdefault(n.chunk_id, n)
        if not neighbors:
            return Candidates(fallbacks=tuple(fallbacks), timings_ms=timings)

        recent = hits.recent or sorted(neighbors.values(), key=lambda n: (-n.created, n.chunk_id))
        dim = len(vector) if vector is not None else 0
        comparable = [n.vector is not None and len(n.vector) == dim for n in neighbors.values()]
        # Without a comparable vector, a candidate's words speak: its keyword score
        # relative to the best (a rank, so it never competes with a cosine).
        best = max((n.score for n in hits.keyword), default=0.0)
        keyword = {n.chunk_id: n.score for n in hits.keyword}
        words = {
            cid: keyword.get(cid, 0.0) / best if best > 0 else 0.0
            for cid, same in zip(neighbors, comparable, strict=True)
            if vector is None or not same
        }
        return Candidates(
            keyword=[Hit(n.chunk_id, n.score) for n in hits.keyword],
            vector=[Hit(n.chunk_id, n.score) for n in hits.dense] if vector is not None else None,
            recency=[Hit(n.chunk_id, n.created) for n in recent]
            if len({n.created for n in recent}) > 1
            else None,
            row={cid: i for i, cid in enumerate(neighbors)},
            vectors=np.array(
                [
                    n.vector if same and n.vector is not None else np.zeros(dim)
                    for n, same in zip(neighbors.values(), comparable, strict=True)
                ],
                dtype=np.float32,
            ).reshape(len(neighbors), dim),
            comparable=np.array(comparable, dtype=bool),
            words=words,
            fallbacks=tuple(fallbacks),
            timings_ms=timings,
        )

    def read(self, tenant_id: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        # The only chunk reads of a query: the winners, in one batch.
        return {c.chunk_id: c for c in self._chunks.get_chunks(tenant_id, chunk_ids)}

    def _search(self, query: HybridQuery) -> HybridHits:
        try:
            return self._index.search_hybrid(query)
        except UPSTREAM_ERRORS as exc:
            raise SearchUnavailable(f"vector index {self.name} failed: {exc}") from exc


def chain(
    corpora: CorpusCache | None,
    vector_index: VectorIndex | None,
    chunks: ChunkStore | None = None,
    fallback_index: VectorIndex | None = None,
    ranking: RankingVariant = SHIPPED,
) -> list[CandidateSource]:
    """The sources a retriever asks, in order, from the wiring's parts.

    The in-memory index (or none) searches the corpus, which answers every list
    exactly. Any other index serves both halves; the fallback index, then the
    corpus where one is kept (tests, small deployments), stand in when it fails."""
    if vector_index is None or vector_index.name == MEMORY:
        if corpora is None:
            raise ValueError("in-memory retrieval needs the corpus cache")
        return [CorpusSource(corpora, vector_index, ranking)]
    if chunks is None:
        raise ValueError("a managed vector index needs the chunk store to read the winners")
    sources: list[CandidateSource] = [IndexSource(vector_index, chunks)]
    if fallback_index is not None:
        sources.append(IndexSource(fallback_index, chunks))
    if corpora is not None:
        sources.append(CorpusSource(corpora, ranking=ranking))
    return sources


def _dates_differ(corpus: TenantCorpus, mask: np.ndarray) -> bool:
    """Recency ranks nothing when every candidate note carries the same date."""
    created = corpus.created[: corpus.rows][mask]
    return bool(len(created)) and float(created.max() - created.min()) > 0


def _within(hits: HybridHits, analysis: QueryAnalysis) -> HybridHits:
    """The window and types bind every neighbour, whatever the index did with them."""
    window = analysis.window
    start = window.start.timestamp() if window is not None and window.start else None
    end = window.end.timestamp() if window is not None and window.end else None
    types = set(analysis.types)

    def keep(n: Neighbor) -> bool:
        if start is not None and n.created < start:
            return False
        if end is not None and n.created >= end:
            return False
        return not (types and n.memory_type is not None and n.memory_type not in types)

    return HybridHits(
        [n for n in hits.dense if keep(n)],
        [n for n in hits.keyword if keep(n)],
        [n for n in hits.recent if keep(n)],
    )


def _content_dates_as_keywords(
    analysis: QueryAnalysis, corpus: TenantCorpus, fallbacks: list[Fallback]
) -> QueryAnalysis:
    """A period that ends before the tenant's first note cannot be when a note was
    written ("who was born in 1943?"): search for it in the text instead."""
    window = analysis.window
    earliest = corpus.earliest_created()
    if window is None or window.end is None or earliest is None:
        return analysis
    if window.end.timestamp() > earliest:
        return analysis
    fallbacks.append(Fallback.TIME_WINDOW_AS_KEYWORDS)
    extra = tuple(t for t in terms(window.label) if t not in analysis.keywords)
    return dataclasses.replace(analysis, window=None, keywords=analysis.keywords + extra)


def searched_terms(analysis: QueryAnalysis) -> tuple[str, ...]:
    """The keywords and the words of every other reading of the question, once each:
    what keyword search looks for."""
    return tuple(dict.fromkeys(t for read in (analysis.keywords, *analysis.readings) for t in read))


def best_coverage(
    corpus: TenantCorpus, analysis: QueryAnalysis, chunk_ids: Sequence[str]
) -> dict[str, float]:
    """Each chunk's word support: the share of the question's words it holds, by the
    reading of the question (``QueryAnalysis.readings``) it holds most of. Readings are
    not pooled: a Spanish reader's "What are my todos?" over an English note is read as
    English ("todo": all of it held), not as its words in both languages (half)."""
    offset = _utc_offset_s(analysis)
    best = corpus.coverage(analysis.keywords, chunk_ids, offset)
    for read in analysis.readings:
        for cid, share in corpus.coverage(read, chunk_ids, offset).items():
            if share > best.get(cid, 0.0):
                best[cid] = share
    return best


def _utc_offset_s(analysis: QueryAnalysis) -> float:
    """How far the asker's clock is from UTC (0 when the question carries no clock)."""
    offset = analysis.now.utcoffset() if analysis.now is not None else None
    return offset.total_seconds() if offset is not None else 0.0


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
