"""Is what we found good enough to answer from?"""

from __future__ import annotations

from collections.abc import Sequence


def confidence(similarities: Sequence[float]) -> float:
    """0.7 × best + 0.3 × mean similarity of the selected chunks, clipped to [0, 1]."""
    if not similarities:
        return 0.0
    top = max(similarities)
    mean = sum(similarities) / len(similarities)
    return max(0.0, min(1.0, 0.7 * top + 0.3 * mean))


def passes(similarities: Sequence[float], min_similarity: float, min_confidence: float) -> bool:
    return (
        bool(similarities)
        and max(similarities) >= min_similarity
        and (confidence(similarities) >= min_confidence)
    )
