import numpy as np
import pytest

from footnote.domain import Hit
from footnote.retrieval.fusion import normalize_scores, rrf, weighted
from footnote.retrieval.gating import confidence, passes
from footnote.retrieval.mmr import mmr


def test_rrf_rewards_agreement_between_sources() -> None:
    fused = rrf(
        {"vector": [Hit("a", 0.9), Hit("b", 0.8)], "keyword": [Hit("b", 12), Hit("c", 3)]}, k=60
    )
    assert [f.chunk_id for f in fused] == ["b", "a", "c"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert fused[0].sources == ("keyword", "vector")


def test_rrf_weights_scale_contributions_and_zero_removes_a_source() -> None:
    fused = rrf(
        {"vector": [Hit("a", 1)], "recency": [Hit("z", 1)]},
        k=60,
        weights={"vector": 1.0, "recency": 0.0},
    )
    assert [f.chunk_id for f in fused] == ["a"]


def test_weighted_uses_normalised_scores_and_multi_source_bonus() -> None:
    rankings = {
        "vector": [Hit("a", 0.9), Hit("b", 0.5)],
        "keyword": [Hit("b", 10.0), Hit("c", 2.0)],
    }
    fused = {f.chunk_id: f.score for f in weighted(rankings, {"vector": 0.6, "keyword": 0.25})}
    assert fused["a"] == pytest.approx(0.6)
    assert fused["b"] == pytest.approx((0.0 + 0.25) * 1.15)
    assert fused["c"] == pytest.approx(0.0)


def test_normalize_single_hit_scores_one() -> None:
    assert normalize_scores([Hit("x", 3.2)]) == {"x": 1.0}
    assert normalize_scores([]) == {}


def test_mmr_prefers_diversity_over_a_near_copy() -> None:
    v = np.array([[1, 0], [0.999, 0.0447], [0, 1]], dtype=float)
    v = v / np.linalg.norm(v, axis=1, keepdims=True)
    picked = mmr([1.0, 0.99, 0.5], v, n=2, lam=0.7, duplicate_threshold=0.95)
    assert picked == [0, 2]


def test_mmr_with_lambda_one_is_relevance_order_minus_duplicates() -> None:
    v = np.eye(4)
    assert mmr([0.1, 0.9, 0.5, 0.7], v, n=3, lam=1.0) == [1, 3, 2]


def test_mmr_edge_cases() -> None:
    assert mmr([], np.zeros((0, 2)), n=3) == []
    assert mmr([1.0], np.eye(1), n=0) == []


def test_confidence_is_weighted_top_and_mean() -> None:
    assert confidence([0.8, 0.4]) == pytest.approx(0.7 * 0.8 + 0.3 * 0.6)
    assert confidence([]) == 0.0


def test_gate_needs_similarity_floor_and_confidence() -> None:
    assert passes([0.5, 0.4], 0.3, 0.3)
    assert not passes([0.25], 0.3, 0.1)
    assert not passes([], 0.0, 0.0)


def test_convex_zscores_and_scores_a_missing_source_at_its_floor() -> None:
    from footnote.retrieval.fusion import convex

    rankings = {
        "vector": [Hit("a", 0.9), Hit("b", 0.5)],
        "keyword": [Hit("b", 10.0), Hit("c", 2.0)],
    }
    fused = {f.chunk_id: f.score for f in convex(rankings, {"vector": 0.6, "keyword": 0.4})}
    # z-scores: vector a=+1 b=-1, keyword b=+1 c=-1; a absent from keyword takes -1
    assert fused == pytest.approx({"a": 0.2, "b": -0.2, "c": -1.0})
    minmax = {
        f.chunk_id: f.score
        for f in convex(rankings, {"vector": 0.6, "keyword": 0.4}, normalise="minmax")
    }
    assert minmax == pytest.approx({"a": 0.6, "b": 0.4, "c": 0.0})


def test_a_keyword_list_holding_every_match_scores_silence_as_zero() -> None:
    """A one-word search whose word is in one note ("health", a tag of "Dentist") has one
    keyword hit: z-scored against itself it was 0, as was every note without the word,
    so a note merely embedding close to the word ranked first. A list shorter than the
    depth asked for holds every match: the others score 0, below the hit."""
    from footnote.config import Settings
    from footnote.retrieval.fusion import convex
    from footnote.retrieval.pipeline import fuse

    rankings = {
        "vector": [
            Hit(cid, cosine)
            for cid, cosine in (
                ("todo", 0.30),
                ("dentist", 0.25),
                ("bike", 0.20),
                ("book", 0.18),
                ("groceries", 0.17),
                ("sync", 0.16),
                ("bread", 0.15),
            )
        ],
        "keyword": [Hit("dentist", 3.1)],
    }
    weights = {"vector": 0.6, "keyword": 0.4}
    alone = convex(rankings, weights)
    assert alone[0].chunk_id == "todo"  # the single hit's keyword score counted for nothing
    exhaustive = convex(rankings, weights, exhaustive=frozenset({"keyword"}))
    assert exhaustive[0].chunk_id == "dentist"
    # the pipeline reads a keyword list shorter than its depth as holding every match ...
    assert fuse(rankings, "hybrid", True, Settings())[0].chunk_id == "dentist"
    # ... and a full one as cut: silence is then "no better than its worst hit"
    full = Settings(RETRIEVAL_TOP_K=1)
    assert fuse(rankings, "hybrid", True, full)[0].chunk_id == "todo"
