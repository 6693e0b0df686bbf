"""A tenant's chunks held in memory and kept current by patches, not rebuilds.

The in-memory vector index, keyword search and recency all read one
``TenantCorpus``: a contiguous float16 matrix of unit vectors (scored with
float32 sums), an inverted keyword index scored as BM25 at query time with a
forward index of each row's terms, and per-row arrays (creation time, memory
type, embedding model, note, liveness) from which the filters are masks. No
chunk text is held: the winners are read from the chunk store.

``CorpusCache`` keeps one per tenant. A query first reads the tenant's version
(one document); when it moved, the cache asks the chunk store which notes'
chunks changed since its mark and patches only their rows. Only a cold process,
or one so far behind that patching would cost more than loading, reads the
whole tenant — once, in pages, so vectors never pile up as Python floats.

Exactness: a patched corpus answers every query exactly as one built from
scratch over the same chunks. Removed rows stay in the matrix and the postings
until a compaction, but they are masked out everywhere, and every statistic
BM25 reads (document count, document frequency, average length) counts live
rows only. Ties in a ranking break by chunk id, never by row order.

Why this module is over ~400 lines: that exactness is one invariant over one
data structure. Adding, removing, compacting and scoring rows all read and keep
the same arrays (matrix, postings, document frequencies, liveness), so they stay
in one class where a change to one can be checked against the others; the BM25
formulas and the postings arrays, which hold no corpus state, are in ``bm25``.
``CorpusCache`` stays beside ``TenantCorpus`` because it is the only code that
patches one, and its callers import both from here.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import numpy as np

from footnote.domain import Chunk, Hit, MemoryType, TimeWindow
from footnote.ports import ChunkStore, IndexSnapshots
from footnote.query.title_events import TitledDay, events_from_titled, titled_day
from footnote.retrieval.bm25 import Bm25Params, Feedback, Postings, keyword_terms
from footnote.temporal import month_names
from footnote.text import indexed_length, term_counts, terms

log = logging.getLogger(__name__)

_TYPE_CODES = {t: i for i, t in enumerate(MemoryType)}
# Removed rows are reclaimed by a compaction (an in-memory rebuild, no store reads)
# once they are this share of the rows: it keeps scans tight without rebuilding on
# every edit.
_COMPACT_DEAD_SHARE = 0.25
_COMPACT_MIN_DEAD = 256


@functools.lru_cache(maxsize=1)
def month_terms() -> dict[str, int]:
    """The word each month's name is kept as ("november" -> "novemb"): 1-12. Read on
    first use: the month names are the temporal reader's (dateparser's data)."""
    return {t: n for name, n in month_names().items() if len(name) > 3 for t in terms(name)[:1]}


# Coverage weighs words by Lucene's idf whatever the BM25 variant ranks with: it is
# positive for every word, so a word in every note still counts a little.
_LUCENE = Bm25Params(method="lucene")


class TenantCorpus:
    """One tenant's chunks, searchable in memory and patched in place.

    Row-indexed arrays cover ``rows`` rows (live and removed); ``alive`` says which
    count. Callers that read several arrays for one query hold ``lock``.

    Only arrays and ids are held, never a chunk's text or a Python object per chunk
    beyond its id: the chunks a query returns are read from the chunk store
    (``CorpusCache.read``), the k winners only.
    """

    def __init__(self, dimension: int, bm25: Bm25Params | None = None) -> None:
        self.lock = threading.RLock()
        self.version = 0
        self.mark: Any = None  # the chunk store's change mark this corpus is current to
        self.bm25 = bm25 or Bm25Params()
        self.dimension = dimension
        self.rows = 0
        self._cap = 0
        # float16, row-major: half the memory of float32, scored with float32 sums by
        # SIMD kernels (``dot_f16``) at about the speed of a float32 product.
        self.matrix = np.zeros((0, dimension), dtype=np.float16)
        self.created = np.zeros(0, dtype=np.float64)
        self.alive = np.zeros(0, dtype=bool)
        self.type_codes = np.zeros(0, dtype=np.int8)
        self.model_codes = np.zeros(0, dtype=np.int16)
        self.lengths = np.zeros(0, dtype=np.float32)
        self.note_codes = np.zeros(0, dtype=np.int32)
        self.ids: list[str] = []  # by row; "" once the row is removed
        self.by_id: dict[str, int] = {}
        self._notes: list[str] = []  # note code -> note id
        self._note_code: dict[str, int] = {}
        self._rows_of_note: dict[str, list[int]] = {}
        self._models: dict[str, int] = {}
        self._model_live: Counter[int] = Counter()  # live rows per model code
        self._vocab: dict[str, int] = {}
        self._terms: list[str] = []  # term id -> term
        self._postings: list[Postings] = []
        self._df = np.zeros(0, dtype=np.int64)
        # Each row's distinct terms and their counts (a forward index): rows
        # ``_fwd_start[r]`` to ``+ _fwd_len[r]`` of ``_fwd_terms``/``_fwd_tfs``. What a
        # removal, word coverage and keyword feedback read, as arrays.
        self._fwd_start = np.zeros(0, dtype=np.int64)
        self._fwd_len = np.zeros(0, dtype=np.int32)
        self._fwd_terms = np.zeros(0, dtype=np.int32)
        self._fwd_tfs = np.zeros(0, dtype=np.float32)
        self._fwd_used = 0
        self._total_length = 0.0
        self._norm: np.ndarray | None = None  # 1 - b + b * len / avg, per row, cached
        self._epoch = 0  # moves whenever a length statistic may have changed
        # each note's title as an event name (read once, when its first chunk is added)
        self._note_titles: dict[str, TitledDay] = {}
        self._events: dict[str, date] | None = None
        self._live_created_min: float | None = None

    # -- size and lookups ------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.by_id)

    def live_ids(self) -> set[str]:
        return set(self.by_id)

    def vector(self, chunk_id: str) -> np.ndarray:
        return np.asarray(self.matrix[self.by_id[chunk_id]], dtype=np.float32)

    def vectors(self, rows: Sequence[int]) -> np.ndarray:
        """The rows' vectors as float32 (a copy)."""
        return np.asarray(self.matrix[list(rows)], dtype=np.float32)

    def note_of(self, row: int) -> str:
        return self._notes[int(self.note_codes[row])]

    def row_terms(self, row: int) -> tuple[np.ndarray, np.ndarray]:
        """The row's distinct term ids and their counts (views)."""
        start = int(self._fwd_start[row])
        end = start + int(self._fwd_len[row])
        return self._fwd_terms[start:end], self._fwd_tfs[start:end]

    @property
    def model_ids(self) -> frozenset[str]:
        """The embedding models of the live rows (kept as counts: no scan per query)."""
        names = {code: name for name, code in self._models.items()}
        return frozenset(names[code] for code, live in self._model_live.items() if live)

    @property
    def events(self) -> dict[str, date]:
        """Event names the tenant's note titles date ("launch" -> the day)."""
        with self.lock:  # a patch in another thread must not change the dict mid-merge
            if self._events is None:
                self._events = events_from_titled(self._note_titles.values())
            return self._events

    def earliest_created(self) -> float | None:
        """Epoch seconds of the tenant's first live chunk, or None when empty."""
        if self._live_created_min is None and len(self):
            self._live_created_min = float(self.created[: self.rows][self.alive[: self.rows]].min())
        return self._live_created_min

    # -- writes ----------------------------------------------------------------------
    def add(self, chunks: Sequence[Chunk], vectors: np.ndarray | None = None) -> None:
        """Append chunks (their vectors from ``vectors`` rows, else from each chunk)."""
        if not chunks:
            return
        with self.lock:
            # An empty corpus takes the size of the vectors it is given: a first load,
            # or a tenant whose every note went and whose new ones another model embeds.
            if self.dimension == 0 or not len(self):
                dims = [len(v) for v in vectors] if vectors is not None else []
                dims += [len(c.embedding) for c in chunks]
                size = max(dims, default=0)
                if size and size != self.dimension:
                    self.dimension = size
                    self.matrix = np.zeros((self._cap, self.dimension), np.float16)
            for c in chunks:
                if c.chunk_id in self.by_id:
                    self._remove_row(self.by_id[c.chunk_id])
            self._reserve(self.rows + len(chunks))
            start = self.rows
            term_ids: list[int] = []
            term_rows: list[int] = []
            term_tfs: list[float] = []
            fwd_lens: list[int] = []
            sized: list[int] = []  # rows whose vector has the corpus's size
            for i, c in enumerate(chunks):
                row = start + i
                vec = vectors[i] if vectors is not None else c.embedding
                if len(vec) == self.dimension and self.dimension:
                    sized.append(i)  # a stray vector of another size stays zero
                self.created[row] = c.created_at.timestamp()
                self.alive[row] = True
                self.type_codes[row] = _TYPE_CODES[c.memory_type]
                model = self._models.setdefault(c.embedding_model, len(self._models))
                self.model_codes[row] = model
                self._model_live[model] += 1
                self.ids.append(c.chunk_id)
                self.by_id[c.chunk_id] = row
                note = self._note_code.get(c.note_id)
                if note is None:
                    note = self._note_code[c.note_id] = len(self._notes)
                    self._notes.append(c.note_id)
                self.note_codes[row] = note
                self._rows_of_note.setdefault(c.note_id, []).append(row)
                stored = keyword_terms(c) or [""]
                counts = term_counts(stored)
                length = indexed_length(stored)
                self.lengths[row] = length
                self._total_length += length
                fwd_lens.append(len(counts))
                for term, tf in counts.items():
                    tid = self._vocab.get(term)
                    term_ids.append(self._new_term(term) if tid is None else tid)
                    term_rows.append(row)
                    term_tfs.append(tf)
                if c.position == 0 and (titled := titled_day(c.title, c.created_at)):
                    self._note_titles[c.note_id] = titled
            if sized:
                if vectors is not None:
                    block = np.asarray(vectors, dtype=np.float32)[sized]
                else:
                    block = np.asarray([chunks[i].embedding for i in sized], dtype=np.float32)
                self.matrix[np.asarray(sized) + start] = block
            self.rows = start + len(chunks)
            self._add_forward(start, fwd_lens, term_ids, term_tfs)
            self._add_postings(term_ids, term_rows, term_tfs)
            self._changed()

    def _add_forward(
        self, start: int, lens: list[int], term_ids: list[int], tfs: list[float]
    ) -> None:
        """The new rows' entries in the forward index (``term_ids`` in row order)."""
        need = self._fwd_used + len(term_ids)
        if need > len(self._fwd_terms):
            cap = max(need, int(len(self._fwd_terms) * 1.5), 1024)
            self._fwd_terms = _grown(self._fwd_terms, cap, self._fwd_used)
            self._fwd_tfs = _grown(self._fwd_tfs, cap, self._fwd_used)
        used = self._fwd_used
        self._fwd_terms[used:need] = term_ids
        self._fwd_tfs[used:need] = tfs
        lengths = np.asarray(lens, dtype=np.int32)
        self._fwd_len[start : start + len(lens)] = lengths
        self._fwd_start[start : start + len(lens)] = used + np.cumsum(lengths) - lengths
        self._fwd_used = need

    def _add_postings(self, term_ids: list[int], rows: list[int], tfs: list[float]) -> None:
        """Postings of many (term, row, tf) at once: grouped by term with numpy, so a
        cold load of 100k chunks is not millions of single appends."""
        if not term_ids:
            return
        tids = np.asarray(term_ids, dtype=np.int64)
        np.add.at(self._df, tids, 1)
        order = np.argsort(tids, kind="stable")
        tids = tids[order]
        row_arr = np.asarray(rows, dtype=np.int32)[order]
        tf_arr = np.asarray(tfs, dtype=np.float32)[order]
        starts = np.flatnonzero(np.r_[True, tids[1:] != tids[:-1]])
        ends = np.r_[starts[1:], len(tids)]
        for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
            self._postings[int(tids[s])].extend(row_arr[s:e], tf_arr[s:e])

    def replace_notes(self, note_ids: Iterable[str], chunks: Sequence[Chunk]) -> None:
        """Make the rows of ``note_ids`` exactly ``chunks`` (their current chunks,
        none for a deleted note): the patch a change to those notes needs."""
        with self.lock:
            for note_id in note_ids:
                for row in self._rows_of_note.pop(note_id, []):
                    if self.alive[row]:
                        self._remove_row(row)
                self._note_titles.pop(note_id, None)
            self.add(sorted(chunks, key=lambda c: c.chunk_id))
            self._changed()
            dead = self.rows - len(self)
            if dead >= _COMPACT_MIN_DEAD and dead > _COMPACT_DEAD_SHARE * self.rows:
                self._compact()

    def _remove_row(self, row: int) -> None:
        chunk_id = self.ids[row]
        if not self.alive[row]:
            return
        self.alive[row] = False
        self._model_live[int(self.model_codes[row])] -= 1
        self.matrix[row] = 0.0
        self.ids[row] = ""
        del self.by_id[chunk_id]
        self._total_length -= float(self.lengths[row])
        term_ids, _ = self.row_terms(row)
        self._df[term_ids] -= 1  # a row's terms are distinct
        note_id = self.note_of(row)
        rows = self._rows_of_note.get(note_id)
        if rows is not None and row in rows:
            rows.remove(row)
            if not rows:
                del self._rows_of_note[note_id]

    def _compact(self) -> None:
        """Rebuild the arrays from the live rows (no store reads): removed rows and
        their postings go; results are unchanged."""
        live = np.flatnonzero(self.alive[: self.rows])
        lens = self._fwd_len[live]
        starts, entries = _gather_segments(self._fwd_start[live], lens)
        term_ids = self._fwd_terms[entries]
        tfs = self._fwd_tfs[entries]
        n = len(live)
        self.matrix = np.ascontiguousarray(self.matrix[live])
        self.created = self.created[live]
        self.alive = self.alive[live]
        self.type_codes = self.type_codes[live]
        self.model_codes = self.model_codes[live]
        self.lengths = self.lengths[live]
        self.note_codes = self.note_codes[live]
        self.ids = [self.ids[i] for i in live.tolist()]
        self.by_id = {cid: row for row, cid in enumerate(self.ids)}
        self._rows_of_note = {}
        for row, code in enumerate(self.note_codes.tolist()):
            self._rows_of_note.setdefault(self._notes[code], []).append(row)
        self._fwd_start, self._fwd_len = starts, lens.astype(np.int32)
        self._fwd_terms, self._fwd_tfs = term_ids, tfs
        self._fwd_used = len(term_ids)
        self._postings, self._df = build_postings(
            term_ids, np.repeat(np.arange(n, dtype=np.int32), lens), tfs, len(self._terms)
        )
        self.rows = self._cap = n
        self._changed()

    def _new_term(self, term: str) -> int:
        tid = len(self._postings)
        self._vocab[term] = tid
        self._terms.append(term)
        self._postings.append(Postings(np.zeros(0, np.int32), np.zeros(0, np.float32)))
        if tid >= len(self._df):
            self._df = np.concatenate([self._df, np.zeros(max(64, tid), dtype=np.int64)])
        return tid

    def _reserve(self, rows: int) -> None:
        if rows <= self._cap:
            return
        cap = max(rows, int(self._cap * 1.5), 64)
        for name in (
            "matrix", "created", "alive", "type_codes", "model_codes", "lengths",
            "note_codes", "_fwd_start", "_fwd_len",
        ):  # fmt: skip
            setattr(self, name, _grown(getattr(self, name), cap, self.rows))
        self._cap = cap

    def _changed(self) -> None:
        self._norm = None
        self._epoch += 1
        self._events = None
        self._live_created_min = None

    # -- masks -------------------------------------------------------------------------
    def mask(self, window: TimeWindow | None, types: Sequence[MemoryType]) -> np.ndarray:
        """Live rows inside the time window and of the given types (any, if none)."""
        n = self.rows
        keep = self.alive[:n].copy()
        if window is not None:
            if window.start is not None:
                keep &= self.created[:n] >= window.start.timestamp()
            if window.end is not None:
                keep &= self.created[:n] < window.end.timestamp()
        if types:
            codes = np.array([_TYPE_CODES[t] for t in types], dtype=np.int8)
            keep &= np.isin(self.type_codes[:n], codes)
        return keep

    def model_mask(self, model_id: str) -> np.ndarray:
        """Live rows whose vector the given model made: only those compare with its queries."""
        code = self._models.get(model_id)
        if code is None:
            return np.zeros(self.rows, dtype=bool)
        return np.asarray((self.model_codes[: self.rows] == code) & self.alive[: self.rows])

    # -- scoring -----------------------------------------------------------------------
    def similarities(self, vector: Sequence[float]) -> np.ndarray:
        if not self.rows or self.dimension != len(vector):
            return np.zeros(self.rows, dtype=np.float32)
        return dot_f16(self.matrix[: self.rows], vector)

    def vector_hits(self, vector: Sequence[float], k: int, mask: np.ndarray) -> list[Hit]:
        return self.top(self.similarities(vector), k, mask)

    def keyword_scores(self, query_terms: Sequence[str]) -> np.ndarray:
        """BM25 of every row; 0 where no query term occurs (whatever the variant)."""
        return self._scores_of(self._query_postings(query_terms))

    def _query_postings(self, query_terms: Sequence[str]) -> list[Postings]:
        """The postings of the query terms that occur in live rows (a repeated term
        twice), each with its idf x tf product at the current statistics."""
        live = len(self)
        if not live:
            return []
        ids = [self._vocab[t] for t in query_terms if t in self._vocab]
        ids = [t for t in ids if self._df[t] > 0]
        if not ids:
            return []
        found = [self._postings[tid] for tid in ids]
        # idf and the length norm only move when rows do, and every row change moves
        # the epoch: a warm query reads the products, it does not remake them.
        stale = {tid: p for tid, p in zip(ids, found, strict=True) if p.epoch != self._epoch}
        if stale:
            # All stale terms in one pass: after a write every term is stale, and
            # numpy's fixed cost per call outweighs the arithmetic on short postings.
            todo = list(stale.values())
            sizes = [p.size for p in todo]
            idf = self.bm25.idf(self._df[list(stale)], live).astype(np.float32)
            rows = np.concatenate([p.rows[: p.size] for p in todo])
            tfs = np.concatenate([p.tfs[: p.size] for p in todo])
            # (take: a gather by int32 rows, twice as fast as fancy indexing)
            tfc = self.bm25.tfc(tfs, self._length_norm().take(rows))
            weighted = tfc.astype(np.float32, copy=False) * np.repeat(idf, sizes)
            start = 0
            for p, size in zip(todo, sizes, strict=True):
                p.weighted = weighted[start : start + size].copy()  # not a view of all
                p.epoch = self._epoch
                start += size
        return found

    def _scores_of(self, found: Sequence[Postings]) -> np.ndarray:
        n = self.rows
        if not found:
            return np.zeros(n, dtype=np.float32)
        # One pass over every posting of the query, summed in float64 in query-term
        # order (float32 sums per term are faster but round differently).
        scores = np.bincount(
            np.concatenate([p.rows[: p.size] for p in found]),
            weights=np.concatenate([p.weighted for p in found]),
            minlength=n,
        ).astype(np.float32)
        if len(self) < n:
            scores[~self.alive[:n]] = 0.0  # removed rows keep their postings until a compaction
        return scores

    def _length_norm(self) -> np.ndarray:
        if self._norm is None:
            live = len(self)
            average = self._total_length / live if live else 1.0
            b = self.bm25.b
            self._norm = (1 - b + b * self.lengths[: self.rows] / average).astype(np.float32)
        return self._norm

    def coverage(
        self, query_terms: Sequence[str], chunk_ids: Sequence[str], utc_offset_s: float = 0.0
    ) -> dict[str, float]:
        """Share of the query's words each chunk holds, each word weighted by its idf.

        A ratio of the query's own weights, so it reads the same in a notebook of six
        notes and of sixty thousand: 1.0 when the chunk holds every query word, and
        a word found in every note weighs next to nothing. The idf is BM25's
        (Lucene's, always positive); a word in no note weighs as a word in one (as
        rare as a word can be, and no rarer: in a notebook of one note every word is
        in every note, and a question's other words must still count).

        A month the question names as a word, not as a time ("my November TODO list",
        "the March invoice"), is held by the notes written that month (in the asker's
        time, ``utc_offset_s`` from UTC) as if they said it: people name a note by when
        they wrote it. Its idf counts those notes too, so in a notebook written all in
        one month the word weighs next to nothing.
        """
        wanted = list(dict.fromkeys(query_terms))
        live = len(self)
        if not wanted or not live:
            return dict.fromkeys(chunk_ids, 0.0)
        written = self._written_in(wanted, utc_offset_s)
        df = np.array([int(written[t].sum()) if t in written else self._df_of(t) for t in wanted])
        idf = _LUCENE.idf(np.maximum(df, 1), live)
        total = float(idf.sum()) or 1.0
        if not chunk_ids:
            return {}
        rows = np.array([self.by_id[cid] for cid in chunk_ids], dtype=np.int64)
        lens = self._fwd_len[rows]
        _, entries = _gather_segments(self._fwd_start[rows], lens)
        row_terms = self._fwd_terms[entries]  # the rows' keyword_terms, by id
        owner = np.repeat(np.arange(len(rows)), lens)
        held = np.zeros((len(rows), len(wanted)), dtype=bool)
        for j, t in enumerate(wanted):
            tid = self._vocab.get(t)
            if tid is not None:
                held[owner[row_terms == tid], j] = True
            if t in written:
                held[:, j] |= written[t][rows]
        shares = np.where(held, idf, 0.0).sum(axis=1) / total
        return dict(zip(chunk_ids, shares.tolist(), strict=True))

    def holds(self, term: str) -> bool:
        """Some live chunk holds the (stemmed) term."""
        with self.lock:
            return self._df_of(term) > 0

    def _df_of(self, term: str) -> int:
        return int(self._df[self._vocab[term]]) if term in self._vocab else 0

    def _written_in(self, wanted: Sequence[str], utc_offset_s: float) -> dict[str, np.ndarray]:
        """For each month word of ``wanted``: the live rows that say it or were written
        in that month (any year)."""
        table = month_terms()
        months = {t: table[t] for t in wanted if t in table}
        if not months:
            return {}
        n = self.rows
        seconds = (self.created[:n] + utc_offset_s).astype("datetime64[s]")
        month_of_row = seconds.astype("datetime64[M]").astype(np.int64) % 12 + 1
        out: dict[str, np.ndarray] = {}
        for term, month in months.items():
            held = month_of_row == month
            if term in self._vocab:
                p = self._postings[self._vocab[term]]
                held[p.rows[: p.size]] = True
            out[term] = held & self.alive[:n]
        return out

    def keyword_hits(
        self,
        query_terms: Sequence[str],
        k: int,
        mask: np.ndarray,
        feedback: Feedback | None = None,
    ) -> list[Hit]:
        found = self._query_postings(query_terms)
        scores = self._scores_of(found)
        if feedback is not None and feedback.terms > 0 and feedback.weight > 0:
            scores = self._with_feedback(query_terms, scores, mask, feedback)
        else:
            candidates = self._keyword_candidates(scores, found, k, mask)
            if candidates is not None:
                return self._top_of(scores, k, candidates)
        matched = np.flatnonzero(scores > 0)
        return self._top_of(scores, k, matched[mask[matched]])

    @staticmethod
    def _keyword_candidates(
        scores: np.ndarray, found: Sequence[Postings], k: int, mask: np.ndarray
    ) -> np.ndarray | None:
        """The masked rows that can make the keyword top ``k``, found without listing
        every matched row (often a fifth of the corpus, and a scan of it costs more
        than scoring): a query term's masked rows that score above 0 are matches, so
        the ``k``-th best score among them, if it has ``k``, is a lower bound on the
        ``k``-th best overall; every row of the top ``k``, and every row tied with
        its last, scores at least that. The rarest such term is tried first (few
        rows to read, high idf, so a tight bound). None when no term has ``k``
        masked matches within about half the corpus's rows read: then every match
        competes."""
        if k <= 0:
            return None
        read = 0
        for probe in sorted((p for p in found if p.size >= k), key=lambda p: p.size):
            if read and read + probe.size > len(scores) // 2:
                break
            read += probe.size
            rows = probe.rows[: probe.size]
            values = scores.take(rows)[mask.take(rows)]
            values = values[values > 0]  # a removed row scores 0; robertson's idf can be 0
            if len(values) >= k:
                bound = np.partition(values, len(values) - k)[len(values) - k]
                return np.flatnonzero((scores >= bound) & mask)
        return None

    def _with_feedback(
        self, query_terms: Sequence[str], scores: np.ndarray, mask: np.ndarray, fb: Feedback
    ) -> np.ndarray:
        """RM3-style keyword pseudo-relevance feedback: the terms most likely under the
        top ``fb.docs`` BM25 chunks (each weighted by its score) are searched too, at
        ``fb.weight`` times their relevance-model weight relative to the strongest."""
        top = self.top(scores, fb.docs, mask & (scores > 0))
        if not top:
            return scores
        total = sum(h.score for h in top)
        asked = set(query_terms)
        model: dict[str, float] = {}
        for h in top:
            row = self.by_id[h.chunk_id]
            length = float(self.lengths[row])
            if not length:
                continue
            share = h.score / total / length
            term_ids, tfs = self.row_terms(row)
            for tid, tf in zip(term_ids.tolist(), tfs.tolist(), strict=True):
                w = self._terms[tid]
                if w and w not in asked:
                    model[w] = model.get(w, 0.0) + share * tf
        picked = sorted(model.items(), key=lambda item: (-item[1], item[0]))[: fb.terms]
        if not picked:
            return scores
        strongest = picked[0][1]
        expanded = scores.copy()
        for word, weight in picked:
            expanded += fb.weight * (weight / strongest) * self.keyword_scores([word])
        return expanded

    def recent_hits(self, k: int, mask: np.ndarray) -> list[Hit]:
        return self.top(self.created[: self.rows], k, mask)

    def top(self, scores: np.ndarray, k: int, mask: np.ndarray) -> list[Hit]:
        """The ``k`` best masked rows, best first; equal scores in chunk-id order."""
        idx = np.flatnonzero(mask)
        return self._top_of(scores, k, idx)

    def _top_of(self, scores: np.ndarray, k: int, idx: np.ndarray) -> list[Hit]:
        if not len(idx) or k <= 0:
            return []
        picked = scores[idx]
        if len(idx) > k:
            threshold = -np.partition(-picked, k - 1)[k - 1]  # the k-th best score
            keep = picked >= threshold  # every row tied at the boundary competes
            idx, picked = idx[keep], picked[keep]
        # (-score, chunk id) tuples: ties break by id; negating a float is exact
        chunk_id = self._chunk_id
        ids = [chunk_id(r) for r in idx.tolist()]
        ranked = sorted(zip((-picked).tolist(), ids, strict=True))[:k]
        return [Hit(cid, -negated) for negated, cid in ranked]

    def _chunk_id(self, row: int) -> str:
        return self.ids[row]


