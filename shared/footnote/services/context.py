"""Between retrieval and generation: the optional rerank, and the sources a generator sees."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence

from footnote.config import Settings
from footnote.domain import Fallback, Intent, QueryAnalysis, ScoredChunk, Source
from footnote.errors import UPSTREAM_ERRORS, BackendUnavailable
from footnote.ports import Reranker
from footnote.retrieval.retriever import RetrievalResult
from footnote.services.results import Stage

log = logging.getLogger(__name__)


def rerank(
    reranker: Reranker | None,
    query: str,
    result: RetrievalResult,
    timings: dict[Stage, float],
) -> RetrievalResult:
    """The optional rerank stage, against the words the user wrote; on any failure
    the retrieval order stands."""
    if reranker is None or not result.matched or len(result.chunks) < 2:
        return result
    t = time.perf_counter()
    try:
        chunks = reranker.rerank(query, result.chunks)
        if sorted(c.chunk.chunk_id for c in chunks) != sorted(
            c.chunk.chunk_id for c in result.chunks
        ):
            raise BackendUnavailable("a reranker may only reorder the chunks")
    except UPSTREAM_ERRORS as exc:
        log.warning(
            "reranker %s failed (%s); keeping the retrieval order",
            reranker.name,
            type(exc).__name__,
        )
        return dataclasses.replace(result, fallbacks=(*result.fallbacks, Fallback.RERANKER_SKIPPED))
    finally:
        timings[Stage.RERANK] = round((time.perf_counter() - t) * 1000, 2)
    return dataclasses.replace(result, chunks=chunks)


def sources_for(result: RetrievalResult, analysis: QueryAnalysis, s: Settings) -> list[Source]:
    """The chunks a generator sees, numbered N1…, within the context's limits."""
    chunks: Sequence[ScoredChunk] = result.chunks
    if not result.matched:
        # Recent notes stand in only when the question is about a period or an overview.
        wants_recent = analysis.window is not None or analysis.intent in (
            Intent.SUMMARY,
            Intent.TIMELINE,
        )
        if not wants_recent:
            return []
    out: list[Source] = []
    used = 0
    for c in chunks[: s.context_max_chunks]:
        if used + len(c.chunk.text) > s.context_max_chars and out:
            break
        used += len(c.chunk.text)
        out.append(Source(f"N{len(out) + 1}", c.chunk, c.score))
    return out
