"""The offline reranker (``RERANKER=off``, the default): keeps the retrieval order.

Retrieval already fuses dense, keyword and recency rankings and diversifies
them (MMR); without a ranking model there is nothing better to do.
"""

from __future__ import annotations

from collections.abc import Sequence

from footnote.domain import ScoredChunk


class KeepOrderReranker:
    name = "off"

    def rerank(self, query: str, chunks: Sequence[ScoredChunk]) -> list[ScoredChunk]:
        return list(chunks)
