"""The production query path costs O(k) Firestore reads, whatever the notebook size.

Vector Search is the wire fake (the real aiplatform SDK runs against it); Firestore
is the real emulator. Every Firestore document a query reads is counted.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from benchmarks.retrieval import ReadCounter

from footnote.adapters.firestore_store import FirestoreStore
from footnote.api import wire
from footnote.services.chat import RagConfig
from footnote.wiring import Container
from tests.factories import note
from tests.fakes.google_apis import FakeGoogleApis
from tests.fakes.vertex import vertex_settings

pytestmark = pytest.mark.emulator

TOPICS = [
    "We chose Firestore for the notes store because of offline sync.",
    "The launch date moved to March 14 because the payment review is late.",
    "Week one signups reached 1,200 after the newsletter went out.",
    "Churn fell to 3 percent once onboarding emails were fixed.",
    "The ferry timetable changes next spring, so the offsite moves.",
]


@pytest.fixture
def google() -> Iterator[FakeGoogleApis]:
    with FakeGoogleApis() as fake:
        yield fake


def _container(google: FakeGoogleApis, firestore_client) -> Container:
    settings = vertex_settings(
        google, NOTE_STORE="firestore", GENERATOR="quote", CLASSIFIER="rules"
    )
    return Container(settings, store=FirestoreStore(firestore_client))


def test_a_query_reads_at_most_k_plus_2_documents(google, direct_firestore_client) -> None:
    c = _container(google, direct_firestore_client)
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    for i in range(60):  # a notebook much larger than k
        n = c.store.create_note(note(f"{tenant}-{i}", f"{TOPICS[i % 5]} Entry {i}.", tenant))
        c.indexing.index_note(n.id)
    counter = ReadCounter()
    k = 4
    with counter.installed():
        found = wire.search(c.chat.search(tenant, "When is the launch?", k))
        search_reads, _ = counter.reset()
        answer = wire.chat(
            c.chat.chat(tenant, "What did we choose for the notes store?", None, RagConfig())
        )
        chat_reads, _ = counter.reset()
    assert found["meta"]["strategy"] == "hybrid_reranked", found["meta"]
    assert found["results"] and len(found["results"]) <= k
    # k winners + the tenant's two term-statistics documents (then cached)
    assert search_reads <= k + 2, search_reads
    assert answer["citations"] and answer["meta"]["retrieval"]["strategy"] == "hybrid_reranked"
    assert chat_reads <= RagConfig().max_sources + 2, chat_reads


def test_a_deleted_note_is_not_cited_while_its_vectors_remain(
    google: FakeGoogleApis, direct_firestore_client: Any
) -> None:
    c = _container(google, direct_firestore_client)
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    ids = []
    for i, text in enumerate(TOPICS):
        n = c.store.create_note(note(f"{tenant}-{i}", text, tenant))
        c.indexing.index_note(n.id)
        ids.append(n.id)
    launch = ids[1]
    before = wire.chat(c.chat.chat(tenant, "When is the launch?", None, RagConfig()))
    assert launch in {x["noteId"] for x in before["citations"]}
    c.notes.delete(tenant, launch)  # what DELETE /notes/{id} calls
    # The indexer has not run: Vector Search still holds the note's datapoints.
    index = next(iter(google.indexes))
    assert any(dp.startswith(launch) for dp in google.datapoints(index))
    after = wire.chat(c.chat.chat(tenant, "When is the launch?", None, RagConfig()))
    assert launch not in {x["noteId"] for x in after["citations"]}, after
    found = c.chat.search(tenant, "launch date March 14 payment review", 8)
    assert launch not in {h.note_id for h in found.hits}