def dot_f16(matrix: np.ndarray, vector: Sequence[float]) -> np.ndarray:
    """``matrix @ vector`` for a float16 row-major matrix, as float32: products of
    float16 values summed in float32 by SimSIMD's kernels (F16C/AVX2, NEON), which
    stream the half-size matrix at about the speed of a float32 BLAS product. numpy
    alone converts float16 at ~3 ns a value (100k x 384: ~100 ms), so it is only the
    fallback where SimSIMD has no wheel."""
    query = np.asarray(vector, dtype=np.float16)
    if not len(matrix):
        return np.zeros(0, dtype=np.float32)
    try:
        import simsimd
    except ImportError:  # pragma: no cover - every supported platform has a wheel
        return np.asarray(matrix, dtype=np.float32) @ query.astype(np.float32)
    scores = simsimd.cdist(query[None, :], matrix, metric="dot")
    out: np.ndarray = np.asarray(scores, dtype=np.float32)[0]
    return out


def _grown(a: np.ndarray, cap: int, used: int) -> np.ndarray:
    """``a`` with room for ``cap`` rows, its first ``used`` kept (a new array)."""
    out = np.zeros((cap, *a.shape[1:]), dtype=a.dtype)
    out[:used] = a[:used]
    return out


def _gather_segments(starts: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Segments ``[start, start + len)`` laid end to end: where each begins in the
    result, and the index of every source entry in order (no Python loop)."""
    lens = lens.astype(np.int64)
    new_starts = np.cumsum(lens) - lens
    total = int(lens.sum())
    entries = np.repeat(starts.astype(np.int64) - new_starts, lens) + np.arange(total)
    return new_starts, entries


def build_postings(
    term_ids: np.ndarray, rows: np.ndarray, tfs: np.ndarray, n_terms: int
) -> tuple[list[Postings], np.ndarray]:
    """Every term's postings (rows ascending) and document frequency, from the
    forward index's entries listed in row order."""
    rows_sorted, tfs_sorted, df = sort_postings(term_ids, rows, tfs, n_terms)
    return postings_of(rows_sorted, tfs_sorted, df), df


def sort_postings(
    term_ids: np.ndarray, rows: np.ndarray, tfs: np.ndarray, n_terms: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The forward index's entries (in row order) grouped by term: rows and counts
    term after term, rows ascending within one, and each term's document frequency."""
    df = np.bincount(term_ids, minlength=n_terms).astype(np.int64)
    order = np.argsort(term_ids, kind="stable")
    rows_sorted = np.ascontiguousarray(rows[order], dtype=np.int32)
    tfs_sorted = np.ascontiguousarray(tfs[order], dtype=np.float32)
    return rows_sorted, tfs_sorted, df


def postings_of(rows_sorted: np.ndarray, tfs_sorted: np.ndarray, df: np.ndarray) -> list[Postings]:
    """Each term's postings as views of the grouped arrays (``sort_postings``)."""
    bounds = np.r_[0, np.cumsum(df)].tolist()
    return [
        Postings(rows_sorted[bounds[t] : bounds[t + 1]], tfs_sorted[bounds[t] : bounds[t + 1]])
        for t in range(len(df))
    ]


def build_corpus(
    chunks: Sequence[Chunk], version: int = 0, bm25_params: Bm25Params | None = None
) -> TenantCorpus:
    """A corpus of ``chunks`` built from scratch (the reference a patched one equals)."""
    ordered = sorted(chunks, key=lambda c: c.chunk_id)
    dims = [len(c.embedding) for c in ordered]
    corpus = TenantCorpus(max(dims) if dims else 0, bm25_params)
    corpus.add(ordered)
    corpus.version = version
    return corpus


@dataclass(frozen=True)
class CorpusLoad:
    """What a cache miss or refresh cost, for logs and tests. ``snapshot``: the
    corpus came from the tenant's snapshot (then ``notes``/``chunks`` are the patch
    applied since it); ``reason``: why a full load was made instead of one."""

    full: bool
    notes: int
    chunks: int
    snapshot: bool = False
    reason: str = ""


@dataclass(frozen=True)
class SnapshotPolicy:
    """When the corpus cache writes a tenant's snapshot: after a full load, and once
    ``every_changes`` notes were patched in or ``every_seconds`` passed with any
    change since the last one (Settings: INDEX_SNAPSHOT_EVERY_CHANGES, _MINUTES)."""

    every_changes: int = 200
    every_seconds: float = 600.0


@dataclass
class _SinceSnapshot:
    changes: int = 0
    written_at: float = 0.0
    writing: bool = False


class CorpusCache:
    """Per-tenant corpora, patched with the notes that changed since each one's mark.

    ``max_behind``: a corpus more than this many changed notes behind is loaded
    again rather than patched (one big scan beats thousands of small ones).

    ``snapshots``: where each tenant's index snapshot is kept. A cold tenant is
    loaded from its snapshot and patched with the notes changed since the index
    state it reflects; a missing, corrupt or stale one falls back to the full load
    (logged with the reason), which then writes a fresh snapshot. ``run_writes``
    runs a snapshot write (encoding under the corpus lock, then the upload): in a
    background thread by default, inline when given ``lambda job: job()``.
    """

    def __init__(
        self,
        store: ChunkStore,
        max_tenants: int = 128,
        bm25_params: Bm25Params | None = None,
        max_behind: int = 500,
        on_load: Callable[[str, CorpusLoad], None] | None = None,
        snapshots: IndexSnapshots | None = None,
        snapshot_policy: SnapshotPolicy | None = None,
        run_writes: Callable[[Callable[[], None]], Any] | None = None,
    ) -> None:
        self._store = store
        self._max = max_tenants
        self._bm25 = bm25_params or Bm25Params()
        self._max_behind = max_behind
        self._on_load = on_load
        self._snapshots = snapshots
        self._policy = snapshot_policy or SnapshotPolicy()
        self._run_writes = run_writes or _background
        self._since: dict[str, _SinceSnapshot] = {}
        # Chunks read for answers, per tenant (the corpus holds no text): a question's
        # second pass and the next questions about the same notes read none again. A
        # patch drops its notes' chunks and moves the generation, so a read that began
        # before it stores nothing.
        self._read_cache: dict[str, OrderedDict[str, Chunk]] = {}
        self._read_generation: dict[str, int] = {}
        self._read_lock = threading.Lock()
        self._cache: OrderedDict[str, TenantCorpus] = OrderedDict()
        self._lock = threading.Lock()
        self._tenant_locks: dict[str, threading.Lock] = {}

    def get(self, tenant_id: str) -> TenantCorpus:
        version, mark = self._store.tenant_version_mark(tenant_id)
        with self._lock:
            cached = self._cache.get(tenant_id)
            if cached is not None:
                self._cache.move_to_end(tenant_id)
            if cached is not None and cached.version == version:
                return cached
            tenant_lock = self._tenant_locks.setdefault(tenant_id, threading.Lock())
        with tenant_lock:  # one refresh per tenant at a time; others wait, then reuse it
            with self._lock:
                cached = self._cache.get(tenant_id)
            if cached is not None and cached.version == version:
                return cached
            if cached is not None and self._patch(tenant_id, cached, version, mark):
                self._maybe_snapshot(tenant_id, cached)
                return cached
            corpus = self._cold(tenant_id, version, mark)
            with self._lock:
                self._cache[tenant_id] = corpus
                self._cache.move_to_end(tenant_id)
                while len(self._cache) > self._max:
                    evicted, _ = self._cache.popitem(last=False)
                    self._tenant_locks.pop(evicted, None)
                    self._since.pop(evicted, None)
                    self._read_cache.pop(evicted, None)
            return corpus

    def current(self, tenant_id: str) -> TenantCorpus:
        """The cached corpus as it is, without a refresh (loaded if absent): for a
        stage inside a query that already refreshed it. Refreshing there would patch
        the corpus under the query's feet (the same thread holds its lock)."""
        with self._lock:
            cached = self._cache.get(tenant_id)
        return cached if cached is not None else self.get(tenant_id)

    def write_snapshot(self, tenant_id: str) -> None:
        """Bring the tenant's corpus up to date and write its snapshot now, in this
        thread (a job's, e.g. after an import: no policy, no background writer)."""
        if self._snapshots is None:
            return
        run, self._run_writes = self._run_writes, _inline
        try:
            corpus = self.get(tenant_id)  # a full load writes one here, inline
            since = self._since.setdefault(tenant_id, _SinceSnapshot())
            if since.changes or not since.written_at:
                since.changes = max(since.changes, 1)
                since.written_at = 0.0
                self._maybe_snapshot(tenant_id, corpus)
        finally:
            self._run_writes = run

    def read(self, tenant_id: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """The chunks of ``chunk_ids`` that still exist, from the chunk store (the
        corpus holds no text): one batched read of the k a query returns."""
        if not chunk_ids:
            return {}
        with self._read_lock:
            kept = self._read_cache.setdefault(tenant_id, OrderedDict())
            generation = self._read_generation.get(tenant_id, 0)
            found = {cid: kept[cid] for cid in chunk_ids if cid in kept}
            for cid in found:
                kept.move_to_end(cid)
        missing = [cid for cid in dict.fromkeys(chunk_ids) if cid not in found]
        if missing:
            read = self._store.get_chunks(tenant_id, missing)
            found.update((c.chunk_id, c) for c in read)
            with self._read_lock:
                if self._read_generation.get(tenant_id, 0) == generation:
                    kept = self._read_cache.setdefault(tenant_id, OrderedDict())
                    kept.update((c.chunk_id, c) for c in read)
                    while len(kept) > _READ_CACHE_CHUNKS:
                        kept.popitem(last=False)
        return {cid: found[cid] for cid in chunk_ids if cid in found}

    def _forget_reads(self, tenant_id: str, note_ids: Iterable[str] | None) -> None:
        """Drop the read chunks of these notes (None: all of the tenant's)."""
        with self._read_lock:
            self._read_generation[tenant_id] = self._read_generation.get(tenant_id, 0) + 1
            kept = self._read_cache.get(tenant_id)
            if kept is None:
                return
            if note_ids is None:
                kept.clear()
                return
            gone = set(note_ids)
            for cid in [cid for cid, c in kept.items() if c.note_id in gone]:
                del kept[cid]

    def _patch(
        self,
        tenant_id: str,
        corpus: TenantCorpus,
        version: int,
        mark: Any,
        from_snapshot: bool = False,
    ) -> bool:
        changed = self._store.notes_changed_since(tenant_id, corpus.mark, self._max_behind)
        if changed is None:
            return False  # too far behind, or the store cannot say: load afresh
        chunks = self._store.chunks_of_notes(tenant_id, changed) if changed else []
        dims = {len(c.embedding) for c in chunks if c.embedding}
        if dims - {corpus.dimension} and len(corpus):
            return False  # a new vector size (model change): rebuild the matrix
        self._forget_reads(tenant_id, changed)
        with corpus.lock:
            corpus.replace_notes(changed, chunks)
            corpus.version = version
            corpus.mark = mark
        self._since.setdefault(tenant_id, _SinceSnapshot(written_at=time.monotonic()))
        self._since[tenant_id].changes += len(changed)
        if self._on_load is not None:
            load = CorpusLoad(False, len(changed), len(chunks), snapshot=from_snapshot)
            self._on_load(tenant_id, load)
        return True

    def _cold(self, tenant_id: str, version: int, mark: Any) -> TenantCorpus:
        """The tenant's corpus for a process that holds none: from its snapshot when
        there is a usable one, else read whole (and a snapshot written for next time)."""
        self._forget_reads(tenant_id, None)
        reason = "no snapshot store"
        if self._snapshots is not None:
            corpus, reason = self._from_snapshot(tenant_id, version, mark)
            if corpus is not None:
                return corpus
            log.info("index snapshot of tenant %s not used (%s): full load", tenant_id, reason)
        corpus = self._load(tenant_id, version, mark, reason)
        if self._snapshots is not None:
            self._since[tenant_id] = _SinceSnapshot(changes=1)  # write one now
            self._maybe_snapshot(tenant_id, corpus)
        return corpus

    def _from_snapshot(
        self, tenant_id: str, version: int, mark: Any
    ) -> tuple[TenantCorpus | None, str]:
        from footnote.retrieval.snapshot import SnapshotError, decode

        assert self._snapshots is not None
        try:
            data = self._snapshots.read(tenant_id)
        except Exception as exc:  # any storage failure: the full load still works
            log.warning("reading the index snapshot of tenant %s failed", tenant_id, exc_info=True)
            return None, f"unreadable: {type(exc).__name__}"
        if data is None:
            return None, "missing"
        try:
            corpus = decode(data, tenant_id, self._bm25)
        except SnapshotError as exc:
            return None, str(exc)
        if corpus.version > version or corpus.mark is None:
            return None, f"stale: snapshot at version {corpus.version}, tenant at {version}"
        behind = corpus.version < version
        if behind and not self._patch(tenant_id, corpus, version, mark, from_snapshot=True):
            return None, f"stale: more than {self._max_behind} notes changed since it"
        if not behind:
            corpus.version, corpus.mark = version, mark
            if self._on_load is not None:
                self._on_load(tenant_id, CorpusLoad(False, 0, 0, snapshot=True))
        self._since.setdefault(tenant_id, _SinceSnapshot(written_at=time.monotonic()))
        self._maybe_snapshot(tenant_id, corpus)
        return corpus, ""

    def _maybe_snapshot(self, tenant_id: str, corpus: TenantCorpus) -> None:
        """Write the tenant's snapshot when the policy says it is due (one at a time)."""
        since = self._since.get(tenant_id)
        if self._snapshots is None or since is None or since.writing or not since.changes:
            return
        due = since.changes >= self._policy.every_changes or (
            time.monotonic() - since.written_at >= self._policy.every_seconds
        )
        if not due and since.written_at:
            return
        since.writing = True
        snapshots = self._snapshots

        def write() -> None:
            from footnote.retrieval.snapshot import gather, pack

            try:
                with corpus.lock:  # copies only: queries wait for nothing longer
                    gathered = gather(corpus)
                    changes = since.changes
                data = pack(tenant_id, gathered)
                snapshots.write(tenant_id, data)
                since.changes -= changes
                since.written_at = time.monotonic()
                log.info("index snapshot of tenant %s written: %d bytes", tenant_id, len(data))
            except Exception:  # the next change tries again; queries go on
                log.warning(
                    "writing the index snapshot of tenant %s failed", tenant_id, exc_info=True
                )
            finally:
                since.writing = False

        self._run_writes(write)

    def _load(self, tenant_id: str, version: int, mark: Any, reason: str = "") -> TenantCorpus:
        corpus: TenantCorpus | None = None
        count = 0
        for page in self._store.tenant_chunk_pages(tenant_id):
            if corpus is None:
                dims = [len(c.embedding) for c in page]
                corpus = TenantCorpus(max(dims) if dims else 0, self._bm25)
            corpus.add(page)
            count += len(page)
        corpus = corpus or TenantCorpus(0, self._bm25)
        corpus.version = version
        corpus.mark = mark
        if self._on_load is not None:
            self._on_load(tenant_id, CorpusLoad(True, 0, count, reason=reason))
        return corpus


# Chunks kept per tenant once read for an answer (with their vectors: ~2 KB each
# for 384 dimensions in a tuple, ~10 KB with the text and objects).
_READ_CACHE_CHUNKS = 512

_WRITER: ThreadPoolExecutor | None = None
_WRITER_LOCK = threading.Lock()


def _inline(job: Callable[[], None]) -> None:
    job()


def _background(job: Callable[[], None]) -> None:
    """Run a snapshot write on the process's one writer thread (daemon: a process
    that exits mid-write leaves the previous snapshot, which is still valid)."""
    global _WRITER
    with _WRITER_LOCK:
        if _WRITER is None:
            _WRITER = ThreadPoolExecutor(1, thread_name_prefix="index-snapshot")
    _WRITER.submit(job)


def epoch(moment: datetime) -> float:
    return moment.timestamp()
