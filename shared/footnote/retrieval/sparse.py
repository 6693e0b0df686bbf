"""BM25 as a sparse dot product, for indexes that store sparse vectors (Vector Search).

Lucene BM25 (what bm25s computes with ``method="lucene"``) scores a chunk d for
query terms q as

    Σ_{t ∈ q}  idf(t) · tf(t, d) / (tf(t, d) + k1 · (1 − b + b · |d| / avgdl))
    idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

which splits into a document part (the fraction, known when the chunk is
indexed) and a query part (idf, from the tenant's term statistics when the query
is asked). A chunk's sparse vector holds the document part under each term's id;
the query's holds ``count · idf``; their dot product is the BM25 score. The
document part depends on ``avgdl`` at indexing time: chunks are bounded by
CHUNK_SIZE, so a tenant's average chunk length moves little once it holds a
few notes (docs/vertex.md measures what this costs).

Terms are those of local BM25 (``retrieval.corpus.keyword_terms``: the stemmed
terms of ``footnote.text.terms``, plus the title for later chunks); a term's id
is a 63-bit blake2b hash, stable across processes and releases.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from footnote.domain import Chunk
from footnote.text import indexed_length, term_counts, unmarked


@lru_cache(maxsize=500_000)
def term_id(term: str) -> int:
    """A stable non-negative 63-bit id for a stemmed term (a sparse dimension)."""
    digest = hashlib.blake2b(term.encode("utf-8"), digest_size=8, person=b"footnote").digest()
    return int.from_bytes(digest, "big") >> 1


@dataclass(frozen=True)
class SparseVector:
    """Non-zero entries only: ``dimensions`` (term ids) and their ``values``."""

    dimensions: tuple[int, ...]
    values: tuple[float, ...]

    def as_dict(self) -> dict[int, float]:
        return dict(zip(self.dimensions, self.values, strict=True))

    def dot(self, other: SparseVector) -> float:
        mine = self.as_dict()
        return sum(
            mine.get(d, 0.0) * v for d, v in zip(other.dimensions, other.values, strict=True)
        )

    def __bool__(self) -> bool:
        return bool(self.dimensions)


@dataclass(frozen=True)
class NoteTerms:
    """What one note's chunks add to its tenant's term statistics."""

    docs: int = 0  # chunks
    length: int = 0  # Σ chunk lengths, in terms
    df: Mapping[int, int] = field(default_factory=dict)  # term id -> chunks holding it

    @classmethod
    def of(cls, chunk_terms: Iterable[Sequence[str]]) -> NoteTerms:
        docs = length = 0
        df: Counter[int] = Counter()
        for words in chunk_terms:
            docs += 1
            length += indexed_length(words)
            df.update({term_id(unmarked(t)) for t in words})
        return cls(docs, length, dict(df))


@dataclass(frozen=True)
class TermStatistics:
    """A tenant's BM25 statistics: N chunks, their total length, df per term id.

    ``df`` may be an over-estimate (a count-min sketch in Firestore): ``df_of``
    is what scoring reads."""

    docs: int = 0
    length: int = 0
    df: Mapping[int, int] | SketchedDf = field(default_factory=dict)

    @property
    def avgdl(self) -> float:
        return self.length / self.docs if self.docs > 0 else 0.0

    def df_of(self, tid: int) -> int:
        return int(self.df.get(tid, 0))

    def idf(self, tid: int) -> float:
        df = min(max(self.df_of(tid), 0), max(self.docs, 0))
        return math.log(1.0 + (self.docs - df + 0.5) / (df + 0.5))


def document_weights(words: Sequence[str], avgdl: float, k1: float, b: float) -> SparseVector:
    """The document half of Lucene BM25 for one chunk's terms, by term id."""
    if not words:
        return SparseVector((), ())
    length = indexed_length(words)
    norm = k1 * (1.0 - b + b * length / avgdl) if avgdl > 0 else k1
    counts: dict[int, float] = {}
    for t, tf in term_counts(words).items():
        counts[term_id(t)] = counts.get(term_id(t), 0.0) + tf
    dims = tuple(sorted(counts))
    return SparseVector(dims, tuple(counts[d] / (counts[d] + norm) for d in dims))


def chunk_terms(chunk: Chunk) -> list[str]:
    """The terms local BM25 indexes for a chunk (``corpus.keyword_terms``)."""
    from footnote.retrieval.bm25 import keyword_terms  # numpy: only when used

    return keyword_terms(chunk)


def chunk_weights(chunk: Chunk, avgdl: float, k1: float, b: float) -> SparseVector:
    return document_weights(chunk_terms(chunk), avgdl, k1, b)


def query_weights(keywords: Sequence[str], stats: TermStatistics) -> SparseVector:
    """The query half: each term's idf, times how often the query repeats it
    (bm25s sums a repeated query token once per occurrence)."""
    counts = Counter(term_id(t) for t in keywords if t)
    dims = tuple(sorted(counts))
    return SparseVector(dims, tuple(counts[d] * stats.idf(d) for d in dims))


# -- df as a count-min sketch -------------------------------------------------------
# Firestore caps a document at 20,000 fields and 1 MiB, and a tenant's vocabulary
# outgrows that; a fixed number of counters per row keeps the statistics in
# ``depth`` documents whatever the notebook size. A term's df is the minimum of its
# counters, never below the truth; collisions only lower a rare term's idf.


@dataclass(frozen=True)
class Sketch:
    width: int = 16_384
    depth: int = 2

    def buckets(self, tid: int) -> list[int]:
        out = []
        for row in range(self.depth):
            digest = hashlib.blake2b(
                tid.to_bytes(8, "big"), digest_size=8, salt=row.to_bytes(16, "big")
            ).digest()
            out.append(int.from_bytes(digest, "big") % self.width)
        return out

    def add(self, rows: list[dict[int, int]], df: Mapping[int, int], sign: int = 1) -> None:
        """Add (or with ``sign=-1`` subtract) ``df`` into the ``depth`` counter rows."""
        for tid, count in df.items():
            for row, bucket in zip(rows, self.buckets(tid), strict=True):
                row[bucket] = row.get(bucket, 0) + sign * count

    def estimate(self, rows: Sequence[Mapping[int, int]], tid: int) -> int:
        return min(int(r.get(b, 0)) for r, b in zip(rows, self.buckets(tid), strict=True))


@dataclass(frozen=True)
class SketchedDf:
    """df read from sketch rows (a ``TermStatistics.df``)."""

    sketch: Sketch
    rows: tuple[Mapping[int, int], ...]

    def get(self, tid: int, default: int = 0) -> int:
        return self.sketch.estimate(self.rows, tid)
