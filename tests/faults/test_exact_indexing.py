"""Exact indexing under at-least-once, out-of-order, concurrent delivery (in process).

500 notes with creates, edits and deletes; every event delivered three times, in a
shuffled order, interleaved with the writes and processed by concurrent workers,
through the real event decoder and IndexingService. The result must equal a fresh
index of the final notes: same chunks, same vectors, no orphans, no duplicates.
tests/faults/test_exact_indexing_stack.py does the same against the running stack.
"""

from __future__ import annotations

import random
import threading
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from footnote.adapters import firestore_events
from footnote.domain import IndexStatus
from footnote.ingest.pipeline import prepare
from tests.faults.exactness import chunk_view, fresh_index, note_event
from tests.inproc import Harness

PROJECT = "demo-footnote"
WORDS = [
    "budget",
    "launch",
    "firestore",
    "pricing",
    "hiring",
    "churn",
    "metric",
    "decision",
    "investor",
    "runbook",
    "latency",
    "embedding",
    "vector",
    "keyword",
    "cursor",
    "tenant",
    "sweep",
    "replay",
    "event",
    "index",
]


def text(rng: random.Random, tag: str) -> str:
    sentences = rng.randint(1, 14)  # from one chunk to several (CHUNK_SIZE 450)
    return " ".join(
        f"{tag} {rng.choice(WORDS).capitalize()} {' '.join(rng.choices(WORDS, k=rng.randint(4, 12)))}."
        for _ in range(sentences)
    )


class Deliveries:
    """At-least-once delivery: each event three times, taken in random order."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.pending: list[Any] = []
        self.delivered = 0
        self._n = 0

    def emit(self, note_id: str, kind: str) -> None:
        self._n += 1
        for copy in range(3):
            self.pending.append(
                note_event(PROJECT, note_id, kind, f"e{self._n}-{copy}", raw=bool(copy % 2))
            )

    def take(self, count: int) -> list[Any]:
        self.rng.shuffle(self.pending)
        taken, self.pending = self.pending[:count], self.pending[count:]
        return taken


def deliver(h: Harness, event: Any) -> None:
    decoded = firestore_events.decode(event)
    h.container.indexing.index_note(decoded.note_id)


def assert_exact(h: Harness, deleted: set[str]) -> None:
    store = h.store
    final = list(store.notes.values())
    assert chunk_view(store.chunks.values()) == fresh_index(final)
    by_note: dict[str, list[int]] = defaultdict(list)
    for c in store.chunks.values():
        by_note[c.note_id].append(c.position)
    live = {n.id for n in final}
    assert set(by_note) <= live, "orphan chunks of deleted notes"
    for note in final:
        positions = sorted(by_note[note.id])
        assert positions == list(range(len(positions))) and positions, note.id  # no gaps, no dupes
        state = store.index_state(note.id)
        expected = prepare(note, h.container.embedder.model_id, 450, 75)
        assert state.status is IndexStatus.INDEXED, (note.id, state)
        assert state.content_hash == expected.content_hash
        assert state.chunk_count == len(positions) == len(expected.drafts)
    for note_id in deleted:
        assert store.index_state(note_id).status is IndexStatus.DELETED
    # What retrieval (vector, keyword, recency) reads is exactly that, per tenant.
    for tenant in {n.tenant_id for n in final}:
        corpus = h.container.corpora.get(tenant)
        assert corpus.live_ids() == {
            c.chunk_id for c in store.chunks.values() if c.tenant_id == tenant
        }


def test_500_notes_with_replayed_shuffled_concurrent_events_equal_a_fresh_index() -> None:
    rng = random.Random(20261122)
    h = Harness()
    notes = h.container.notes
    d = Deliveries(rng)
    tenants = ["t-alpha", "t-beta", "t-gamma"]
    ids: list[str] = []
    deleted: set[str] = set()
    pool = ThreadPoolExecutor(max_workers=4)
    futures = []
    for step in range(1000):
        roll = rng.random()
        live = [i for i in ids if i not in deleted]
        if len(ids) < 500 and (roll < 0.6 or not live):
            tenant = rng.choice(tenants)
            note = notes.create(
                tenant, text(rng, f"N{len(ids)}"), rng.choice(["", "Title"]), None, None
            )
            ids.append(note.note.id)
            d.emit(note.note.id, "created")
        elif roll < 0.88 and live:
            note_id = rng.choice(live)
            tenant = h.store.notes[note_id].tenant_id
            notes.update(tenant, note_id, {"text": text(rng, f"E{step}")})
            d.emit(note_id, "updated")
        elif live:
            note_id = rng.choice(live)
            notes.delete(h.store.notes[note_id].tenant_id, note_id)
            deleted.add(note_id)
            d.emit(note_id, "deleted")
        if rng.random() < 0.3:  # some deliveries race with the writes that follow
            futures += [pool.submit(deliver, h, e) for e in d.take(rng.randint(1, 12))]
    while len(ids) < 500:
        note = notes.create(rng.choice(tenants), text(rng, f"N{len(ids)}"), "", None, None)
        ids.append(note.note.id)
        d.emit(note.note.id, "created")
    futures += [pool.submit(deliver, h, e) for e in d.take(len(d.pending))]
    for f in futures:
        f.result()
    pool.shutdown()
    assert len(ids) == 500 and len(deleted) >= 50
    assert len(futures) >= 3 * (500 + len(deleted))
    assert_exact(h, deleted)


def test_concurrent_edits_to_one_note_converge_to_its_last_text() -> None:
    h = Harness()
    note_id = h.add_note("solo", "First version of the note.")
    h.container.indexing.index_note(note_id)
    rng = random.Random(3)
    d = Deliveries(rng)
    lock = threading.Lock()

    def edit(i: int) -> None:
        h.container.notes.update("solo", note_id, {"text": text(random.Random(i), f"V{i}")})
        with lock:
            d.emit(note_id, "updated")
        for event in [note_event(PROJECT, note_id, "updated", f"inline-{i}")]:
            deliver(h, event)  # the indexer races with the other editors

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(edit, range(40)))
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda e: deliver(h, e), d.take(len(d.pending))))
    assert_exact(h, set())
    last = h.store.notes[note_id].text
    assert " ".join(c.text for c in sorted(h.store.chunks.values(), key=lambda c: c.position))
    assert all(c.text in last for c in h.store.chunks.values())


def test_delete_processed_before_its_create_leaves_nothing() -> None:
    h = Harness()
    note_id = h.add_note("del", "A note that lives briefly. " * 40)
    h.container.notes.delete("del", note_id)
    # The delete event arrives first, then the create, each replayed.
    for kind in ("deleted", "deleted", "created", "updated", "created", "deleted"):
        deliver(h, note_event(PROJECT, note_id, kind, f"{kind}-x"))
    assert not [c for c in h.store.chunks.values() if c.note_id == note_id]
    assert h.store.index_state(note_id).status is IndexStatus.DELETED
    # And the same when the create was indexed first and its event is replayed late.
    other = h.add_note("del", "Indexed, then deleted, then its create event replays. " * 20)
    deliver(h, note_event(PROJECT, other, "created", "c1"))
    assert [c for c in h.store.chunks.values() if c.note_id == other]
    h.container.notes.delete("del", other)
    for kind in ("created", "deleted", "created"):
        deliver(h, note_event(PROJECT, other, kind, f"late-{kind}"))
    assert not [c for c in h.store.chunks.values() if c.note_id == other]
    corpus = h.container.corpora.get("del")
    assert not any(corpus.note_of(row) in (note_id, other) for row in corpus.by_id.values())
