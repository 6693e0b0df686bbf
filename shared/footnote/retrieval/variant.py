"""The ranking choices production has settled and the evaluation still compares.

Production runs the defaults: z-scored hybrid fusion, Lucene BM25, no keyword
feedback (docs/quality.md measures each alternative on SciFact). They are not
settings: no deployment has a reason to change them, and a knob nobody turns is a
way to ship a worse ranking by accident. The evaluation builds other variants
(``footnote.evaluation.config``) and hands them to the ``Retriever`` and the corpus
cache through the wiring.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from footnote.retrieval.bm25 import Feedback

# How the candidate lists become one ranking: "hybrid" (shipped) is the convex sum
# of z-scored (or min-max) lists, "rrf" reciprocal-rank fusion, "weighted" the seeds'
# sum with an agreement bonus; "bm25" and "dense" rank by one list alone.
Fusion = Literal["hybrid", "rrf", "weighted", "bm25", "dense"]


class RankingVariant(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # hybrid beat rrf and the seeds' weighted sum on SciFact train (docs/quality.md)
    fusion: Fusion = "hybrid"
    hybrid_normalise: Literal["zscore", "minmax"] = "zscore"
    rrf_k: int = Field(60, ge=1)
    # the "weighted" fusion's weights (recency's is RETRIEVAL_WEIGHT_RECENCY, shared)
    weight_vector: float = Field(0.6, ge=0)
    weight_keyword: float = Field(0.25, ge=0)
    # BM25 variant, with the formulas of bm25s (k1 and b are settings: the Vertex
    # index's sparse half must use the same)
    bm25_method: Literal["lucene", "robertson", "bm25+", "bm25l"] = "lucene"
    # keyword pseudo-relevance feedback (RM3-style); 0 terms turns it off
    feedback_terms: int = Field(0, ge=0, le=50)
    feedback_docs: int = Field(3, ge=1, le=50)
    feedback_weight: float = Field(0.5, ge=0, le=1)

    @property
    def feedback(self) -> Feedback:
        return Feedback(self.feedback_terms, self.feedback_docs, self.feedback_weight)


SHIPPED = RankingVariant()
