"""Account deletion on the local stack: nothing of the tenant is left anywhere.

A full account is built through the API (notes, an edit, a delete, a conversation
with a follow-up, a search, quotas counted, a re-index job over Pub/Sub), then
deleted with ``DELETE /account``; the job runs in the stack's worker from the
accounts topic. The dev host's fault switch crashes the job after one step (each
in turn); Pub/Sub redelivers the message and the job finishes.

The proof lists the Firestore emulator generically — every document of every
collection at every depth, by one kindless all-descendants query from the root,
never a list of known names — and compares it with the listing taken before the account
existed: the same documents with the same contents and update times (the other
user's byte for byte), plus exactly one new document, the job's record, which names
no one.

Cloud Storage is proven the same way on the stack's storage server (the real
google-cloud-storage SDK over the GCS JSON API): every object of every bucket is
listed, soft-deleted ones too (a restorable copy would still be the user's file), and
after the deletion none is under the tenant's ``users/{uid}/`` prefix while every other
object, the other user's upload included, is there byte for byte.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from functools import partial
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
    time), found by one kindless query over every collection at every depth (a
    subcollection's documents too, under a parent that does not exist), never by
    naming a collection."""
    from google.cloud.firestore_v1 import _helpers
    from google.cloud.firestore_v1.types import StructuredQuery

    root = f"{client._database_string}/documents"
    request = {
        "parent": root,
        "structured_query": StructuredQuery(
            from_=[StructuredQuery.CollectionSelector(all_descendants=True)]
        ),
    }
    out: dict[str, tuple[str, Any]] = {}
    for response in client._firestore_api.run_query(request=request, metadata=client._rpc_metadata):
        doc = response.document
        if not doc.name:
            continue  # a response that carries no document (progress, the read time)
        body = json.dumps(_helpers.decode_dict(doc.fields, client), sort_keys=True, default=repr)
        out[doc.name.removeprefix(f"{root}/")] = (body, doc.update_time)
    return out


def dump_storage() -> dict[str, bytes]:
    """Every object in every bucket of the storage server (``bucket/name`` → bytes),
    and every soft-deleted one (``…#deleted``), listed without a prefix."""
    from google.cloud import storage  # type: ignore[attr-defined]

    gcs = storage.Client()  # STORAGE_EMULATOR_HOST: the stack's server
    out: dict[str, bytes] = {}
    for bucket in gcs.list_buckets():
        for blob in gcs.list_blobs(bucket.name):
            out[f"{bucket.name}/{blob.name}"] = blob.download_as_bytes()
        for blob in gcs.list_blobs(bucket.name, soft_deleted=True):
            out[f"{bucket.name}/{blob.name}#deleted"] = b""
    return out


def _import(user: Any, name: str, text: str) -> None:
    r = user.call(
        "POST",
        f"/imports?name={name}",
        data=text.encode(),
        headers={"Content-Type": "text/markdown"},
    )
    assert r.status_code == 202, r.text
    path = f"/imports/{r.json()['id']}"
    wait_for(lambda: user.call("GET", path).json()["status"] == "done", 90, "the import")


@pytest.fixture(scope="module")
def bob(client: Any) -> Any:
    """The other user, whose documents and files every deletion here must leave as
    they were: one for the module (each test lists the database after he exists)."""
    from tests.conftest import User

    bob = User(client, f"bob-{uuid.uuid4().hex[:10]}@footnote.test")
    note = bob.add_note("Bob's plan: the garden shed ships on Friday.", title="Shed")
    bob.wait_indexed(note)
    bob.chat("When does the shed ship?")
    _import(bob, "shed.md", "# Shed\nThe shed's paint is green.")  # an object of his
    bob.wait_indexed(*[n["id"] for n in bob.call("GET", "/notes").json()["notes"]])
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
    # Three jobs at once, each waited for: a re-index over Pub/Sub; an import (its job
    # record, its notes dated in 2023, the uploaded archive); an export (its job
    # record and the zip in Cloud Storage).
    job = f"reindex-{uuid.uuid4().hex[:8]}"
    PubSubQueue(stack.project, "footnote-reindex").publish(
        {"scope": "tenant", "tenantId": alice.uid, "jobId": job}
    )
    imported = alice.call(
        "POST", "/imports?name=old.md", data=f"# Old plan\nThe {SECRET} plan from 2023.".encode(),
        headers={"Content-Type": "text/markdown"},
    )  # fmt: skip
    assert imported.status_code == 202, imported.text
    exported = alice.call("POST", "/exports")
    assert exported.status_code == 202, exported.text
    ref = firestore_client.collection("reindexJobs").document(job)
    wait_for(lambda: (ref.get().to_dict() or {}).get("done") is True, 120, "the re-index job")
    for path in (f"/imports/{imported.json()['id']}", f"/exports/{exported.json()['id']}"):
        wait_for(partial(_done, alice, path), 90, path)
    return alice


