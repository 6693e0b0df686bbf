"""On the real Firestore emulator: the Vector Search fallback (find_nearest with the
tenant pre-filter) and the BM25 term statistics the indexer keeps.

Marked ``emulator``: starts the local stack (tests/conftest.py).
"""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import numpy as np
import pytest

from footnote.adapters.firestore_store import FirestoreStore
from footnote.adapters.firestore_term_stats import FirestoreTermStats
from footnote.adapters.firestore_vector_index import FirestoreVectorIndex
from footnote.adapters.hash_embedder import HashEmbedder
from footnote.domain import IndexState, IndexStatus, MemoryType, TimeWindow
from footnote.ports import HybridQuery
from footnote.retrieval.sparse import NoteTerms, Sketch, term_id
from tests.factories import NOW, chunk, note

pytestmark = pytest.mark.emulator


@pytest.fixture
def store(stack) -> FirestoreStore:
    # A database of its own: the emulator applies find_nearest's limit before the
    # tenant pre-filter, so other tests' chunks in the shared database would crowd
    # this tenant's out (production applies the pre-filter in the index).
    from google.cloud import firestore

    database = f"vector-{uuid.uuid4().hex[:8]}"
    return FirestoreStore(firestore.Client(project=stack.project, database=database))


def put(store: FirestoreStore, tenant: str, cid: str, text: str, **kw: object) -> None:
    c = chunk(cid, text, tenant, **kw)  # type: ignore[arg-type]
    n = note(c.note_id, text, tenant)
    store.create_note(n)
    assert store.replace_chunks(n, [c], IndexState(n.id, tenant, IndexStatus.INDEXED)) is not None


def test_find_nearest_with_the_tenant_prefilter_is_the_dense_list(store: FirestoreStore) -> None:
    run = uuid.uuid4().hex[:8]
    alice, bob = f"alice-{run}", f"bob-{run}"
    texts = {
        f"{run}a_000": "Firestore pricing decision for the launch budget.",
        f"{run}b_000": "Hiring plan and budget for the next quarter.",
        f"{run}c_000": "Latency of vector search in the index.",
    }
    for i, (cid, text) in enumerate(texts.items()):
        kind = MemoryType.DECISION if i == 0 else MemoryType.NOTE
        put(store, alice, cid, text, days_ago=i * 10, memory_type=kind)
    put(store, bob, f"{run}z_000", "Firestore pricing decision for the launch budget.")
    index = FirestoreVectorIndex(store.client)
    embedder = HashEmbedder()
    q = embedder.embed_query("pricing budget decision")
    hits = index.search_hybrid(HybridQuery(alice, embedder.model_id, q, ("price",), 2))
    assert hits.keyword == []
    assert len(hits.dense) == 2 and all(n.chunk_id in texts for n in hits.dense)
    exact = {cid: float(np.dot(embedder.embed_documents([t])[0], q)) for cid, t in texts.items()}
    best = sorted(exact, key=lambda c: -exact[c])[:2]
    assert [n.chunk_id for n in hits.dense] == best
    for n in hits.dense:
        assert n.score == pytest.approx(exact[n.chunk_id], abs=1e-5)
        assert n.vector is not None and len(n.vector) == embedder.dimension
    assert index.reads <= 2 * 3  # oversampled for the model check, never the tenant
    typed = index.search_hybrid(
        HybridQuery(alice, embedder.model_id, q, (), 5, types=(MemoryType.DECISION,))
    )
    assert [n.chunk_id for n in typed.dense] == [f"{run}a_000"]
    window = TimeWindow(NOW - timedelta(days=15), None)
    recent = index.search_hybrid(HybridQuery(alice, embedder.model_id, q, (), 5, window=window))
    assert {n.chunk_id for n in recent.dense} == {f"{run}a_000", f"{run}b_000"}
    other_model = index.search_hybrid(HybridQuery(alice, "other:model:256", q, (), 5))
    assert other_model.dense == []


def test_term_stats_are_exact_under_replays_and_concurrent_notes(firestore_client) -> None:
    tenant = f"stats-{uuid.uuid4().hex[:8]}"
    stats = FirestoreTermStats(firestore_client, Sketch(width=4096, depth=2), ttl_s=0)
    words = ["budget", "launch", "pricing", "hiring", "churn", "vector"]

    def contribution(i: int) -> NoteTerms:
        return NoteTerms.of([words[: 1 + i % 6], words[i % 3 :]])

    def index(i: int) -> None:
        stats.record(tenant, f"{tenant}-n{i}", NOW, contribution(i))
        stats.record(tenant, f"{tenant}-n{i}", NOW, contribution(i))  # replayed

    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(index, range(24)))
    # an edit, a late indexer of the older version, and deletes (one replayed late)
    stats.record(tenant, f"{tenant}-n0", NOW + timedelta(seconds=1), NoteTerms.of([["churn"]]))
    stats.record(tenant, f"{tenant}-n0", NOW, contribution(0))
    for i in (1, 2):
        stats.record(tenant, f"{tenant}-n{i}", None, None)
    stats.record(tenant, f"{tenant}-n1", NOW + timedelta(seconds=5), contribution(1))

    live = [NoteTerms.of([["churn"]])] + [contribution(i) for i in range(3, 24)]
    got = stats.statistics(tenant)
    assert got.docs == sum(t.docs for t in live)
    assert got.length == sum(t.length for t in live)
    for w in words:
        assert got.df_of(term_id(w)) == sum(t.df.get(term_id(w), 0) for t in live), w


def test_term_stats_reads_are_cached_for_the_ttl(firestore_client) -> None:
    tenant = f"ttl-{uuid.uuid4().hex[:8]}"
    now = [0.0]
    stats = FirestoreTermStats(firestore_client, Sketch(depth=2), ttl_s=60, clock=lambda: now[0])
    stats.record(tenant, f"{tenant}-a", NOW, NoteTerms.of([["budget"]]))
    assert stats.statistics(tenant).docs == 1 and stats.reads == 2  # one get_all of 2 rows
    stats.record(tenant, f"{tenant}-b", NOW, NoteTerms.of([["budget"]]))
    for _ in range(50):
        assert stats.statistics(tenant).docs == 1  # cached: stale by at most the ttl
    assert stats.reads == 2
    now[0] = 61.0
    assert stats.statistics(tenant).docs == 2 and stats.reads == 4
