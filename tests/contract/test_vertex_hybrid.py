"""Hybrid Vector Search at the wire: the real aiplatform_v1 SDK against the fake.

Datapoints carry the dense embedding and the BM25 sparse embedding; one
``findNeighbors`` request answers with a dense list and a keyword list whose
scores are exactly local BM25 (bm25s, Lucene) when the term statistics are exact.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

import numpy as np
import pytest

from footnote.adapters.hash_embedder import HashEmbedder
from footnote.adapters.memory_term_stats import MemoryTermStats
from footnote.adapters.vertex_vector_index import VertexVectorIndex
from footnote.domain import MemoryType, TimeWindow
from footnote.ports import HybridQuery
from footnote.retrieval.bm25 import Bm25Params
from footnote.retrieval.corpus import build_corpus
from footnote.retrieval.sparse import NoteTerms, chunk_terms, chunk_weights, term_id
from footnote.text import terms
from tests.factories import NOW, chunk
from tests.fakes.google_apis import FakeGoogleApis
from tests.fakes.vertex import INDEX, vertex_settings

TEXTS = {
    "a_000": "Firestore pricing decision for the launch budget.",
    "b_000": "Hiring plan and budget for the next quarter.",
    "c_000": "Churn metrics after the pricing change; pricing again.",
    "d_000": "Latency of vector search in the index.",
    "e_000": "Nothing about money here, only cats.",
}


def indexed(google: FakeGoogleApis, **env: str):
    """A hybrid index over TEXTS for alice (and one chunk of bob's), stats recorded first."""
    settings = vertex_settings(google, EMBEDDER="hash", **env)
    stats = MemoryTermStats()
    index = VertexVectorIndex.from_settings(settings, term_stats=stats)
    chunks = [
        chunk(
            cid,
            text,
            "alice",
            days_ago=i * 10,
            memory_type=MemoryType.DECISION if i == 0 else MemoryType.NOTE,
        )
        for i, (cid, text) in enumerate(TEXTS.items())
    ]
    chunks.append(chunk("z_000", "Pricing budget pricing of bob.", "bob"))
    for c in chunks:
        stats.record(c.tenant_id, c.note_id, NOW, NoteTerms.of([chunk_terms(c)]))
    index.upsert(chunks)
    return index, chunks, stats


def query(text: str, k: int = 10, **kw: object) -> HybridQuery:
    embedder = HashEmbedder()
    return HybridQuery(
        "alice",
        embedder.model_id,
        embedder.embed_query(text),
        tuple(terms(text)),
        k,
        **kw,  # type: ignore[arg-type]
    )


def test_datapoints_carry_dense_and_bm25_sparse_embeddings(google: FakeGoogleApis) -> None:
    _, chunks, stats = indexed(google)
    stored = google.datapoints(INDEX)
    alice = stats.statistics("alice")
    for c in chunks:
        point = stored[c.chunk_id]
        assert len(point.vector) == len(c.embedding)
        tenant_stats = stats.statistics(c.tenant_id)
        expected = chunk_weights(c, tenant_stats.avgdl, 0.9, 0.4).as_dict()
        assert point.sparse.keys() == expected.keys()
        assert point.sparse == pytest.approx(expected)
        assert point.restricts["tenant"][0] == {c.tenant_id}
    assert alice.docs == 5


def test_one_request_returns_a_dense_and_a_keyword_list_with_vectors(
    google: FakeGoogleApis,
) -> None:
    index, chunks, _ = indexed(google)
    before = len(google.calls("find"))
    hits = index.search_hybrid(query("pricing budget", k=3))
    finds = google.calls("find")[before:]
    assert len(finds) == 1  # one round trip
    body = finds[0].body
    assert body["returnFullDatapoint"] is True
    kinds = [
        ("featureVector" in q["datapoint"], "sparseEmbedding" in q["datapoint"])
        for q in body["queries"]
    ]
    assert kinds == [(True, False), (False, True)]
    assert all(q["neighborCount"] == 3 for q in body["queries"])
    assert len(hits.dense) == 3
    by_id = {c.chunk_id: c for c in chunks}
    for n in hits.dense + hits.keyword:
        assert n.chunk_id in TEXTS  # never bob's
        assert n.vector is not None
        np.testing.assert_allclose(n.vector, by_id[n.chunk_id].embedding, rtol=1e-6)
        assert n.created == pytest.approx(int(by_id[n.chunk_id].created_at.timestamp()))
    assert {n.chunk_id for n in hits.keyword} == {"a_000", "b_000", "c_000"}
    assert [n.score for n in hits.dense] == sorted((n.score for n in hits.dense), reverse=True)


def test_keyword_scores_are_local_bm25_with_exact_statistics(google: FakeGoogleApis) -> None:
    index, chunks, _ = indexed(google)
    alice = [c for c in chunks if c.tenant_id == "alice"]
    corpus = build_corpus(alice, bm25_params=Bm25Params(0.9, 0.4, "lucene"))
    for text in ("pricing budget", "pricing pricing launch", "vector index latency", "cats"):
        q = tuple(terms(text))
        local = corpus.keyword_scores(q)
        expected = {}
        for i in range(len(local)):
            if local[i] > 0:
                assert corpus.alive[i]  # a scored row is a live one
                expected[corpus.ids[i]] = float(local[i])
        hits = index.search_hybrid(dataclasses.replace(query(text), keywords=q))
        assert {n.chunk_id: n.score for n in hits.keyword} == pytest.approx(expected, rel=1e-5)


def test_restricts_bind_both_lists(google: FakeGoogleApis) -> None:
    index, _, _ = indexed(google)
    typed = index.search_hybrid(query("pricing budget", types=(MemoryType.DECISION,)))
    assert [n.chunk_id for n in typed.dense] == ["a_000"]
    assert [n.chunk_id for n in typed.keyword] == ["a_000"]
    window = TimeWindow(NOW - timedelta(days=15), None)
    recent = index.search_hybrid(query("pricing budget", window=window))
    assert {n.chunk_id for n in recent.dense} == {"a_000", "b_000"}
    assert {n.chunk_id for n in recent.keyword} == {"a_000", "b_000"}


def test_no_vector_means_a_keyword_only_request(google: FakeGoogleApis) -> None:
    index, _, _ = indexed(google)
    hits = index.search_hybrid(dataclasses.replace(query("pricing"), vector=None))
    assert hits.dense == [] and {n.chunk_id for n in hits.keyword} == {"a_000", "c_000"}
    assert len(google.calls("find")[-1].body["queries"]) == 1


def test_a_query_of_another_model_is_refused(google: FakeGoogleApis) -> None:
    index, _, _ = indexed(google)
    with pytest.raises(ValueError):
        index.search_hybrid(dataclasses.replace(query("pricing"), model_id="other-model"))


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_service_fusion_sends_rrf_and_its_extremes_are_the_single_lists(
    google: FakeGoogleApis, alpha: float
) -> None:
    index, _, _ = indexed(google)
    two = index.search_hybrid(query("pricing budget", k=5))
    fused_index = VertexVectorIndex.from_settings(
        vertex_settings(google, EMBEDDER="hash"),
        term_stats=index._stats,
        fusion="service",
        rrf_alpha=alpha,
    )
    fused = fused_index.search_hybrid(query("pricing budget", k=5))
    sent = google.calls("find")[-1].body["queries"]
    assert len(sent) == 1 and "rrf" in sent[0]
    assert "featureVector" in sent[0]["datapoint"] and "sparseEmbedding" in sent[0]["datapoint"]
    assert fused.keyword == []
    single = two.dense if alpha == 1.0 else two.keyword
    assert [n.chunk_id for n in fused.dense][: len(single)] == [n.chunk_id for n in single]


def test_the_fake_requires_rrf_to_mix_dense_and_sparse(google: FakeGoogleApis) -> None:
    import requests

    indexed(google)
    endpoint = vertex_settings(google).vertex_index_endpoint
    body: dict[str, Any] = {
        "deployedIndexId": vertex_settings(google).vertex_deployed_index_id,
        "queries": [
            {
                "datapoint": {
                    "featureVector": [0.1] * 256,
                    "sparseEmbedding": {"values": [1.0], "dimensions": ["7"]},
                }
            }
        ],
    }
    r = requests.post(
        f"{google.url}/v1/{endpoint}:findNeighbors",
        json=body,
        headers={"Authorization": "Bearer x"},
    )
    assert r.status_code == 400


def test_the_indexer_keeps_sparse_datapoints_and_statistics_in_step(google: FakeGoogleApis) -> None:
    """Through the production wiring: indexing records the note's terms and upserts
    hybrid datapoints; an edit replaces them; a delete subtracts them."""
    from footnote.domain import NoteChanges
    from footnote.services.indexing import Outcome
    from footnote.wiring import Container
    from tests.factories import note

    c = Container(vertex_settings(google, EMBEDDER="hash"))
    c.store.create_note(note("k1", "Pricing decision for the launch budget.", "kim"))
    c.store.create_note(note("k2", "Hiring plan for the next quarter.", "kim"))
    for nid in ("k1", "k2"):
        assert c.indexing.index_note(nid).outcome is Outcome.INDEXED
    stats = c.term_stats
    assert stats is not None
    pricing = term_id(terms("pricing")[0])
    assert stats.statistics("kim").docs == 2 and stats.statistics("kim").df_of(pricing) == 1
    assert all(p.sparse for p in google.datapoints(INDEX).values())
    hits = c.vector_index.search_hybrid(
        HybridQuery("kim", c.embedder.model_id, None, tuple(terms("pricing")), 5)
    )
    assert [n.chunk_id.split("_")[0] for n in hits.keyword] == ["k1"]

    c.store.update_note("kim", "k1", NoteChanges(text="Churn after the hiring freeze."), NOW)
    assert c.indexing.index_note("k1").outcome is Outcome.INDEXED
    assert stats.statistics("kim").df_of(pricing) == 0
    assert stats.statistics("kim").df_of(term_id(terms("hiring")[0])) == 2
    c.store.delete_note("kim", "k2")
    assert c.indexing.index_note("k2").outcome is Outcome.REMOVED
    assert stats.statistics("kim").docs == 1
    assert stats.statistics("kim").df_of(term_id(terms("hiring")[0])) == 1
