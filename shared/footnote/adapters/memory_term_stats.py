"""Term statistics in process: exact df per term id, or the same count-min sketch as
Firestore when one is given (to measure what the sketch costs)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType

from footnote.retrieval.sparse import NoteTerms, Sketch, SketchedDf, TermStatistics


@dataclass
class _Recorded:
    tenant_id: str
    version: datetime | None
    terms: NoteTerms | None  # None: the note is gone


@dataclass
class _Totals:
    docs: int = 0
    length: int = 0
    df: dict[int, int] = field(default_factory=dict)
    rows: list[dict[int, int]] = field(default_factory=list)


class MemoryTermStats:
    def __init__(self, sketch: Sketch | None = None) -> None:
        self._sketch = sketch
        self._notes: dict[str, _Recorded] = {}
        self._tenants: dict[str, _Totals] = {}
        self._lock = threading.Lock()

    def record(
        self, tenant_id: str, note_id: str, version: datetime | None, terms: NoteTerms | None
    ) -> None:
        with self._lock:
            prior = self._notes.get(note_id)
            if prior is not None:
                if prior.terms is None:
                    return  # the note is gone for good
                if terms is not None and _older(version, prior.version):
                    return  # a late indexer of an older version
            self._apply(prior.tenant_id if prior else tenant_id, prior.terms if prior else None, -1)
            self._apply(tenant_id, terms, +1)
            self._notes[note_id] = _Recorded(tenant_id, version, terms)

    def _apply(self, tenant_id: str, terms: NoteTerms | None, sign: int) -> None:
        if terms is None:
            return
        totals = self._tenants.setdefault(tenant_id, _Totals())
        totals.docs += sign * terms.docs
        totals.length += sign * terms.length
        if self._sketch is not None:
            if not totals.rows:
                totals.rows = [{} for _ in range(self._sketch.depth)]
            self._sketch.add(totals.rows, terms.df, sign)
            return
        for tid, count in terms.df.items():
            left = totals.df.get(tid, 0) + sign * count
            if left:
                totals.df[tid] = left
            else:
                totals.df.pop(tid, None)

    def statistics(self, tenant_id: str) -> TermStatistics:
        with self._lock:
            t = self._tenants.get(tenant_id, _Totals())
            if self._sketch is not None:
                rows: tuple[Mapping[int, int], ...] = tuple(MappingProxyType(r) for r in t.rows)
                rows = rows or tuple({} for _ in range(self._sketch.depth))
                return TermStatistics(t.docs, t.length, SketchedDf(self._sketch, rows))
            # a live read-only view: no copy of the vocabulary per query
            return TermStatistics(t.docs, t.length, MappingProxyType(t.df))


def _older(version: datetime | None, than: datetime | None) -> bool:
    return version is not None and than is not None and version < than
