"""BM25 term statistics stay exact under replayed, shuffled, concurrent events.

The 500-note scenario of test_exact_indexing, with the term statistics the
Vector Search index needs: after every event is delivered (three times, in a
random order, by concurrent workers), each tenant's chunk count, total length
and df per term equal those computed from scratch over its final chunks.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

from footnote.adapters.memory_term_stats import MemoryTermStats
from footnote.retrieval.sparse import NoteTerms, chunk_terms
from tests.faults.test_exact_indexing import Deliveries, deliver, text
from tests.inproc import Harness


def expected_stats(h: Harness, tenant: str) -> tuple[int, int, dict[int, int]]:
    got = NoteTerms.of(chunk_terms(c) for c in h.store.chunks.values() if c.tenant_id == tenant)
    return got.docs, got.length, dict(got.df)


def stats_of(stats: MemoryTermStats, tenant: str) -> tuple[int, int, dict[int, int]]:
    s = stats.statistics(tenant)
    assert isinstance(s.df, Mapping)  # exact counts: no sketch here
    return s.docs, s.length, {k: v for k, v in dict(s.df).items() if v}


def test_term_stats_after_replayed_shuffled_concurrent_events_equal_a_fresh_count() -> None:
    rng = random.Random(20261123)
    h = Harness()
    stats = MemoryTermStats()
    h.container._built["term_stats"] = stats
    notes = h.container.notes
    d = Deliveries(rng)
    tenants = ["t-alpha", "t-beta"]
    ids: list[str] = []
    deleted: set[str] = set()
    futures = []
    with ThreadPoolExecutor(max_workers=4) as pool:
        for step in range(400):
            roll = rng.random()
            live = [i for i in ids if i not in deleted]
            if roll < 0.55 or not live:
                note = notes.create(rng.choice(tenants), text(rng, f"N{step}"), "Title", None, None)
                ids.append(note.note.id)
                d.emit(note.note.id, "created")
            elif roll < 0.85:
                note_id = rng.choice(live)
                tenant = h.store.notes[note_id].tenant_id
                notes.update(tenant, note_id, {"text": text(rng, f"E{step}")})
                d.emit(note_id, "updated")
            else:
                note_id = rng.choice(live)
                notes.delete(h.store.notes[note_id].tenant_id, note_id)
                deleted.add(note_id)
                d.emit(note_id, "deleted")
            if rng.random() < 0.3:
                futures += [pool.submit(deliver, h, e) for e in d.take(rng.randint(1, 12))]
        futures += [pool.submit(deliver, h, e) for e in d.take(len(d.pending))]
        for f in futures:
            f.result()
    assert len(deleted) >= 20
    for tenant in tenants:
        docs, length, df = expected_stats(h, tenant)
        assert docs > 50
        assert stats_of(stats, tenant) == (docs, length, df)


def test_a_late_indexer_of_an_older_version_changes_nothing() -> None:
    from datetime import UTC, datetime, timedelta

    stats = MemoryTermStats()
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    new = NoteTerms(2, 10, {1: 2, 2: 1})
    old = NoteTerms(1, 3, {1: 1, 3: 1})
    stats.record("t", "n", t0 + timedelta(seconds=5), new)
    stats.record("t", "n", t0, old)  # the late one
    stats.record("t", "n", t0 + timedelta(seconds=5), new)  # a replay
    assert stats_of(stats, "t") == (2, 10, {1: 2, 2: 1})
    stats.record("t", "n", None, None)  # deleted
    stats.record("t", "n", t0 + timedelta(seconds=9), new)  # an indexer that lost the race
    assert stats_of(stats, "t") == (0, 0, {})
