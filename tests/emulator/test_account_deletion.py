"""Account deletion on the local stack: nothing of the tenant is left anywhere.

A full account is built through the API (notes, an edit, a delete, a conversation
with a follow-up, a search, quotas counted, a re-index job over Pub/Sub), then
deleted with ``DELETE /account``; the job runs in the stack's worker from the
accounts topic. The dev host's fault switch crashes the job after one step (each
in turn); Pub/Sub redelivers the message and the job finishes.

The proof lists the Firestore emulator generically — every collection and, under
every document, its subcollections (``client.collections()``, recursively), never a
list of known names — and compares it with the listing taken before the account
existed: the same documents with the same contents and update times (the other
user's byte for byte), plus exactly one new document, the job's record, which names
no one.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import pytest
import requests

from footnote.domain import deletion_job_id
from footnote.services.accounts import crash_points
from tests.inproc import wait_for

pytestmark = [pytest.mark.emulator, pytest.mark.slow]

SECRET = "quokkaflint"


def dump(client: Any) -> dict[str, tuple[str, Any]]:
    """Every document of the database (path → contents as canonical JSON, update
    time), found by listing collections, never by naming them."""
    out: dict[str, tuple[str, Any]] = {}

    def walk(collections: Any) -> None:
        for collection in collections:
            for snap in collection.stream():
                body = json.dumps(snap.to_dict(), sort_keys=True, default=repr)
                out[snap.reference.path] = (body, snap.update_time)
            for ref in collection.list_documents():  # also parents that only hold subcollections
                walk(ref.collections())

    walk(client.collections())
    return out


def _bob(new_user: Any) -> Any:
    bob = new_user()
    note = bob.add_note("Bob's plan: the garden shed ships on Friday.", title="Shed")
    bob.wait_indexed(note)
    bob.chat("When does the shed ship?")
    return bob


def _alice(new_user: Any, stack: Any, firestore_client: Any) -> Any:
    from footnote.adapters.pubsub_queue import PubSubQueue

    alice = new_user()
    ids = [
        alice.add_note(f"We chose {SECRET} for the launch. Budget is 40k.", tags=["work"]),
        alice.add_note(f"Met Dana about {SECRET} pricing on Tuesday."),
        alice.add_note("Groceries: oat milk, lemons."),
    ]
    alice.wait_indexed(*ids)
    assert alice.call("PATCH", f"/notes/{ids[0]}", json={"text": f"We dropped {SECRET}."}).ok
    assert alice.call("DELETE", f"/notes/{ids[2]}").status_code == 204
    alice.wait_indexed(ids[0])
    first = alice.chat(f"What about {SECRET}?")
    alice.chat("And the pricing?", conversationId=first["conversationId"])
    assert alice.call("POST", "/search", json={"query": SECRET}).ok
    job = f"reindex-{uuid.uuid4().hex[:8]}"
    PubSubQueue(stack.project, "footnote-reindex").publish(
        {"scope": "tenant", "tenantId": alice.uid, "jobId": job}
    )
    ref = firestore_client.collection("reindexJobs").document(job)
    wait_for(lambda: (ref.get().to_dict() or {}).get("done") is True, 120, "the re-index job")
    # An import: its job record, its notes (dated in 2023) and the uploaded archive.
    imported = alice.call(
        "POST", "/imports?name=old.md", data=f"# Old plan\nThe {SECRET} plan from 2023.".encode(),
        headers={"Content-Type": "text/markdown"},
    )  # fmt: skip
    assert imported.status_code == 202, imported.text
    path = f"/imports/{imported.json()['id']}"
    wait_for(lambda: alice.call("GET", path).json()["status"] == "done", 90, "the import")
    return alice


def _faults(stack: Any, method: str, body: Any = None) -> dict[str, Any]:
    r = requests.request(method, f"{stack.api_url}/_faults", json=body, timeout=10)
    r.raise_for_status()
    return r.json()  # type: ignore[no-any-return]


def _delete_and_wait(alice: Any, email: str, firestore_client: Any) -> str:
    r = alice.call("DELETE", "/account", json={"confirm": email})
    assert r.status_code == 202, r.text
    job_id = r.json()["jobId"]
    assert job_id == deletion_job_id(alice.uid)
    ref = firestore_client.collection("accountDeletions").document(job_id)
    wait_for(lambda: (ref.get().to_dict() or {}).get("step") == "done", 180, "the deletion job")
    return str(job_id)


def _assert_nothing_left(
    before: dict[str, tuple[str, Any]], after: dict[str, tuple[str, Any]], uid: str, job_id: str
) -> None:
    leftovers = [
        path for path, (body, _) in after.items() if uid in path or uid in body or SECRET in body
    ]
    assert leftovers == []
    assert set(after) - set(before) == {f"accountDeletions/{job_id}"}
    changed = [path for path in before if after.get(path) != before[path]]
    assert changed == []  # every other document, the other user's included, untouched


@pytest.mark.parametrize("point", crash_points())
def test_deletion_crashed_after_any_step_leaves_nothing(
    stack, new_user, firestore_client, point
) -> None:
    from footnote.adapters.firebase_accounts import FirebaseAccountAuth

    bob = _bob(new_user)
    before = dump(firestore_client)
    alice = _alice(new_user, stack, firestore_client)
    email = alice.email
    assert any(alice.uid in body for body, _ in dump(firestore_client).values())
    _faults(stack, "DELETE")
    _faults(stack, "POST", {"account_job": {"at": point, "count": 1}})
    try:
        job_id = _delete_and_wait(alice, email, firestore_client)
        assert _faults(stack, "GET")["tripped"].get("account_job") == 1  # it did crash
    finally:
        _faults(stack, "DELETE")
    time.sleep(1.5)  # late indexer events of the deleted notes: they must write nothing
    _assert_nothing_left(before, dump(firestore_client), alice.uid, job_id)
    auth = FirebaseAccountAuth(stack.project)
    assert auth.user(alice.uid) is None and auth.user(bob.uid) is not None
    assert alice.call("POST", "/notes", json={"text": "still here?"}).status_code == 401
    assert bob.call("GET", "/notes").json()["notes"][0]["title"] == "Shed"


def test_notes_posted_while_the_account_is_deleted_do_not_survive(
    stack, new_user, firestore_client
) -> None:
    _bob(new_user)
    before = dump(firestore_client)
    alice = _alice(new_user, stack, firestore_client)
    stop = threading.Event()
    codes: list[int] = []

    def hammer() -> None:
        while not stop.is_set():
            r = alice.call("POST", "/notes", json={"text": f"{SECRET} posted in the race"})
            codes.append(r.status_code)

    threads = [threading.Thread(target=hammer) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        wait_for(lambda: 201 in codes, 30, "a note posted in the race")
        job_id = _delete_and_wait(alice, alice.email, firestore_client)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert 401 in codes  # refused once the deletion began
    time.sleep(1.5)
    _assert_nothing_left(before, dump(firestore_client), alice.uid, job_id)


def test_the_listing_finds_what_the_deletion_would_miss(stack, new_user, firestore_client) -> None:
    """The check can fail: a document of the tenant in a collection no code knows of
    (and in a subcollection) is found by the generic listing."""
    before = dump(firestore_client)
    alice = new_user()
    stray = firestore_client.collection(f"futureFeature{uuid.uuid4().hex[:6]}").document("x")
    stray.collection("sub").document("y").set({"owner": alice.uid})
    try:
        after = dump(firestore_client)
        with pytest.raises(AssertionError):
            _assert_nothing_left(before, after, alice.uid, "none")
        assert any(path.endswith("/sub/y") for path in after)
    finally:
        stray.collection("sub").document("y").delete()
