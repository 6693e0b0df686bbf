"""One ranking for every candidate source: fuse → support → diversify (MMR) → gate.

Plain data in (``Candidates``, the query vector, settings), plain data out
(``Pick``s, a confidence): no store, no index, no clock. Whatever the source, a
candidate is ranked by the same fusion, held to the same support floor, and
diversified with the same MMR, so the in-memory corpus and Vector Search give the
same answer for the same lists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from footnote.config import Settings
from footnote.domain import Hit
from footnote.retrieval import fusion
from footnote.retrieval.candidates import Candidates
from footnote.retrieval.gating import confidence
from footnote.retrieval.mmr import mmr
from footnote.retrieval.variant import SHIPPED, RankingVariant

FUSIONS = ("hybrid", "rrf", "weighted", "bm25", "dense")


@dataclass(frozen=True)
class Pick:
    chunk_id: str
    score: float  # the fused score
    similarity: float  # the support: what the floor and the gate read
    sources: tuple[str, ...]  # the lists that found it
    breakdown: dict[str, float] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Ranking:
    picks: tuple[Pick, ...]  # best first, diversified; empty: nothing relevant
    candidate_count: int  # fused candidates the source knows


def rank(
    candidates: Candidates,
    query_vector: Sequence[float] | None,
    k: int,
    fusion_name: str,
    s: Settings,
    variant: RankingVariant = SHIPPED,
    focus: Sequence[str] = (),
) -> Ranking:
    """Up to ``k`` relevant, diverse candidates, best first.

    ``focus``: the passages a follow-up is read in, in the order the previous answer
    cited them; they are picked whatever their support. Its lead (what the previous
    answer said first) is ranked above every passage this question's words found: a
    follow-up's "it" refers to what was just said. Its other citations are placed by
    this question's fused score (before the lead if they outscore it), not forced
    first: an answer's later citations are often context, and where one was wrong,
    ranking it first repeats the mistake (measured on the everyday sets).
    """
    dense = candidates.vector is not None
    rankings: dict[str, Sequence[Hit]] = {"keyword": candidates.keyword}
    if candidates.vector is not None:
        rankings["vector"] = candidates.vector
    if s.weight_recency > 0 and candidates.recency is not None:
        rankings["recency"] = candidates.recency
    fused = fuse(rankings, fusion_name, dense, s, variant)
    ids = [f.chunk_id for f in fused if f.chunk_id in candidates.row]
    held = [cid for cid in dict.fromkeys(focus) if cid in candidates.row][:k]
    similarity = support(
        candidates, list(dict.fromkeys([*ids, *held])), query_vector if dense else None
    )
    relevant = [cid for cid in ids if similarity[cid] >= s.min_similarity and cid not in held]
    count = len({*ids, *held})
    if not relevant and not held:
        return Ranking((), count)
    by_id = {f.chunk_id: f for f in fused}
    pool = _apart_from(relevant[: s.retrieval_top_k], held, candidates, s.near_duplicate_threshold)
    vectors = candidates.vectors[[candidates.row[cid] for cid in pool]]
    order = mmr(
        [by_id[cid].score for cid in pool],
        vectors,
        k - len(held),
        s.mmr_lambda,
        s.near_duplicate_threshold,
    )
    ranked = _with_focus(held, [pool[i] for i in order], {c: f.score for c, f in by_id.items()})
    picks = tuple(_pick(cid, by_id.get(cid), similarity[cid], cid in held) for cid in ranked)
    return Ranking(picks, count)


def _pick(cid: str, fused: fusion.Fused | None, similarity: float, focus: bool) -> Pick:
    """A winner as the pipeline hands it on; a focus passage no list found has no
    fused score (0) and is marked as the follow-up's ("focus")."""
    return Pick(
        cid,
        fused.score if fused is not None else 0.0,
        similarity,
        (*(fused.sources if fused is not None else ()), *(("focus",) if focus else ())),
        dict(fused.breakdown) if fused is not None else {},
    )


