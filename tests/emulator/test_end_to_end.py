"""The whole stack for real: emulators, the Firestore trigger, Pub/Sub push, the API."""

from __future__ import annotations

import base64
import json
import time

import pytest
import requests
from google.events.cloud.firestore import Document, DocumentEventData

pytestmark = pytest.mark.emulator


def _chunks(firestore_client, note_id: str) -> dict[str, str]:
    from google.cloud.firestore_v1.base_query import FieldFilter

    docs = (
        firestore_client.collection("noteChunks")
        .where(filter=FieldFilter("noteId", "==", note_id))
        .stream()
    )
    return {d.id: d.get("text") for d in docs}


def _wait(predicate, timeout: float = 60, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def test_note_is_indexed_by_the_trigger_and_cited_in_chat(new_user, firestore_client) -> None:
    alice = new_user()
    note_id = alice.add_note(
        "We chose Firestore for real-time sync to the mobile app.", title="Storage"
    )
    alice.add_note("Lunch at the Thai place on Tuesday was great.")
    alice.wait_indexed(note_id)
    chunks = _chunks(firestore_client, note_id)
    assert list(chunks) == [f"{note_id}_000"]

    answer = alice.chat("Why did we choose Firestore?")
    assert answer["meta"]["retrieval"]["strategy"] == "hybrid_reranked"
    assert answer["citations"][0]["noteId"] == note_id
    assert "[N1]" in answer["answer"] and "real-time sync" in answer["answer"]
    cids = {c["cid"] for c in answer["citations"]}
    import re

    assert set(re.findall(r"\[(N\d+)\]", answer["answer"])) == cids


def test_edited_note_is_reindexed_and_old_text_never_cited(new_user, firestore_client) -> None:
    alice = new_user()
    note_id = alice.add_note("The launch date is set for March 3 in Lisbon.")
    alice.wait_indexed(note_id)
    assert "Lisbon" in alice.chat("Where is the launch?")["answer"]

    response = alice.call(
        "PATCH", f"/notes/{note_id}", json={"text": "The launch moved to Berlin on April 9."}
    )
    assert response.status_code == 200 and response.json()["indexStatus"] == "pending"
    alice.wait_indexed(note_id)
    assert "Berlin" in next(iter(_chunks(firestore_client, note_id).values()))
    answer = alice.chat("Where is the launch?")
    assert "Berlin" in answer["answer"] and "Lisbon" not in answer["answer"]
    for c in answer["citations"]:
        assert "Lisbon" not in c["snippet"]


def test_deleted_note_is_never_cited_again(new_user, firestore_client) -> None:
    alice = new_user()
    gone = alice.add_note("The secret codename for the project is Bluebird.")
    kept = alice.add_note("Our office plants need water every Monday.")
    alice.wait_indexed(gone, kept)
    assert alice.chat("What is the project codename?")["citations"][0]["noteId"] == gone

    assert alice.call("DELETE", f"/notes/{gone}").status_code == 204
    _wait(lambda: not _chunks(firestore_client, gone), what="chunks removed")
    assert alice.call("GET", f"/notes/{gone}").status_code == 404
    answer = alice.chat("What is the project codename?")
    assert all(c["noteId"] != gone for c in answer["citations"])
    assert "Bluebird" not in answer["answer"]


def test_indexed_note_is_searchable_immediately_by_the_running_api(new_user) -> None:
    alice = new_user()
    first = alice.add_note("Quarterly revenue reached 2.1 million euros.")
    alice.wait_indexed(first)
    alice.call("POST", "/search", json={"query": "revenue"})  # warm this tenant's cache
    second = alice.add_note("The zebra migration documentary airs on Sunday.")
    alice.wait_indexed(second)
    results = alice.call("POST", "/search", json={"query": "zebra documentary"}).json()["results"]
    assert results and results[0]["noteId"] == second


def test_replayed_trigger_event_leaves_the_same_chunks(new_user, firestore_client, stack) -> None:
    alice = new_user()
    note_id = alice.add_note(
        " ".join(f"Fact {i} about the replay test is recorded here." for i in range(30))
    )
    alice.wait_indexed(note_id)
    before = _chunks(firestore_client, note_id)
    version = firestore_client.collection("tenants").document(alice.uid).get().get("version")
    name = f"projects/{stack.project}/databases/(default)/documents/notes/{note_id}"
    body = base64.b64encode(
        DocumentEventData.serialize(DocumentEventData(value=Document(name=name)))
    )
    for attempt in range(3):
        response = requests.post(
            f"{stack.api_url}/indexer/",
            data=body,
            headers={
                "Content-Type": "application/protobuf",
                "ce-specversion": "1.0",
                "ce-type": "google.cloud.firestore.document.v1.written",
                "ce-source": f"//firestore.googleapis.com/projects/{stack.project}/databases/(default)",
                "ce-subject": f"documents/notes/{note_id}",
                "ce-id": f"replay-{attempt}",
            },
            timeout=30,
        )
        assert response.status_code == 200, response.text
    assert len(before) > 1
    assert _chunks(firestore_client, note_id) == before
    after_version = firestore_client.collection("tenants").document(alice.uid).get().get("version")
    assert after_version == version, "an unchanged note must not be written again"


def test_pubsub_reindex_request_reembeds_a_tenant(new_user, firestore_client, stack) -> None:
    from google.cloud import pubsub_v1  # type: ignore[attr-defined]  # no stubs

    alice = new_user()
    ids = [
        alice.add_note(f"Reindex note {i}: the hamster is called Biscuit {i}.") for i in range(7)
    ]
    alice.wait_indexed(*ids)
    tenant_ref = firestore_client.collection("tenants").document(alice.uid)
    version = tenant_ref.get().get("version")

    publisher = pubsub_v1.PublisherClient()
    topic = publisher.topic_path(stack.project, "footnote-reindex")
    job = f"job-{alice.uid[:8]}"
    message = {"scope": "tenant", "tenantId": alice.uid, "jobId": job, "force": True}
    publisher.publish(topic, json.dumps(message).encode()).result(timeout=30)

    job_ref = firestore_client.collection("reindexJobs").document(job)
    _wait(
        lambda: job_ref.get().exists and job_ref.get().get("done"), timeout=90, what="re-index job"
    )
    assert job_ref.get().get("processed") == 7  # three pages of at most 3 (REINDEX_PAGE_SIZE)
    assert tenant_ref.get().get("version") == version + 7  # every note rewritten once


def test_calls_without_a_valid_token_get_401(stack, new_user) -> None:
    alice = new_user()
    note_id = alice.add_note("Token test note.")
    for headers in (
        {},
        {"Authorization": "Bearer garbage"},
        {"Authorization": "Basic abc"},
        {"Authorization": "Bearer a.b.c"},
        {"Authorization": "Bearer "},
    ):
        for method, path, body in (
            ("GET", "/notes", None),
            ("POST", "/chat", {"message": "hi"}),
            ("GET", f"/notes/{note_id}", None),
            ("POST", "/search", {"query": "x"}),
        ):
            response = requests.request(
                method, f"{stack.api_url}{path}", json=body, headers=headers, timeout=10
            )
            assert response.status_code == 401, (headers, path)
            error = response.json()["error"]
            assert error["code"] == "unauthenticated" and "Traceback" not in error["message"]
    assert requests.get(f"{stack.api_url}/healthz", timeout=10).json()["status"] == "ok"


def test_one_tenant_never_sees_another_tenants_notes(new_user) -> None:
    alice, bob = new_user(), new_user()
    secret = alice.add_note("Alice's bank PIN hint: the name of her first cat, Pickles.")
    mine = bob.add_note("Bob's grocery list: apples, bread and coffee.")
    alice.wait_indexed(secret)
    bob.wait_indexed(mine)

    assert bob.call("GET", f"/notes/{secret}").status_code == 404
    assert bob.call("PATCH", f"/notes/{secret}", json={"text": "pwned"}).status_code == 404
    assert bob.call("DELETE", f"/notes/{secret}").status_code == 404
    assert bob.call("GET", f"/notes/{secret}_missing").status_code == 404
    assert all(n["id"] != secret for n in bob.call("GET", "/notes").json()["notes"])
    for question in ("What is the PIN hint?", "Pickles cat bank", secret):
        answer = bob.chat(question)
        assert all(c["noteId"] != secret for c in answer["citations"])
        assert "Pickles" not in answer["answer"]
        hits = bob.call("POST", "/search", json={"query": question}).json()["results"]
        assert all(h["noteId"] != secret for h in hits)
    assert alice.call("GET", f"/notes/{secret}").status_code == 200
