"""Hybrid retrieval: vector, keyword and recency candidates, fused, diversified, gated.

Why this module is over ~400 lines: the ``Retriever`` reaches one result by two
paths, in memory (a tenant corpus) and managed (Vector Search, with its Firestore
and in-memory fallbacks), and both run the same later stages (fusion, support,
diversification, gating) and report the same strategy and fallback names. Apart,
the paths would either duplicate those stages or hand the retriever's state from
module to module; the module-level helpers at the bottom are short and pure.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

import numpy as np

from footnote.config import Settings
from footnote.domain import Fallback, Hit, QueryAnalysis, ScoredChunk, Strategy
from footnote.errors import FootnoteError
from footnote.ports import (
    ChunkStore,
    Embedder,
    HybridHits,
    HybridQuery,
    Neighbor,
    VectorIndex,
    VectorQuery,
)
from footnote.retrieval import fusion
from footnote.retrieval.bm25 import Feedback
from footnote.retrieval.corpus import CorpusCache, TenantCorpus
from footnote.retrieval.gating import confidence
from footnote.retrieval.mmr import mmr
from footnote.text import terms

log = logging.getLogger(__name__)

# The strategy names, under the names the services and tests know them by.
HYBRID = Strategy.HYBRID
HYBRID_MEMORY_FALLBACK = Strategy.HYBRID_MEMORY_FALLBACK
HYBRID_FIRESTORE_FALLBACK = Strategy.HYBRID_FIRESTORE_FALLBACK
KEYWORD_RECENCY = Strategy.KEYWORD_RECENCY
RECENT_NOTES = Strategy.RECENT_NOTES
NONE = Strategy.NONE

FUSIONS = ("hybrid", "rrf", "weighted", "bm25", "dense")


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
    """Hybrid retrieval over one of two kinds of index.

    In memory (``corpora`` given, ``vector_index`` None or the in-memory index): the
    tenant's corpus answers dense, keyword and recency lists exactly.

    Managed (``vector_index`` serves both halves, e.g. Vector Search, and
    ``corpora`` is None): one ``search_hybrid`` call returns dense and keyword
    neighbours with their vectors; fusion, gating and MMR run on those, and only
    the k winners are read from the chunk store — a query costs O(k) document
    reads whatever the size of the notebook, and nothing scans the tenant. When the
    managed index fails, ``fallback_index`` (Firestore vector search) serves the
    dense half, or, where a corpus exists (tests, small deployments), the corpus.
    """

    def __init__(
        self,
        settings: Settings,
        corpora: CorpusCache | None,
        embedder: Embedder | None,
        vector_index: VectorIndex | None,
        chunks: ChunkStore | None = None,
        fallback_index: VectorIndex | None = None,
    ) -> None:
        self._s = settings
        self._corpora = corpora
        self._embedder = embedder
        self._index = vector_index  # None: search the in-memory corpus directly
        self._chunks = chunks
        self._fallback = fallback_index
        self._managed = vector_index is not None and getattr(vector_index, "name", "") != "memory"
        if self._managed and chunks is None:
            raise ValueError("a managed vector index needs the chunk store to read the winners")
        if not self._managed and corpora is None:
            raise ValueError("in-memory retrieval needs the corpus cache")

    def corpus(self, tenant_id: str) -> TenantCorpus | None:
        """The tenant's corpus, read (refreshed) once per question: its title events
        for query analysis, then handed back to :meth:`retrieve`. None on the managed
        path, which keeps no corpus (and so resolves no title events)."""
        if self._corpora is None or self._managed:
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
    ) -> RetrievalResult:
        """``corpus``: the one :meth:`corpus` returned for this question, if read
        already; otherwise it is read here, once for both passes."""
        corpus = corpus if corpus is not None else self.corpus(tenant_id)
        result = self._retrieve(tenant_id, analysis, k, fusion_name, corpus)
        widened = _widened(analysis, self._s.window_grace_days)
        if widened is None:
            return result
        # What happened in a period is often written down after it ("On May 23…" told on
        # May 27 as "last Tuesday"; January's figures noted on 9 February; a race's result
        # the day after the note that named it). The window is what the asker said, the
        # notes are the evidence: the widened window wins when it finds a passage that
        # supports the question better than anything written inside the window.
        t0 = time.perf_counter()
        later = self._retrieve(tenant_id, widened, k, fusion_name, corpus)
        if not later.matched or (result.matched and _best_support(later) <= _best_support(result)):
            return result
        return dataclasses.replace(
            later,
            fallbacks=(*later.fallbacks, Fallback.TIME_WINDOW_WIDENED),
            # the first pass's stages cost time too: keep them, and the second pass's total
            timings_ms={**result.timings_ms, "widened": _ms(t0)},
        )

    def _retrieve(
        self,
        tenant_id: str,
        analysis: QueryAnalysis,
        k: int | None,
        fusion_name: str | None,
        corpus: TenantCorpus | None,
    ) -> RetrievalResult:
        s = self._s
        k = k or s.retrieval_rerank_to
        fusion_name = fusion_name or s.fusion
        timings: dict[str, float] = {}
        fallbacks: list[Fallback] = []
        if self._managed:
            managed = self._retrieve_managed(
                tenant_id, analysis, k, fusion_name, timings, fallbacks
            )
            if managed is not None:
                return managed
            fallbacks.append(Fallback.VECTOR_INDEX_MEMORY)
        assert self._corpora is not None
        t0 = time.perf_counter()
        corpus = corpus if corpus is not None else self._corpora.get(tenant_id)
        timings["load"] = _ms(t0)
        with corpus.lock:
            return self._retrieve_memory(
                corpus, tenant_id, analysis, k, fusion_name, timings, fallbacks
            )

    def _retrieve_memory(
        self,
        corpus: TenantCorpus,
        tenant_id: str,
        analysis: QueryAnalysis,
        k: int,
        fusion_name: str,
        timings: dict[str, float],
        fallbacks: list[Fallback],
    ) -> RetrievalResult:
        s = self._s
        if not len(corpus):
            return RetrievalResult([], NONE, 0, 0.0, timings_ms=timings, matched=False)

        analysis = _content_dates_as_keywords(analysis, corpus, fallbacks)
        mask = corpus.mask(analysis.window, analysis.types)
        if analysis.types and not mask.any():
            # A type filter that hides everything is more likely wrong than right.
            fallbacks.append(Fallback.TYPE_FILTER_RELAXED)
            mask = corpus.mask(analysis.window, ())
        if not mask.any():
            return RetrievalResult(
                [], RECENT_NOTES, 0, 0.0, tuple(fallbacks), timings, matched=False
            )

        t1 = time.perf_counter()
        query_vector, vector_hits = self._dense(tenant_id, analysis, corpus, mask, fallbacks)
        timings["vector"] = _ms(t1)
        top_k = s.retrieval_top_k
        t2 = time.perf_counter()
        feedback = Feedback(s.feedback_terms, s.feedback_docs, s.feedback_weight)
        keyword_hits = corpus.keyword_hits(analysis.keywords, top_k, mask, feedback)
        timings["keyword"] = _ms(t2)
        recent_hits = corpus.recent_hits(top_k, mask)

        rankings: dict[str, Sequence[Hit]] = {"keyword": keyword_hits}
        if query_vector is not None:
            rankings["vector"] = vector_hits
        if s.weight_recency > 0 and _dates_differ(corpus, mask):
            rankings["recency"] = recent_hits
        fused = self._fuse(rankings, fusion_name, query_vector is not None)
        candidate_ids = [f.chunk_id for f in fused if f.chunk_id in corpus.by_id]

        similarity = self._support(corpus, candidate_ids, query_vector, analysis)
        relevant = [cid for cid in candidate_ids if similarity[cid] >= s.min_similarity]
        t3 = time.perf_counter()
        if relevant:
            by_id = {f.chunk_id: f for f in fused}
            picked = self._diversify(corpus, relevant, by_id, k)
            chunks = [
                ScoredChunk(
                    chunk=corpus.chunk(cid),
                    score=by_id[cid].score,
                    similarity=similarity[cid],
                    sources=by_id[cid].sources,
                    breakdown=dict(by_id[cid].breakdown),
                )
                for cid in picked
            ]
            timings["rerank"] = _ms(t3)
            conf = confidence([c.similarity for c in chunks])
            strategy = _dense_strategy(fallbacks) if query_vector is not None else KEYWORD_RECENCY
            matched = conf >= s.min_confidence
            return RetrievalResult(
                chunks, strategy, len(candidate_ids), conf, tuple(fallbacks), timings, matched
            )

        # Nothing relevant: offer the most recent notes as context, flagged unmatched.
        recent = [
            ScoredChunk(corpus.chunk(h.chunk_id), 0.0, 0.0, ("recency",)) for h in recent_hits[:k]
        ]
        return RetrievalResult(
            recent, RECENT_NOTES, len(candidate_ids), 0.0, tuple(fallbacks), timings, False
        )

    # -- managed path: O(k) reads ------------------------------------------------------
    def _retrieve_managed(
        self,
        tenant_id: str,
        analysis: QueryAnalysis,
        k: int,
        fusion_name: str,
        timings: dict[str, float],
        fallbacks: list[Fallback],
    ) -> RetrievalResult | None:
        """Retrieval through an index that serves both halves; None when it failed and
        only the in-memory corpus can stand in."""
        s = self._s
        t1 = time.perf_counter()
        vector = self._embed(analysis, fallbacks)
        timings["embed"] = _ms(t1)
        model_id = self._embedder.model_id if self._embedder is not None else ""
        query = HybridQuery(
            tenant_id,
            model_id,
            vector,
            analysis.keywords,
            s.retrieval_top_k,
            analysis.window,
            analysis.types,
        )
        t2 = time.perf_counter()
        hits = self._search_managed(query, fallbacks)
        if hits is None:
            return None
        if analysis.types and not (hits.dense or hits.keyword):
            # A type filter that hides everything is more likely wrong than right.
            fallbacks.append(Fallback.TYPE_FILTER_RELAXED)
            hits = self._search_managed(dataclasses.replace(query, types=()), fallbacks)
            if hits is None:
                return None
        timings["search"] = _ms(t2)
        hits = _within(hits, analysis)
        if vector is not None and any(n.vector is None for n in hits.keyword):
            # Mid-migration: chunks not yet re-embedded are found by keyword only.
            fallbacks.append(Fallback.EMBEDDING_MODEL_MIXED)
        neighbors: dict[str, Neighbor] = {}
        for n in [*hits.dense, *hits.keyword, *hits.recent]:
            neighbors.setdefault(n.chunk_id, n)
        if not neighbors:
            return RetrievalResult([], RECENT_NOTES, 0, 0.0, tuple(fallbacks), timings, False)

        rankings: dict[str, Sequence[Hit]] = {
            "keyword": [Hit(n.chunk_id, n.score) for n in hits.keyword]
        }
        if vector is not None:
            rankings["vector"] = [Hit(n.chunk_id, n.score) for n in hits.dense]
        recent = hits.recent or sorted(neighbors.values(), key=lambda n: (-n.created, n.chunk_id))
        if s.weight_recency > 0 and len({n.created for n in recent}) > 1:
            rankings["recency"] = [Hit(n.chunk_id, n.created) for n in recent]
        fused = self._fuse(rankings, fusion_name, vector is not None)
        by_id = {f.chunk_id: f for f in fused}
        candidate_ids = [f.chunk_id for f in fused if f.chunk_id in neighbors]

        similarity = _neighbor_support(neighbors, candidate_ids, vector, hits)
        relevant = [cid for cid in candidate_ids if similarity[cid] >= s.min_similarity]
        if not relevant:
            return RetrievalResult(
                [], RECENT_NOTES, len(candidate_ids), 0.0, tuple(fallbacks), timings, False
            )
        t3 = time.perf_counter()
        pool = relevant[: s.retrieval_top_k]
        dim = len(vector) if vector is not None else 0
        vectors = np.array(
            [
                neighbors[cid].vector
                if neighbors[cid].vector is not None and len(neighbors[cid].vector or ()) == dim
                else np.zeros(dim)
                for cid in pool
            ],
            dtype=np.float32,
        ).reshape(len(pool), dim)
        picked = self._mmr(pool, vectors, by_id, k)
        timings["rerank"] = _ms(t3)
        t4 = time.perf_counter()
        assert self._chunks is not None
        # The only chunk reads of the query: the k winners, in one batch. A note
        # deleted or edited since it was indexed has no chunk documents left.
        stored = {c.chunk_id: c for c in self._chunks.get_chunks(tenant_id, picked)}
        timings["fetch"] = _ms(t4)
        if len(stored) < len(picked):
            fallbacks.append(Fallback.STALE_HITS_DROPPED)
        chunks = [
            ScoredChunk(
                chunk=stored[cid],
                score=by_id[cid].score,
                similarity=similarity[cid],
                sources=by_id[cid].sources,
                breakdown=dict(by_id[cid].breakdown),
            )
            for cid in picked
            if cid in stored
        ]
        if not chunks:
            return RetrievalResult(
                [], RECENT_NOTES, len(candidate_ids), 0.0, tuple(fallbacks), timings, False
            )
        conf = confidence([c.similarity for c in chunks])
        strategy = _dense_strategy(fallbacks) if vector is not None else KEYWORD_RECENCY
        return RetrievalResult(
            chunks,
            strategy,
            len(candidate_ids),
            conf,
            tuple(fallbacks),
            timings,
            conf >= s.min_confidence,
        )

    def _search_managed(self, query: HybridQuery, fallbacks: list[Fallback]) -> HybridHits | None:
        assert self._index is not None
        try:
            return self._index.search_hybrid(query)
        except Exception:
            stand_in = self._fallback.name if self._fallback is not None else "in-memory"
            log.exception("vector index %s failed, using %s index", self._index.name, stand_in)
        if self._fallback is None:
            return None
        try:
            hits = self._fallback.search_hybrid(query)
        except Exception:
            log.exception("fallback vector index %s failed too", self._fallback.name)
            return None
        fallbacks.append(Fallback(f"vector_index_{self._fallback.name}"))
        return hits

    # -- stages ----------------------------------------------------------------
    def _dense(
        self,
        tenant_id: str,
        analysis: QueryAnalysis,
        corpus: TenantCorpus,
        mask: np.ndarray,
        fallbacks: list[Fallback],
    ) -> tuple[list[float] | None, list[Hit]]:
        vector = self._embed(analysis, fallbacks)
        if vector is None or self._embedder is None:
            return None, []
        if self._embedder.model_id not in corpus.model_ids and corpus.model_ids:
            # Vectors of another model must never be compared with this query.
            fallbacks.append(Fallback.EMBEDDING_MODEL_MISMATCH)
            return None, []
        if len(corpus.model_ids) > 1:
            # Mid-migration: the chunks not yet re-embedded are found by keyword only.
            fallbacks.append(Fallback.EMBEDDING_MODEL_MIXED)
            mask = mask & corpus.model_mask(self._embedder.model_id)
        top_k = self._s.retrieval_top_k
        if self._index is not None and not self._managed:
            # The in-memory index searches the same corpus; it is called as a port so
            # a failure of it (fault injection, tests) exercises the fallback below.
            try:
                hits = self._index.search(
                    VectorQuery(tenant_id, vector, top_k, analysis.window, analysis.types)
                )
                return vector, [
                    h for h in hits if h.chunk_id in corpus.by_id and mask[corpus.by_id[h.chunk_id]]
                ]
            except Exception:
                log.exception("vector index %s failed, using the corpus", self._index.name)
                fallbacks.append(Fallback.VECTOR_INDEX_MEMORY)
        return vector, corpus.vector_hits(vector, top_k, mask)

    def _embed(self, analysis: QueryAnalysis, fallbacks: list[Fallback]) -> list[float] | None:
        if self._embedder is None or not analysis.normalized:
            return None
        try:
            return self._embedder.embed_query(analysis.normalized)
        except FootnoteError as exc:
            log.warning("query embedding failed, using keywords: %s", exc.message)
        except Exception:  # any SDK or model failure: degrade, don't fail the chat
            log.exception("query embedding failed, using keywords")
        fallbacks.append(Fallback.EMBEDDER_DOWN)
        return None

    def _fuse(
        self, rankings: dict[str, Sequence[Hit]], name: str, dense: bool
    ) -> list[fusion.Fused]:
        s = self._s
        if name == "bm25" or not dense:
            keyword_only = {"keyword": rankings.get("keyword", [])}
            if not dense and "recency" in rankings:
                keyword_only["recency"] = rankings["recency"]
                return fusion.weighted(keyword_only, {"keyword": 0.85, "recency": 0.15}, 0.0)
            return fusion.weighted(keyword_only, {"keyword": 1.0}, 0.0)
        if name == "dense":
            return fusion.weighted({"vector": rankings["vector"]}, {"vector": 1.0}, 0.0)
        weights = {
            "vector": s.weight_vector,
            "keyword": s.weight_keyword,
            "recency": s.weight_recency,
        }
        if name == "weighted":
            return fusion.weighted(rankings, weights)
        if name == "hybrid":
            alpha = s.hybrid_alpha
            return fusion.convex(
                rankings,
                {"vector": alpha, "keyword": 1.0 - alpha, "recency": s.weight_recency},
                s.hybrid_normalise,
            )
        return fusion.rrf(
            rankings, s.rrf_k, {"vector": 1.0, "keyword": 1.0, "recency": s.weight_recency}
        )

    def _support(
        self,
        corpus: TenantCorpus,
        ids: Sequence[str],
        query_vector: list[float] | None,
        analysis: QueryAnalysis,
    ) -> dict[str, float]:
        """How well each candidate matches: the better of its cosine to the query and
        the idf-weighted share of the query's words it holds (``coverage``).

        Either kind of evidence is enough: a paraphrase shares meaning but few words,
        and a name, a code or a rare word ("Seedcamp", "TODO") is an exact match whose
        cosine to a short query is often low (0.09–0.27 measured on everyday notes).
        Both are on [0, 1] whatever the notebook's size, so one floor and one
        confidence gate serve six notes and sixty thousand."""
        words = corpus.coverage(analysis.keywords, ids)
        if query_vector is None or self._embedder is None:
            return words
        rows = [corpus.by_id[cid] for cid in ids]
        if not rows or corpus.dimension != len(query_vector):
            return words
        # Only the candidates' rows: a second pass over the whole matrix is wasted work.
        sims = corpus.matrix[rows] @ np.asarray(query_vector, dtype=np.float32)
        comparable = corpus.model_mask(self._embedder.model_id)[rows]
        # A chunk embedded by another model has no cosine to this query; its terms speak.
        return {
            cid: max(float(sims[i]), words[cid]) if comparable[i] else words[cid]
            for i, cid in enumerate(ids)
        }

    def _diversify(
        self,
        corpus: TenantCorpus,
        ids: Sequence[str],
        fused: dict[str, fusion.Fused],
        k: int,
    ) -> list[str]:
        pool = list(ids[: self._s.retrieval_top_k])
        vectors = corpus.matrix[[corpus.by_id[cid] for cid in pool]]
        return self._mmr(pool, vectors, fused, k)

    def _mmr(
        self, pool: list[str], vectors: np.ndarray, fused: dict[str, fusion.Fused], k: int
    ) -> list[str]:
        order = mmr(
            [fused[cid].score for cid in pool],
            vectors,
            k,
            self._s.mmr_lambda,
            self._s.near_duplicate_threshold,
        )
        return [pool[i] for i in order]


def _dates_differ(corpus: TenantCorpus, mask: np.ndarray) -> bool:
    """Recency ranks nothing when every candidate note carries the same date."""
    created = corpus.created[: corpus.rows][mask]
    return bool(len(created)) and float(created.max() - created.min()) > 0


def _dense_strategy(fallbacks: Sequence[Fallback]) -> Strategy:
    """Hybrid, and which index served the dense half when the configured one failed.
    The corpus is the last resort, so when it served, it is what the answer came from."""
    if Fallback.VECTOR_INDEX_MEMORY in fallbacks:
        return Strategy.HYBRID_MEMORY_FALLBACK
    if Fallback.VECTOR_INDEX_FIRESTORE in fallbacks:
        return Strategy.HYBRID_FIRESTORE_FALLBACK
    return Strategy.HYBRID


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


def _neighbor_support(
    neighbors: dict[str, Neighbor],
    ids: Sequence[str],
    query_vector: list[float] | None,
    hits: HybridHits,
) -> dict[str, float]:
    """How well each candidate matches: cosine to the query from the vector the index
    returned; without a comparable vector, the keyword score relative to the best."""
    best = max((n.score for n in hits.keyword), default=0.0)
    keyword = {n.chunk_id: n.score for n in hits.keyword}

    def by_words(cid: str) -> float:
        return keyword.get(cid, 0.0) / best if best > 0 else 0.0

    if query_vector is None:
        return {cid: by_words(cid) for cid in ids}
    q = np.asarray(query_vector, dtype=np.float32)
    out = {}
    for cid in ids:
        v = neighbors[cid].vector
        # A chunk embedded by another model (mid-migration) has no cosine to this
        # query; its words speak for it.
        if v is not None and len(v) == len(q):
            out[cid] = float(np.dot(np.asarray(v, dtype=np.float32), q))
        else:
            out[cid] = by_words(cid)
    return out


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


def _best_support(result: RetrievalResult) -> float:
    return max((c.similarity for c in result.chunks), default=0.0)


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


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