def _done(user: Any, path: str) -> bool:
    return bool(user.call("GET", path).json()["status"] == "done")


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


def _assert_no_file_left(before: dict[str, bytes], after: dict[str, bytes], uid: str) -> None:
    leftovers = [name for name in after if f"/users/{uid}/" in name or uid in name]
    assert leftovers == []
    assert after == before  # every other object (the other user's upload) byte for byte


def _alice_has_files(uid: str) -> None:
    """The proof below has something to find: her archive, her export, and the index
    snapshot her import's end writes (just after the job says done)."""

    def kinds() -> list[str]:
        return sorted({name.split("/")[3] for name in dump_storage() if f"/users/{uid}/" in name})

    wait_for(lambda: kinds() == ["exports", "imports", "index"], 30, "her three kinds of file")


@pytest.mark.parametrize("point", crash_points())
def test_deletion_crashed_after_any_step_leaves_nothing(
    stack, new_user, bob, firestore_client, point
) -> None:
    from footnote.adapters.firebase_accounts import FirebaseAccountAuth

    before, files_before = dump(firestore_client), dump_storage()
    assert any(f"/users/{bob.uid}/imports/" in name for name in files_before)
    alice = _alice(new_user, stack, firestore_client)
    email = alice.email
    assert any(alice.uid in body for body, _ in dump(firestore_client).values())
    _alice_has_files(alice.uid)
    _faults(stack, "DELETE")
    _faults(stack, "POST", {"account_job": {"at": point, "count": 1}})
    try:
        job_id = _delete_and_wait(alice, email, firestore_client)
        assert _faults(stack, "GET")["tripped"].get("account_job") == 1  # it did crash
    finally:
        _faults(stack, "DELETE")
    time.sleep(1.5)  # late indexer events of the deleted notes: they must write nothing
    _assert_nothing_left(before, dump(firestore_client), alice.uid, job_id)
    _assert_no_file_left(files_before, dump_storage(), alice.uid)
    auth = FirebaseAccountAuth(stack.project)
    assert auth.user(alice.uid) is None and auth.user(bob.uid) is not None
    assert alice.call("POST", "/notes", json={"text": "still here?"}).status_code == 401
    assert bob.call("GET", "/notes").json()["notes"][0]["title"] == "Shed"


def test_notes_posted_while_the_account_is_deleted_do_not_survive(
    stack, new_user, bob, firestore_client
) -> None:
    before, files_before = dump(firestore_client), dump_storage()
    alice = _alice(new_user, stack, firestore_client)
    _alice_has_files(alice.uid)
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
    _assert_no_file_left(files_before, dump_storage(), alice.uid)


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


