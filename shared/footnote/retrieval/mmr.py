"""Maximal marginal relevance with near-duplicate removal."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def mmr(
    relevance: Sequence[float],
    vectors: np.ndarray,
    n: int,
    lam: float = 0.7,
    duplicate_threshold: float = 0.98,
) -> list[int]:
    """Indices of up to ``n`` items balancing relevance against redundancy.

    ``relevance`` is rescaled to [0, 1] so λ means the same whatever the
    fusion's score range; ``vectors`` are unit rows, so a dot product is the
    cosine. An item at least ``duplicate_threshold`` similar to one already
    chosen is dropped as a near-duplicate.
    """
    count = len(relevance)
    if count == 0 or n <= 0:
        return []
    rel = np.asarray(relevance, dtype=np.float64)
    span = rel.max() - rel.min()
    rel = (rel - rel.min()) / span if span > 1e-12 else np.ones_like(rel)
    sims = vectors @ vectors.T if len(vectors) else np.zeros((count, count))
    chosen: list[int] = []
    max_sim = np.full(count, -np.inf)
    available = np.ones(count, dtype=bool)
    while len(chosen) < n and available.any():
        redundancy = np.where(np.isfinite(max_sim), max_sim, 0.0)
        score = lam * rel - (1 - lam) * redundancy
        score[~available] = -np.inf
        best = int(np.argmax(score))
        chosen.append(best)
        available[best] = False
        max_sim = np.maximum(max_sim, sims[best])
        available &= max_sim < duplicate_threshold
    return chosen
