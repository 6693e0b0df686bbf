"""A corpus loaded from a snapshot, then patched, equals one built from scratch.

Snapshots are written while notes are written, edited and deleted; a cold
instance (a new corpus cache over the same store and snapshot store) loads the
latest one and must hold exactly the notes the store holds: none lost, none
resurrected. Writes may commit between the index state a corpus reads and the
change log it reads next (so a snapshot holds changes after its mark), a process
may die after writing a snapshot with changes committed since, and an upload may
be cut off: each still ends in the exact corpus (or a full load, with its reason).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from footnote.adapters.blob_snapshots import BlobIndexSnapshots
from footnote.adapters.memory_blobs import MemoryBlobStore
from footnote.retrieval.corpus import CorpusCache, CorpusLoad, SnapshotPolicy, build_corpus
from footnote.retrieval.snapshot import encode
from tests.faults.test_incremental_corpus import _assert_same, _CountingStore, _text
from tests.inproc import Harness

TENANT = "alice"


def _inline(job: Any) -> None:
    job()


def _cache(store: Any, snapshots: BlobIndexSnapshots, loads: list[CorpusLoad], every: int = 5):
    return CorpusCache(
        store,
        snapshots=snapshots,
        snapshot_policy=SnapshotPolicy(every_changes=every, every_seconds=3600),
        run_writes=_inline,
        on_load=lambda tenant, load: loads.append(load),
    )


def _fresh(h: Harness, bm25: Any):
    return build_corpus(
        [c for c in h.store.chunks.values() if c.tenant_id == TENANT], bm25_params=bm25
    )


def _step(h: Harness, rng: random.Random, live: list[str]) -> None:
    roll = rng.random()
    if roll < 0.45 or not live:
        note_id = h.add_note(TENANT, _text(rng), title=rng.choice(["Launch", "", "Weekly"]))
        live.append(note_id)
    elif roll < 0.75:
        note_id = rng.choice(live)
        assert h.call("PATCH", f"/notes/{note_id}", TENANT, json={"text": _text(rng)}).status_code
    else:
        note_id = live.pop(rng.randrange(len(live)))
        assert h.call("DELETE", f"/notes/{note_id}", TENANT).status_code == 204
    h.container.indexing.index_note(note_id)


@pytest.mark.parametrize("seed", [11, 12])
def test_snapshots_written_while_notes_change_lose_and_resurrect_nothing(seed: int) -> None:
    rng = random.Random(seed)
    h = Harness()
    snapshots = BlobIndexSnapshots(MemoryBlobStore())
    live: list[str] = []
    for _ in range(25):
        _step(h, rng, live)
    loads: list[CorpusLoad] = []
    serving = _cache(h.store, snapshots, loads)
    serving.get(TENANT)
    assert loads[-1].full and loads[-1].reason == "missing"
    assert snapshots.read(TENANT) is not None  # written after the full load
    for _ in range(40):
        for _ in range(rng.randint(1, 4)):
            _step(h, rng, live)
        if rng.random() < 0.6:
            serving.get(TENANT)  # patched; a snapshot every 5 changed notes
        # A cold instance: the latest snapshot, then only what changed since it.
        cold_loads: list[CorpusLoad] = []
        counting = _CountingStore(h.store)
        cold = _cache(counting, snapshots, cold_loads, every=10_000).get(TENANT)
        assert cold_loads and cold_loads[0].snapshot and not cold_loads[0].full, cold_loads
        assert "tenant_chunk_pages" not in counting.read  # never every chunk
        fresh = _fresh(h, cold.bm25)
        assert cold.live_ids() == fresh.live_ids()  # none lost, none resurrected
        _assert_same(cold, fresh, rng)
    _assert_same(serving.get(TENANT), _fresh(h, cold.bm25), rng)


class _WriteDuringChangeLog:
    """A store whose change-log read lets another writer commit first, once: the
    corpus then holds a change made after the mark it records."""

    def __init__(self, inner: Any, write: Any) -> None:
        self.inner = inner
        self.write = write

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def notes_changed_since(self, tenant_id: str, mark: Any, limit: int) -> Any:
        if self.write is not None:
            write, self.write = self.write, None
            write()
        return self.inner.notes_changed_since(tenant_id, mark, limit)


def test_a_snapshot_holding_changes_after_its_mark_then_a_crash_ends_exact() -> None:
    rng = random.Random(5)
    h = Harness()
    snapshots = BlobIndexSnapshots(MemoryBlobStore())
    live: list[str] = []
    for _ in range(20):
        _step(h, rng, live)
    loads: list[CorpusLoad] = []
    racing = _WriteDuringChangeLog(h.store, None)
    serving = _cache(racing, snapshots, loads, every=1)
    serving.get(TENANT)
    victim = live[0]
    _step(h, rng, live)  # a change, so the next refresh patches

    def delete_victim() -> None:  # commits after the refresh read its mark
        assert h.call("DELETE", f"/notes/{victim}", TENANT).status_code == 204
        h.container.indexing.index_note(victim)

    racing.write = delete_victim
    live.remove(victim)
    serving.get(TENANT)  # patched with the deletion, and snapshotted at the older mark
    # The process dies here. Since its snapshot: one edit, one new note.
    _step(h, random.Random(99), live)
    _step(h, random.Random(98), live)
    cold_loads: list[CorpusLoad] = []
    cold = _cache(h.store, snapshots, cold_loads, every=10_000).get(TENANT)
    assert cold_loads[0].snapshot, cold_loads
    assert not any(cid.startswith(victim) for cid in cold.live_ids())  # not resurrected
    fresh = _fresh(h, cold.bm25)
    assert cold.live_ids() == fresh.live_ids()
    _assert_same(cold, fresh, rng)


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda data: data[: len(data) // 2], "corrupt: truncated"),  # an upload cut off
        (lambda data: data[:-1] + bytes([data[-1] ^ 0xFF]), "corrupt: checksum mismatch"),
        (lambda data: b"", "corrupt: not a Footnote index snapshot (or another format)"),
    ],
)
def test_a_damaged_snapshot_falls_back_to_the_full_load_with_its_reason(damage, reason) -> None:
    rng = random.Random(8)
    h = Harness()
    snapshots = BlobIndexSnapshots(MemoryBlobStore())
    live: list[str] = []
    for _ in range(12):
        _step(h, rng, live)
    _cache(h.store, snapshots, []).get(TENANT)
    good = bytes(snapshots.read(TENANT) or b"")
    snapshots.write(TENANT, damage(good))
    loads: list[CorpusLoad] = []
    corpus = _cache(h.store, snapshots, loads).get(TENANT)
    assert loads[0].full and loads[0].reason == reason
    _assert_same(corpus, _fresh(h, corpus.bm25), rng)
    assert bytes(snapshots.read(TENANT) or b"")[:8] == good[:8]  # a good one written again


def test_a_snapshot_too_far_behind_or_of_another_analyzer_is_stale(monkeypatch) -> None:
    rng = random.Random(9)
    h = Harness()
    snapshots = BlobIndexSnapshots(MemoryBlobStore())
    live: list[str] = []
    for _ in range(8):
        _step(h, rng, live)
    _cache(h.store, snapshots, []).get(TENANT)
    for _ in range(6):
        _step(h, rng, live)
    loads: list[CorpusLoad] = []
    behind = CorpusCache(
        h.store, max_behind=2, snapshots=snapshots, run_writes=_inline,
        on_load=lambda tenant, load: loads.append(load),
    )  # fmt: skip
    corpus = behind.get(TENANT)
    assert loads[-1].full and loads[-1].reason.startswith("stale: more than 2 notes"), loads
    _assert_same(corpus, _fresh(h, corpus.bm25), rng)
    monkeypatch.setattr("footnote.retrieval.snapshot.analyzer_fingerprint", lambda: "other")
    loads.clear()
    _cache(h.store, snapshots, loads).get(TENANT)
    assert loads[0].full and loads[0].reason == "stale: made by another analyzer (terms differ)"


def test_a_snapshot_is_never_read_as_another_tenants() -> None:
    rng = random.Random(4)
    h = Harness()
    snapshots = BlobIndexSnapshots(MemoryBlobStore())
    live: list[str] = []
    for _ in range(5):
        _step(h, rng, live)
    corpus = _cache(h.store, snapshots, []).get(TENANT)
    with corpus.lock:
        snapshots.write("bob", encode(TENANT, corpus))
    loads: list[CorpusLoad] = []
    bob = _cache(h.store, snapshots, loads).get("bob")
    assert len(bob) == 0 and loads[0].full
    assert loads[0].reason == "snapshot of tenant 'alice', not 'bob'"
