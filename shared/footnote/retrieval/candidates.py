"""The candidate-source port: where a query's candidates come from, as plain data.

A source answers one ``CandidateRequest`` with ``Candidates``: the ranked lists
(dense, keyword, recency), each candidate's vector for the support and
diversification stages, how well its words support the query, and the notes to
offer when nothing is relevant. ``pipeline.rank`` turns that into picks the same
way whatever the source, so a new index is one adapter, not another engine.

Adapters (``sources.py``): ``CorpusSource``, the tenant's corpus in memory (exact
lists, exact BM25 coverage), and ``IndexSource``, any ``VectorIndex`` that serves
both halves in one call (Vertex AI Vector Search, Firestore ``find_nearest``);
only the winners are then read with ``read``.

A source that cannot answer raises ``SearchUnavailable`` (errors.py) and nothing
else for a failed backend; the retriever then asks the next source. Anything else
it raises is a bug and surfaces.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from footnote.domain import Chunk, Fallback, Hit, QueryAnalysis

if TYPE_CHECKING:  # a handle the corpus source reuses; no import cycle at run time
    from footnote.retrieval.corpus import TenantCorpus


@dataclass(frozen=True)
class CandidateRequest:
    tenant_id: str
    analysis: QueryAnalysis
    vector: Sequence[float] | None  # the query's embedding; None: the embedder is down
    model_id: str  # the model that made ``vector``: only its vectors compare with it
    depth: int  # candidates per list (RETRIEVAL_TOP_K)
    # the tenant's corpus when this question has read it already (title events): the
    # corpus source searches that one instead of reading it again; others ignore it
    corpus: TenantCorpus | None = None


def _no_vectors() -> np.ndarray:
    return np.zeros((0, 0), dtype=np.float32)


@dataclass(frozen=True)
class Candidates:
    """One source's answer to one query: everything the pipeline reads, no handles."""

    keyword: Sequence[Hit] = ()  # best first; only chunks holding a query word
    # Best first. None: the query has no dense half (no vector, or none of the
    # tenant's vectors were made by its model), and the answer is keyword-ranked.
    vector: Sequence[Hit] | None = None
    # Most recent first. None: the candidates' dates do not differ, so recency ranks nothing.
    recency: Sequence[Hit] | None = None
    # Each candidate's row in ``vectors``; a chunk id not here is not a candidate.
    row: Mapping[str, int] = field(default_factory=dict)
    vectors: np.ndarray = field(default_factory=_no_vectors)  # float32, one row per candidate
    comparable: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    # Word evidence the source vouches for, on [0, 1]. A candidate without an entry
    # is supported by its cosine alone (or not at all, without a comparable vector).
    words: Mapping[str, float] = field(default_factory=dict)
    stand_ins: tuple[str, ...] = ()  # most recent first: offered when nothing is relevant
    fallbacks: tuple[Fallback, ...] = ()  # what the source had to relax or do without
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    tenant_empty: bool = False  # the tenant has no notes at all (strategy "none")


@runtime_checkable
class CandidateSource(Protocol):
    name: str  # "memory", "vertex", "firestore": a stand-in is reported as vector_index_<name>

    def candidates(self, request: CandidateRequest) -> Candidates:
        """The tenant's candidates for the query, inside its window and types (both
        relaxed, and said so in ``fallbacks``, where they would hide everything).
        Raises ``SearchUnavailable`` when the backend failed."""
        ...

    def read(self, tenant_id: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """The chunks of ``chunk_ids`` that still exist (a note deleted or edited
        since it was searched has none), by chunk id."""
        ...


def with_chunks(found: Candidates, chunks: Sequence[Chunk], model_id: str) -> Candidates:
    """``found`` with ``chunks`` among its candidates (those it lacks), each with its
    stored vector, comparable when ``model_id`` made it: the passages a follow-up is
    read in are candidates whether or not its words found them."""
    new = [c for c in dict((c.chunk_id, c) for c in chunks).values() if c.chunk_id not in found.row]
    if not new:
        return found
    dim = found.vectors.shape[1] if found.row else len(new[0].embedding)
    same = [len(c.embedding) == dim and c.embedding_model == model_id for c in new]
    vectors = np.array(
        [c.embedding if fits else np.zeros(dim) for c, fits in zip(new, same, strict=True)],
        dtype=np.float32,
    ).reshape(len(new), dim)
    start = len(found.row)
    return dataclasses.replace(
        found,
        row={**found.row, **{c.chunk_id: start + i for i, c in enumerate(new)}},
        vectors=np.concatenate([found.vectors.reshape(start, dim), vectors]),
        comparable=np.concatenate([found.comparable[:start], np.array(same, dtype=bool)]),
    )
