"""The local functions host loads the embedding model and the active tenants' indexes
before it serves (issue 46, item 22: the first /chat after a restart took 9.4 s)."""

from __future__ import annotations

from typing import Any

import pytest

from footnote.adapters.blob_snapshots import BlobIndexSnapshots
from footnote.dev import host
from footnote.retrieval.corpus import CorpusCache, CorpusLoad
from tests.inproc import Harness


def test_warm_up_loads_the_model_and_each_tenant_with_a_snapshot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    h = Harness()
    c = h.container
    for tenant in ("alice", "bob", "carol"):
        note_id = h.add_note(tenant, f"The {tenant} launch moved to March.")
        c.indexing.index_note(note_id)
    snapshots = BlobIndexSnapshots(c.blobs)
    for tenant in ("alice", "bob"):  # carol has none: not an active tenant
        CorpusCache(c.store, snapshots=snapshots, run_writes=lambda job: job()).get(tenant)
    # A fresh process: the container the host's functions share, nothing loaded yet.
    fresh = Harness().container
    fresh._built["store"] = c.store
    fresh._built["blobs"] = c.blobs
    fresh._built["index_snapshots"] = snapshots
    embedded: list[str] = []
    embedder: Any = fresh.embedder

    def embed_query(text: str) -> list[float]:
        embedded.append(text)
        return [0.0]

    monkeypatch.setattr(embedder, "embed_query", embed_query)
    loads: list[tuple[str, CorpusLoad]] = []
    fresh.corpora._on_load = lambda tenant, load: loads.append((tenant, load))
    monkeypatch.setattr("footnote.wiring.container", lambda: fresh)
    host.warm_up()
    assert embedded  # the model answered once
    assert sorted(tenant for tenant, load in loads if load.snapshot) == ["alice", "bob"]
    assert all(not load.full for _, load in loads)
