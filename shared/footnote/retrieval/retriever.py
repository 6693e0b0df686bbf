"""Hybrid retrieval: vector, keyword and recency candidates, fused, diversified, gated."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from footnote.config import Settings
from footnote.domain import Hit, QueryAnalysis, ScoredChunk
from footnote.errors import FootnoteError
from footnote.ports import Embedder, VectorIndex, VectorQuery
from footnote.retrieval import fusion
from footnote.retrieval.corpus import CorpusCache, Feedback, TenantCorpus
from footnote.retrieval.gating import confidence
from footnote.retrieval.mmr import mmr
from footnote.text import terms

log = logging.getLogger(__name__)

# Strategy names reported in meta.retrieval.strategy.
HYBRID = "hybrid_reranked"
# Hybrid, but the configured vector index (Vector Search) was unconfigured or failed
# and the in-memory index stood in: clients and dashboards see it without parsing logs.
HYBRID_MEMORY_FALLBACK = "hybrid_reranked_memory_fallback"
KEYWORD_RECENCY = "keyword_recency"
RECENT_NOTES = "recent_notes"
NONE = "none"

FUSIONS = ("hybrid", "rrf", "weighted", "bm25", "dense")


@dataclass(frozen=True)
class RetrievalResult:
    chunks: list[ScoredChunk]
    strategy: str
    candidate_count: int
    confidence: float
    fallbacks: tuple[str, ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)
    matched: bool = True  # False: nothing relevant; chunks are recent notes, if any


class Retriever:
    def __init__(
        self,
        settings: Settings,
        corpora: CorpusCache,
        embedder: Embedder | None,
        vector_index: VectorIndex | None,
    ) -> None:
        self._s = settings
        self._corpora = corpora
        self._embedder = embedder
        self._index = vector_index  # None: search the in-memory corpus directly

    def events(self, tenant_id: str) -> dict[str, date]:
        """Event names the tenant's note titles date ("launch"), for query analysis."""
        return self._corpora.get(tenant_id).events

    def retrieve(
        self,
        tenant_id: str,
        analysis: QueryAnalysis,
        k: int | None = None,
        fusion_name: str | None = None,
    ) -> RetrievalResult:
        s = self._s
        k = k or s.retrieval_rerank_to
        fusion_name = fusion_name or s.fusion
        timings: dict[str, float] = {}
        fallbacks: list[str] = []
        t0 = time.perf_counter()
        corpus = self._corpora.get(tenant_id)
        timings["loadMs"] = _ms(t0)
        if not len(corpus):
            return RetrievalResult([], NONE, 0, 0.0, timings_ms=timings, matched=False)

        analysis = _content_dates_as_keywords(analysis, corpus, fallbacks)
        mask = corpus.mask(analysis.window, analysis.types)
        if analysis.types and not mask.any():
            # A type filter that hides everything is more likely wrong than right.
            fallbacks.append("type_filter_relaxed")
            mask = corpus.mask(analysis.window, ())
        if not mask.any():
            return RetrievalResult(
                [], RECENT_NOTES, 0, 0.0, tuple(fallbacks), timings, matched=False
            )

        t1 = time.perf_counter()
        query_vector, vector_hits = self._dense(tenant_id, analysis, corpus, mask, fallbacks)
        timings["vectorMs"] = _ms(t1)
        top_k = s.retrieval_top_k
        t2 = time.perf_counter()
        feedback = Feedback(s.feedback_terms, s.feedback_docs, s.feedback_weight)
        keyword_hits = corpus.keyword_hits(analysis.keywords, top_k, mask, feedback)
        timings["keywordMs"] = _ms(t2)
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
                    chunk=corpus.chunks[corpus.by_id[cid]],
                    score=by_id[cid].score,
                    similarity=similarity[cid],
                    sources=by_id[cid].sources,
                    breakdown=dict(by_id[cid].breakdown),
                )
                for cid in picked
            ]
            timings["rerankMs"] = _ms(t3)
            conf = confidence([c.similarity for c in chunks])
            strategy = _dense_strategy(fallbacks) if query_vector is not None else KEYWORD_RECENCY
            matched = conf >= s.min_confidence
            return RetrievalResult(
                chunks, strategy, len(candidate_ids), conf, tuple(fallbacks), timings, matched
            )

        # Nothing relevant: offer the most recent notes as context, flagged unmatched.
        recent = [
            ScoredChunk(corpus.chunks[corpus.by_id[h.chunk_id]], 0.0, 0.0, ("recency",))
            for h in recent_hits[:k]
        ]
        return RetrievalResult(
            recent, RECENT_NOTES, len(candidate_ids), 0.0, tuple(fallbacks), timings, False
        )

    # -- stages ----------------------------------------------------------------
    def _dense(
        self,
        tenant_id: str,
        analysis: QueryAnalysis,
        corpus: TenantCorpus,
        mask: np.ndarray,
        fallbacks: list[str],
    ) -> tuple[list[float] | None, list[Hit]]:
        if self._embedder is None or not analysis.normalized:
            return None, []
        try:
            vector = self._embedder.embed_query(analysis.normalized)
        except FootnoteError as exc:
            log.warning("query embedding failed, using keywords: %s", exc.message)
            fallbacks.append("embedder_down")
            return None, []
        except Exception:  # any SDK or model failure: degrade, don't fail the chat
            log.exception("query embedding failed, using keywords")
            fallbacks.append("embedder_down")
            return None, []
        if self._embedder.model_id not in corpus.model_ids and corpus.model_ids:
            # Vectors of another model must never be compared with this query.
            fallbacks.append("embedding_model_mismatch")
            return None, []
        same_model = corpus.model_mask(self._embedder.model_id)
        if not same_model.all():
            # Mid-migration: the chunks not yet re-embedded are found by keyword only.
            fallbacks.append("embedding_model_mixed")
            mask = mask & same_model
        top_k = self._s.retrieval_top_k
        if self._index is not None:
            try:
                hits = self._index.search(
                    VectorQuery(tenant_id, vector, top_k, analysis.window, analysis.types)
                )
                # the mask (time window, types) binds index hits too, whatever the index did
                return vector, [
                    h for h in hits if h.chunk_id in corpus.by_id and mask[corpus.by_id[h.chunk_id]]
                ]
            except Exception:
                log.exception("vector index %s failed, using in-memory index", self._index.name)
                fallbacks.append("vector_index_memory")
        return vector, corpus.vector_hits(vector, top_k, mask)

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
        """How well each candidate matches: cosine to the query, else keyword coverage."""
        wanted = set(analysis.keywords)

        def coverage(cid: str) -> float:
            have = set(corpus.chunks[corpus.by_id[cid]].terms)
            return len(wanted & have) / len(wanted) if wanted else 0.0

        if query_vector is None or self._embedder is None:
            return {cid: coverage(cid) for cid in ids}
        sims = corpus.similarities(query_vector)
        comparable = corpus.model_mask(self._embedder.model_id)
        # A chunk embedded by another model has no cosine to this query; its terms speak.
        return {
            cid: float(sims[corpus.by_id[cid]]) if comparable[corpus.by_id[cid]] else coverage(cid)
            for cid in ids
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
    created = corpus.created[mask]
    return bool(len(created)) and float(created.max() - created.min()) > 0


def _dense_strategy(fallbacks: Sequence[str]) -> str:
    return HYBRID_MEMORY_FALLBACK if "vector_index_memory" in fallbacks else HYBRID


def _content_dates_as_keywords(
    analysis: QueryAnalysis, corpus: TenantCorpus, fallbacks: list[str]
) -> QueryAnalysis:
    """A period that ends before the tenant's first note cannot be when a note was
    written ("who was born in 1943?"): search for it in the text instead."""
    window = analysis.window
    if window is None or window.end is None or not len(corpus):
        return analysis
    if window.end.timestamp() > float(corpus.created.min()):
        return analysis
    fallbacks.append("time_window_as_keywords")
    extra = tuple(t for t in terms(window.label) if t not in analysis.keywords)
    return dataclasses.replace(analysis, window=None, keywords=analysis.keywords + extra)


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
