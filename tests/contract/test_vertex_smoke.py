"""Smoke test against a real Google Cloud project: the flow of test_vertex_services.py
(index notes, ask, get a cited answer), with no fakes and no fallbacks allowed.

Skipped unless ``FOOTNOTE_SMOKE_PROJECT`` is set and Application Default
Credentials are available (``gcloud auth application-default login``). See
docs/vertex.md for the switches:

- ``FOOTNOTE_SMOKE_PROJECT``  project id (Vertex AI API enabled) — required
- ``FOOTNOTE_SMOKE_LOCATION``  Vertex AI region, default ``us-central1``
- ``FOOTNOTE_SMOKE_INDEX``, ``FOOTNOTE_SMOKE_INDEX_ENDPOINT``,
  ``FOOTNOTE_SMOKE_DEPLOYED_INDEX_ID`` (and ``FOOTNOTE_SMOKE_PUBLIC_ENDPOINT_DOMAIN``
  for a public endpoint): a stream-update Vector Search index to test too;
  without them the in-memory index serves
- ``FOOTNOTE_SMOKE_RANKING=1``  also call the ranking API (Discovery Engine API enabled)
- ``CHAT_MODEL``, ``EMBEDDING_MODEL``, ``EMBEDDING_DIMENSION``  as in production
- ``VERTEX_API_ENDPOINT``, ``VECTOR_SEARCH_API_ENDPOINT``, ``RANKING_API_ENDPOINT``
  endpoint overrides (Private Service Connect)

The notes live in the in-memory store under a fresh tenant id; datapoints
written to a real index are removed at the end.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from footnote.api import wire
from footnote.config import Settings
from footnote.services.chat import RagConfig
from footnote.services.indexing import Outcome
from footnote.wiring import Container
from tests.factories import note

PROJECT = os.environ.get("FOOTNOTE_SMOKE_PROJECT", "")


def _credentials_found() -> bool:
    if not PROJECT:
        return False
    try:
        import google.auth

        google.auth.default()
    except Exception:
        return False
    return True


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not _credentials_found(),
        reason="set FOOTNOTE_SMOKE_PROJECT and Application Default Credentials to run",
    ),
]

NOTES = [
    ("We chose Firestore for offline sync because it resolves conflicts for us.", 3),
    ("Customer feedback: the onboarding flow is confusing on mobile.", 10),
    ("Weekly active users grew to 1,200 in October.", 25),
]


def smoke_settings() -> Settings:
    env = os.environ
    values: dict[str, Any] = {
        "GOOGLE_CLOUD_PROJECT": PROJECT,
        "VERTEX_LOCATION": env.get("FOOTNOTE_SMOKE_LOCATION", "us-central1"),
        "NOTE_STORE": "memory",
        "REINDEX_QUEUE": "inline",
        "EMBEDDER": "vertex",
        "GENERATOR": "gemini",
        "CLASSIFIER": "gemini",
        "RERANKER": "vertex" if env.get("FOOTNOTE_SMOKE_RANKING") == "1" else "off",
    }
    if env.get("FOOTNOTE_SMOKE_INDEX"):
        values.update(
            {
                "VECTOR_INDEX": "vertex",
                "VERTEX_INDEX": env["FOOTNOTE_SMOKE_INDEX"],
                "VERTEX_INDEX_ENDPOINT": env.get("FOOTNOTE_SMOKE_INDEX_ENDPOINT", ""),
                "VERTEX_DEPLOYED_INDEX_ID": env.get("FOOTNOTE_SMOKE_DEPLOYED_INDEX_ID", ""),
                "VERTEX_PUBLIC_ENDPOINT_DOMAIN": env.get(
                    "FOOTNOTE_SMOKE_PUBLIC_ENDPOINT_DOMAIN", ""
                ),
            }
        )
    for name in (
        "CHAT_MODEL",
        "EMBEDDING_MODEL",
        "EMBEDDING_DIMENSION",
        "CLASSIFIER_MODEL",
        "VERTEX_API_ENDPOINT",
        "VECTOR_SEARCH_API_ENDPOINT",
        "RANKING_API_ENDPOINT",
    ):
        if env.get(name):
            values[name] = env[name]
    return Settings.model_validate(values)


@pytest.fixture(scope="module")
def world() -> Iterator[tuple[Container, str, list[str]]]:
    c = Container(smoke_settings())
    tenant = f"smoke-{uuid.uuid4().hex[:10]}"
    ids = [f"{tenant}-n{i}" for i in range(len(NOTES))]
    try:
        for nid, (text, days_ago) in zip(ids, NOTES, strict=True):
            c.store.create_note(note(nid, text, tenant, days_ago=days_ago))
            assert c.indexing.index_note(nid).outcome is Outcome.INDEXED
        yield c, tenant, ids
    finally:
        for nid in ids:  # removes the datapoints from a real index too
            c.store.delete_note(tenant, nid)
            c.indexing.index_note(nid)


def test_embeddings_have_the_configured_dimension(world) -> None:
    c, _, _ = world
    docs = c.raw_embedder.embed_documents(["We chose Firestore.", "Bananas are yellow."])
    query = c.raw_embedder.embed_query("which database did we choose")
    assert all(len(v) == c.settings.resolved_embedding_dimension for v in [*docs, query])
    sims = [sum(a * b for a, b in zip(query, d, strict=True)) for d in docs]
    assert sims[0] > sims[1]


def test_vector_search_answers_within_the_tenant(world) -> None:
    c, tenant, ids = world
    if c.settings.vector_index != "vertex":
        pytest.skip("FOOTNOTE_SMOKE_INDEX not set")
    from footnote.ports import VectorQuery

    vector = c.embedder.embed_query("Which database did we choose for offline sync?")
    deadline = time.monotonic() + 120  # stream updates are searchable within seconds
    hits = []
    while time.monotonic() < deadline:
        hits = c.vector_index.search(VectorQuery(tenant, vector, 5))
        if hits:
            break
        time.sleep(3)
    assert hits and {h.chunk_id.rsplit("_", 1)[0] for h in hits} <= set(ids)
    assert c.vector_index.search(VectorQuery(f"{tenant}-nobody", vector, 5)) == []


def test_a_cited_answer_without_fallbacks(world) -> None:
    c, tenant, ids = world
    body = wire.chat(
        c.chat.chat(tenant, "Which database did we choose for offline sync?", None, RagConfig())
    )
    meta = body["meta"]
    assert meta["model"] == c.settings.chat_model
    assert meta["fallbacks"] == [], meta
    assert body["citations"] and body["citations"][0]["noteId"] == ids[0]
    assert "Firestore" in body["answer"]


def test_classification_with_gemini(world, caplog: pytest.LogCaptureFixture) -> None:
    c, _, _ = world
    assert c.classifier.classify("Churn fell to 2% in Q3.").value == "metric"
    assert "Gemini classification failed" not in caplog.text  # not the rules' answer


def test_the_ranking_api_puts_the_relevant_chunk_first(world) -> None:
    c, tenant, ids = world
    if c.reranker.name != "vertex":
        pytest.skip("FOOTNOTE_SMOKE_RANKING not set")
    from footnote.domain import ScoredChunk

    chunks = [ScoredChunk(ch, 0.0, 0.0) for ch in c.store.tenant_chunks(tenant)]
    ranked = c.reranker.rerank("What do users think of onboarding on mobile?", chunks)
    assert ranked[0].chunk.note_id == ids[1]
    assert ranked[0].breakdown["rerank"] > ranked[-1].breakdown.get("rerank", 0.0)
