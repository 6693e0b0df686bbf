"""Fusing ranked candidate lists: reciprocal-rank fusion and the seeds' weighted sum."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from footnote.domain import Hit


@dataclass(frozen=True)
class Fused:
    chunk_id: str
    score: float
    sources: tuple[str, ...]
    breakdown: dict[str, float] = field(default_factory=dict, compare=False, hash=False)


def rrf(
    rankings: Mapping[str, Sequence[Hit]],
    k: int = 60,
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Reciprocal-rank fusion: score = Σ w_s / (k + rank_s), ranks from 1."""
    scores: dict[str, float] = {}
    parts: dict[str, dict[str, float]] = {}
    for source, hits in rankings.items():
        weight = 1.0 if weights is None else weights.get(source, 0.0)
        if weight <= 0:
            continue
        for rank, hit in enumerate(hits, start=1):
            contribution = weight / (k + rank)
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + contribution
            parts.setdefault(hit.chunk_id, {})[source] = contribution
    return _sorted(scores, parts)


def normalize_scores(hits: Sequence[Hit]) -> dict[str, float]:
    """Min-max to [0, 1] within one source; a single hit (or all equal) scores 1."""
    if not hits:
        return {}
    values = [h.score for h in hits]
    low, high = min(values), max(values)
    if high - low < 1e-12:
        return {h.chunk_id: 1.0 for h in hits}
    return {h.chunk_id: (h.score - low) / (high - low) for h in hits}


def weighted(
    rankings: Mapping[str, Sequence[Hit]],
    weights: Mapping[str, float],
    multi_source_bonus: float = 0.15,
) -> list[Fused]:
    """The seeds' fusion: Σ w_s · normalised score, +bonus when several sources agree."""
    scores: dict[str, float] = {}
    parts: dict[str, dict[str, float]] = {}
    for source, hits in rankings.items():
        weight = weights.get(source, 0.0)
        if weight <= 0:
            continue
        for chunk_id, value in normalize_scores(hits).items():
            scores[chunk_id] = scores.get(chunk_id, 0.0) + weight * value
            parts.setdefault(chunk_id, {})[source] = weight * value
    for chunk_id, contributions in parts.items():
        if len(contributions) > 1:
            scores[chunk_id] *= 1.0 + multi_source_bonus
    return _sorted(scores, parts)


def _sorted(scores: dict[str, float], parts: dict[str, dict[str, float]]) -> list[Fused]:
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [
        Fused(chunk_id, score, tuple(sorted(parts[chunk_id])), dict(parts[chunk_id]))
        for chunk_id, score in ordered
    ]


def zscore_scores(hits: Sequence[Hit]) -> dict[str, float]:
    """Standard scores within one source; all-equal (or one) hits score 0."""
    if not hits:
        return {}
    values = [h.score for h in hits]
    mean = sum(values) / len(values)
    std = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
    if std < 1e-12:
        return {h.chunk_id: 0.0 for h in hits}
    return {h.chunk_id: (h.score - mean) / std for h in hits}


def convex(
    rankings: Mapping[str, Sequence[Hit]],
    weights: Mapping[str, float],
    normalise: str = "zscore",
    exhaustive: frozenset[str] = frozenset(),
) -> list[Fused]:
    """Σ w_s · normalised score, a candidate missing from a source taking that source's floor.

    Unlike the seeds' ``weighted``, a source's silence about a candidate is
    scored as "no better than its worst hit", not as a free pass, and there is
    no agreement bonus: agreement already adds up. Z-scores (the default) keep a
    source's outliers outstanding where min-max squeezes them to 1.

    A source in ``exhaustive`` listed every candidate it scores above 0 (keyword search
    over a notebook smaller than its depth): its silence is a 0, scaled with its hits.
    Otherwise a one-word search's only match ("health", in one note's tags) is scored
    against itself alone: z 0, floor 0, no better than the notes without the word.
    """
    scale = zscore_scores if normalise == "zscore" else normalize_scores
    used = {s: h for s, h in rankings.items() if weights.get(s, 0.0) > 0 and h}
    candidates = {h.chunk_id for hits in used.values() for h in hits}
    per_source = {}
    for s, hits in used.items():
        if s in exhaustive:
            listed = {h.chunk_id for h in hits}
            silent = [Hit(cid, 0.0) for cid in sorted(candidates - listed)]
            per_source[s] = scale([*hits, *silent])
        else:
            per_source[s] = scale(hits)
    floors = {s: min(v.values()) for s, v in per_source.items()}
    scores: dict[str, float] = {}
    parts: dict[str, dict[str, float]] = {}
    for cid in candidates:
        found = {s: weights[s] * v[cid] for s, v in per_source.items() if cid in v}
        scores[cid] = sum(found.values()) + sum(
            weights[s] * floors[s] for s in per_source if s not in found
        )
        parts[cid] = found
    return _sorted(scores, parts)
