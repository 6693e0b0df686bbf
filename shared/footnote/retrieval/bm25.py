"""BM25 over the in-memory corpus: the scoring variants, what a chunk indexes,
keyword feedback, and one term's postings in growable arrays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from footnote.domain import Chunk
from footnote.text import terms

__all__ = ["Bm25Params", "Feedback", "Postings", "keyword_terms"]


@dataclass(frozen=True)
class Feedback:
    """Keyword pseudo-relevance feedback: add the top ``terms`` of the top ``docs``
    BM25 chunks to the query, each at most ``weight`` of an original term."""

    terms: int = 0
    docs: int = 3
    weight: float = 0.5


@dataclass(frozen=True)
class Bm25Params:
    """BM25 scoring: ``k1`` (term-frequency saturation), ``b`` (length
    normalisation) and the variant (``lucene``, ``robertson``, ``bm25+``, ``bm25l``),
    with the formulas of bm25s. The defaults are what ships: ``Settings``
    (RETRIEVAL_BM25_K1, _B) and ``variant.SHIPPED`` (the method)."""

    k1: float = 0.9
    b: float = 0.4
    method: str = "lucene"
    delta: float = 0.5  # bm25+ / bm25l only

    def idf(self, df: np.ndarray, n: int) -> np.ndarray:
        df = df.astype(np.float64)
        if self.method == "robertson":
            return np.log(np.maximum((n - df + 0.5) / (df + 0.5), 1.0))
        if self.method == "bm25l":
            return np.log((n + 1) / (df + 0.5))
        if self.method == "bm25+":
            return np.log((n + 1) / df)
        return np.log(1 + (n - df + 0.5) / (df + 0.5))

    def tfc(self, tf: np.ndarray, norm: np.ndarray) -> np.ndarray:
        """The term-frequency component, less its value at tf = 0, so a chunk
        without the term scores 0 in every variant (bm25+ and bm25l give absent
        terms a floor that would otherwise make every chunk a keyword match).
        ``norm`` is ``1 - b + b * length / average length``."""
        k1 = self.k1
        if self.method == "bm25l":
            c = tf / norm
            d = self.delta
            scores = (k1 + 1) * (c + d) / (k1 + c + d) - (k1 + 1) * d / (k1 + d)
        elif self.method == "bm25+":
            scores = (k1 + 1) * tf / (k1 * norm + tf)
        else:
            scores = tf / (k1 * norm + tf)
        return np.asarray(scores)


def keyword_terms(chunk: Chunk) -> list[str]:
    """What BM25 indexes for a chunk: its terms, and the note's title for every chunk
    after the first (the first starts with the title already). A title names what
    the whole note is about; without it a note's later chunks lose their subject.
    +0.025 nDCG@10 for BM25 on SciFact train (docs/quality.md). A compound's parts
    keep their mark (``text.PART_MARK``): matched as terms, not counted in the length."""
    if chunk.position == 0 or not chunk.title:
        return list(chunk.terms)
    return list(chunk.terms) + terms(chunk.title)


# Shared by every term not yet scored (one small array per term of a 100k-chunk
# vocabulary would add megabytes); a term's products are replaced, never written into.
_NOT_SCORED = np.zeros(0, np.float32)


class Postings:
    """One term's postings: rows and term frequencies, in growable arrays."""

    __slots__ = ("epoch", "rows", "size", "tfs", "weighted")

    def __init__(self, rows: np.ndarray, tfs: np.ndarray) -> None:
        self.rows = rows
        self.tfs = tfs
        self.size = len(rows)
        # idf x tf component of each posting at the corpus's current statistics
        # (its epoch), computed on first use after a change: warm queries only add.
        self.weighted = _NOT_SCORED
        self.epoch = -1

    def extend(self, rows: np.ndarray, tfs: np.ndarray) -> None:
        need = self.size + len(rows)
        if need > len(self.rows):
            cap = max(need, 2 * len(self.rows), 4)
            self.rows = np.concatenate(
                [self.rows[: self.size], np.zeros(cap - self.size, np.int32)]
            )
            self.tfs = np.concatenate(
                [self.tfs[: self.size], np.zeros(cap - self.size, np.float32)]
            )
        self.rows[self.size : need] = rows
        self.tfs[self.size : need] = tfs
        self.size = need