def test_the_storage_listing_finds_what_the_deletion_would_miss(stack, new_user) -> None:
    """The check can fail: a file left under the tenant's prefix, or kept restorable
    as a soft-deleted object, or another user's file changed, is found."""
    from google.cloud import storage  # type: ignore[attr-defined]

    before = dump_storage()
    alice, bob = new_user(), new_user()
    gcs = storage.Client()
    kept = gcs.bucket(stack.bucket).blob(f"users/{alice.uid}/uploads/stray/notes.zip")
    kept.upload_from_string(b"left behind")
    with pytest.raises(AssertionError):
        _assert_no_file_left(before, dump_storage(), alice.uid)
    kept.delete()
    _assert_no_file_left(before, dump_storage(), alice.uid)  # deleted: nothing left
    # A bucket with soft delete keeps a deleted object restorable: still the user's.
    soft = gcs.bucket(stack.bucket)
    soft.soft_delete_policy.retention_duration_seconds = 7 * 24 * 3600
    soft.patch()
    try:
        gcs.bucket(stack.bucket).blob(f"users/{alice.uid}/x").upload_from_string(b"x")
        gcs.bucket(stack.bucket).blob(f"users/{alice.uid}/x").delete()
        with pytest.raises(AssertionError):
            _assert_no_file_left(before, dump_storage(), alice.uid)
    finally:
        soft.soft_delete_policy.retention_duration_seconds = 0
        soft.patch()
    # Another user's file changed is found too.
    other = gcs.bucket(stack.bucket).blob(f"users/{bob.uid}/imports/a.md")
    other.upload_from_string(b"v1")
    snapshot = dump_storage()
    other.upload_from_string(b"v2")
    with pytest.raises(AssertionError):
        _assert_no_file_left(snapshot, dump_storage(), alice.uid)


def _vault(count: int) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for i in range(count):
            z.writestr(f"v/{i:03}.md", f"# Plan {i}\nThe {SECRET} plan, part {i}, in detail.\n")
    return buffer.getvalue()


def test_a_retry_an_old_upload_url_and_a_running_import_leave_nothing(
    stack, new_user, firestore_client
) -> None:
    """Three ways an account outlived its deletion: the request's retry with the same
    token answered 401 (the README promises the same job); an upload URL handed out
    before still created users/{uid}/uploads/…; an import running meanwhile left
    quotas/{uid}:… counters (one with no TTL) and a dead-lettered message with the uid."""
    from footnote.dev.stack import ACCOUNTS_DEAD_LETTER_SUBSCRIPTION

    before = dump(firestore_client)
    alice = new_user()
    upload = alice.call("POST", "/uploads", json={"name": "late.zip", "size": 5})
    assert upload.status_code == 201, upload.text
    started = alice.call(
        "POST", "/imports?name=v.zip", data=_vault(150),
        headers={"Content-Type": "application/zip"},
    )  # fmt: skip
    assert started.status_code == 202, started.text
    path = f"/imports/{started.json()['id']}"
    wait_for(lambda: alice.call("GET", path).json()["status"] == "running", 90, "the import")
    first = alice.call("DELETE", "/account", json={"confirm": alice.email})
    assert first.status_code == 202, first.text
    again = alice.call("DELETE", "/account", json={"confirm": alice.email})
    assert again.status_code == 202, again.text
    assert again.json()["jobId"] == first.json()["jobId"]
    job_id = _delete_and_wait(alice, alice.email, firestore_client)
    # The old upload URL creates nothing (the storage server, as Cloud Storage, has
    # cancelled its session).
    put = requests.put(upload.json()["uploadUrl"], data=b"12345", timeout=30)
    assert put.status_code >= 400, put.status_code
    assert [n for n in dump_storage() if f"/users/{alice.uid}/" in n] == []
    time.sleep(3)  # the import's run meets the fence, its message is acknowledged
    after = dump(firestore_client)
    assert [p for p, (body, _) in after.items() if alice.uid in p or alice.uid in body] == []
    assert f"accountDeletions/{job_id}" in set(after) - set(before)
    pulled = requests.post(
        f"http://127.0.0.1:{stack.ports.pubsub}/v1/projects/{stack.project}"
        f"/subscriptions/{ACCOUNTS_DEAD_LETTER_SUBSCRIPTION}:pull",
        json={"maxMessages": 100, "returnImmediately": True},
        timeout=30,
    ).json()
    carried = [
        base64.b64decode(m["message"].get("data", "")).decode()
        for m in pulled.get("receivedMessages", [])
    ]
    assert [m for m in carried if alice.uid in m] == []