def _with_focus(
    focus: Sequence[str], ranked: Sequence[str], score: Mapping[str, float]
) -> list[str]:
    """``ranked`` with the lead of ``focus`` above all of it, and the other focus
    passages where their fused score places them: after the passages that outscore
    them, and before the lead when they outscore it."""
    if not focus:
        return list(ranked)
    out = [focus[0], *ranked]
    for cid in focus[1:]:
        mine = score.get(cid, float("-inf"))
        at = next((i for i, r in enumerate(out) if score.get(r, float("-inf")) < mine), len(out))
        out.insert(at, cid)
    return out


def _apart_from(
    pool: Sequence[str], held: Sequence[str], candidates: Candidates, threshold: float
) -> list[str]:
    """``pool`` without the near-duplicates of a ``held`` candidate (MMR's rule)."""
    if not held or not pool:
        return list(pool)
    kept = candidates.vectors[[candidates.row[cid] for cid in held]]
    rows = candidates.vectors[[candidates.row[cid] for cid in pool]]
    closest = (rows @ kept.T).max(axis=1) if rows.shape[1] else np.zeros(len(pool))
    return [cid for cid, c in zip(pool, closest, strict=True) if c < threshold]


def gate(similarities: Sequence[float], s: Settings) -> tuple[float, bool]:
    """The confidence of the chunks kept, and whether it is enough to answer from."""
    conf = confidence(similarities)
    return conf, conf >= s.min_confidence


def fuse(
    rankings: Mapping[str, Sequence[Hit]],
    name: str,
    dense: bool,
    s: Settings,
    variant: RankingVariant = SHIPPED,
) -> list[fusion.Fused]:
    """The lists as one ranking, by the named fusion (FUSIONS); without a dense half,
    keyword (and recency) alone."""
    if name == "bm25" or not dense:
        keyword_only = {"keyword": rankings.get("keyword", [])}
        if not dense and "recency" in rankings:
            keyword_only["recency"] = rankings["recency"]
            return fusion.weighted(keyword_only, {"keyword": 0.85, "recency": 0.15}, 0.0)
        return fusion.weighted(keyword_only, {"keyword": 1.0}, 0.0)
    if name == "dense":
        return fusion.weighted({"vector": rankings["vector"]}, {"vector": 1.0}, 0.0)
    weights = {
        "vector": variant.weight_vector,
        "keyword": variant.weight_keyword,
        "recency": s.weight_recency,
    }
    if name == "weighted":
        return fusion.weighted(rankings, weights)
    if name == "hybrid":
        alpha = s.hybrid_alpha
        return fusion.convex(
            rankings,
            {"vector": alpha, "keyword": 1.0 - alpha, "recency": s.weight_recency},
            variant.hybrid_normalise,
            # fewer keyword hits than asked for: every chunk holding a query word is listed
            frozenset({"keyword"})
            if len(rankings.get("keyword", ())) < s.retrieval_top_k
            else frozenset(),
        )
    return fusion.rrf(
        rankings, variant.rrf_k, {"vector": 1.0, "keyword": 1.0, "recency": s.weight_recency}
    )


def support(
    candidates: Candidates, ids: Sequence[str], query_vector: Sequence[float] | None
) -> dict[str, float]:
    """How well each candidate matches: the better of its cosine to the query and the
    word evidence its source vouches for.

    Either kind is enough: a paraphrase shares meaning but few words, and a name, a
    code or a rare word ("Seedcamp", "TODO") is an exact match whose cosine to a
    short query is often low (0.09–0.27 measured on everyday notes). Both are on
    [0, 1] whatever the notebook's size, so one floor and one confidence gate serve
    six notes and sixty thousand. A vector of another model (mid-migration) has no
    cosine to this query: its words speak for it."""
    words = candidates.words
    if query_vector is None or not ids or candidates.vectors.shape[1] != len(query_vector):
        return {cid: words.get(cid, 0.0) for cid in ids}
    rows = [candidates.row[cid] for cid in ids]
    # Only the candidates' rows, in this order: a product over other rows rounds differently.
    sims = candidates.vectors[rows] @ np.asarray(query_vector, dtype=np.float32)
    comparable = candidates.comparable[rows]
    out: dict[str, float] = {}
    for i, cid in enumerate(ids):
        if not comparable[i]:
            out[cid] = words.get(cid, 0.0)
        elif cid in words:
            out[cid] = max(float(sims[i]), words[cid])
        else:
            out[cid] = float(sims[i])
    return out
