"""Term statistics in Firestore, for the sparse (keyword) half of Vector Search.

Layout:
- ``termStats/{tenantId}~{row}`` (row 0 … depth−1): one row of a count-min sketch
  of df (``df.b{bucket}`` counters); row 0 also holds ``docs`` and ``length``.
  A fixed number of fields per document whatever the vocabulary (Firestore caps a
  document at 20,000 fields and 1 MiB); df read from it is never below the truth.
- ``termStatsNotes/{noteId}``: what the note contributes now (its chunks' term ids
  with df, chunk count, total length), the note version it was computed from, and
  a ``deleted`` tombstone. This record is what makes the counters exact under
  replayed and reordered events: each ``record`` subtracts the recorded
  contribution and adds the new one in one transaction, which reads only that
  note's record (so indexers of different notes never contend on a read) and
  writes the sketch rows with blind ``Increment`` transforms.
- It runs after the chunk transaction, never inside it (see ``FirestoreRepository._bump``).

Reads: ``statistics`` serves a per-process copy at most ``ttl_s`` old, then reads
the ``depth`` row documents in one ``get_all``: a query costs no document read
while the copy is fresh.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from footnote.adapters.google_retry import port_errors_only
from footnote.retrieval.sparse import NoteTerms, Sketch, SketchedDf, TermStatistics

if TYPE_CHECKING:
    from google.cloud import firestore

ROWS = "termStats"
NOTES = "termStatsNotes"


@port_errors_only  # a failed Firestore raises the port's errors, as the repositories do
class FirestoreTermStats:
    def __init__(
        self,
        client: firestore.Client,
        sketch: Sketch | None = None,
        ttl_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from google.cloud import firestore as fs

        self.client = client
        self._fs = fs
        self.sketch = sketch or Sketch()
        self._ttl = ttl_s
        self._clock = clock
        self._cache: dict[str, tuple[float, TermStatistics]] = {}
        self._lock = threading.Lock()
        self.reads = 0  # row documents read (tests and benchmarks count them)

    # -- writes (the indexer) ---------------------------------------------------------
    def record(
        self, tenant_id: str, note_id: str, version: datetime | None, terms: NoteTerms | None
    ) -> None:
        ref = self.client.collection(NOTES).document(note_id)

        @self._fs.transactional
        def run(tx: Any) -> None:
            snap = ref.get(transaction=tx)
            prior = snap.to_dict() if snap.exists else None
            if prior is not None:
                if prior.get("deleted"):
                    return  # the note is gone for good
                if terms is not None and _older(version, prior.get("version")):
                    return  # a late indexer of an older version
            old_tenant = (prior or {}).get("tenantId", tenant_id)
            old = _terms_from(prior) if prior else None
            if prior is not None and old_tenant == tenant_id and old == terms:
                if version != prior.get("version"):  # same terms, newer version
                    tx.set(ref, _record_doc(tenant_id, version, terms))
                return  # a replay changes no counter
            deltas: dict[str, list[dict[int, int]]] = {}
            totals: dict[str, list[int]] = {}
            self._delta(deltas, totals, old_tenant, old, -1)
            self._delta(deltas, totals, tenant_id, terms, +1)
            for tenant, rows in deltas.items():
                docs, length = totals[tenant]
                for row, counters in enumerate(rows):
                    fields: dict[str, Any] = {}
                    changed = {f"b{b}": self._fs.Increment(n) for b, n in counters.items() if n}
                    if changed:
                        fields["df"] = changed
                    if row == 0:
                        if docs:
                            fields["docs"] = self._fs.Increment(docs)
                        if length:
                            fields["length"] = self._fs.Increment(length)
                    if fields:
                        tx.set(self._row_ref(tenant, row), fields, merge=True)
            tx.set(ref, _record_doc(tenant_id, version, terms))

        run(self.client.transaction(max_attempts=10))

    def _delta(
        self,
        deltas: dict[str, list[dict[int, int]]],
        totals: dict[str, list[int]],
        tenant: str,
        terms: NoteTerms | None,
        sign: int,
    ) -> None:
        if terms is None or not tenant:
            return
        rows = deltas.setdefault(tenant, [{} for _ in range(self.sketch.depth)])
        self.sketch.add(rows, terms.df, sign)
        total = totals.setdefault(tenant, [0, 0])
        total[0] += sign * terms.docs
        total[1] += sign * terms.length

    def _row_ref(self, tenant_id: str, row: int) -> Any:
        return self.client.collection(ROWS).document(f"{tenant_id}~{row}")

    # -- reads (queries) ------------------------------------------------------------
    def statistics(self, tenant_id: str) -> TermStatistics:
        now = self._clock()
        with self._lock:
            hit = self._cache.get(tenant_id)
            if hit is not None and now - hit[0] < self._ttl:
                return hit[1]
        stats = self.read(tenant_id)
        with self._lock:
            self._cache[tenant_id] = (now, stats)
            if len(self._cache) > 1024:  # bounded: drop the oldest
                oldest = min(self._cache, key=lambda t: self._cache[t][0])
                self._cache.pop(oldest, None)
        return stats

    def read(self, tenant_id: str) -> TermStatistics:
        """The statistics as stored now, bypassing the cache."""
        refs = [self._row_ref(tenant_id, r) for r in range(self.sketch.depth)]
        snaps = {s.id: s.to_dict() or {} for s in self.client.get_all(refs) if s.exists}
        self.reads += len(refs)
        rows: list[Mapping[int, int]] = []
        for ref in refs:
            raw = (snaps.get(ref.id) or {}).get("df") or {}
            rows.append({int(k[1:]): int(v) for k, v in raw.items() if k.startswith("b")})
        head = snaps.get(refs[0].id) or {}
        return TermStatistics(
            int(head.get("docs", 0)),
            int(head.get("length", 0)),
            SketchedDf(self.sketch, tuple(rows)),
        )


def _older(version: datetime | None, than: Any) -> bool:
    return version is not None and than is not None and version < than


def _record_doc(
    tenant_id: str, version: datetime | None, terms: NoteTerms | None
) -> dict[str, Any]:
    if terms is None:
        return {"tenantId": tenant_id, "deleted": True, "version": version}
    ids = sorted(terms.df)
    return {
        "tenantId": tenant_id,
        "deleted": False,
        "version": version,
        "docs": terms.docs,
        "length": terms.length,
        "termIds": ids,
        "termDf": [terms.df[t] for t in ids],
    }


def _terms_from(d: Mapping[str, Any]) -> NoteTerms | None:
    if d.get("deleted"):
        return None
    ids = [int(t) for t in d.get("termIds") or []]
    counts = [int(n) for n in d.get("termDf") or []]
    return NoteTerms(
        int(d.get("docs", 0)), int(d.get("length", 0)), dict(zip(ids, counts, strict=True))
    )
