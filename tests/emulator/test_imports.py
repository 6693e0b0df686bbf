"""Imports on the local stack: the archive posted to the API, or uploaded straight to
the stack's Cloud Storage server through the URL ``POST /uploads`` hands out, the job
published on the real Pub/Sub emulator and pushed to the worker, notes written to the
Firestore emulator with their own dates and indexed by the real trigger, then asked
about. Exports are written to and read back from the same Cloud Storage."""

from __future__ import annotations

import io
import uuid
import zipfile
from typing import Any

import pytest

from tests.inproc import wait_for

pytestmark = [pytest.mark.emulator]


def _vault() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(
            "Vault/pricing.md",
            "---\ntitle: Pricing call\ncreated: 2023-03-09T10:00:00Z\ntags: [work]\n---\n"
            "We decided to charge 8 euros a month.\n",
        )
        z.writestr(
            "Vault/garden.md",
            "---\ntitle: Garden\ncreated: 2023-06-02T08:00:00Z\n---\nPlanted the tomatoes.\n",
        )
        z.writestr("Vault/empty.md", "")
    return buffer.getvalue()


def test_an_uploaded_vault_is_imported_with_its_dates_and_answers_a_dated_question(
    new_user: Any,
) -> None:
    alice = new_user()
    alice.add_note("We decided to move the standup to 10am.", title="Standup")
    archive = _vault()  # once: a zip records when it was written
    r = alice.call(
        "POST", "/imports?name=vault.zip", data=archive,
        headers={"Content-Type": "application/zip", "Idempotency-Key": "import-1"},
    )  # fmt: skip
    assert r.status_code == 202, r.text
    job_id = r.json()["id"]
    report: dict[str, Any] = {}

    def finished() -> bool:
        report.update(alice.call("GET", f"/imports/{job_id}").json())
        return report["status"] in ("done", "failed", "cancelled")

    wait_for(finished, timeout=90, what="the import job")
    assert report["status"] == "done", report
    assert (report["imported"], report["failed"]) == (2, 1), report
    notes = alice.call("GET", "/notes").json()["notes"]
    dated = {n["title"]: n["createdAt"][:10] for n in notes}
    assert dated["Pricing call"] == "2023-03-09" and dated["Garden"] == "2023-06-02"
    alice.wait_indexed(*[n["id"] for n in notes])
    answer = alice.chat("What did I decide in March 2023?")
    assert "8 euros" in answer["answer"], answer
    by_id = {n["id"]: n["title"] for n in notes}
    cited = {by_id.get(c["noteId"]) for c in answer["citations"]}
    assert cited == {"Pricing call"}, answer["citations"]
    # A retry of the same request (a phone that lost the answer) starts nothing new.
    again = alice.call(
        "POST", "/imports?name=vault.zip", data=archive,
        headers={"Content-Type": "application/zip", "Idempotency-Key": "import-1"},
    )  # fmt: skip
    assert again.status_code == 202 and again.json()["id"] == job_id


def test_another_users_job_is_not_found_and_their_upload_forbidden(new_user: Any) -> None:
    alice, bob = new_user(), new_user()
    r = alice.call("POST", "/imports", data=_vault(), headers={"Content-Type": "application/zip"})
    assert r.status_code == 202
    assert bob.call("GET", f"/imports/{r.json()['id']}").status_code == 404
    assert bob.call("POST", "/imports", json={"object": f"users/{alice.uid}/x"}).status_code == 403


def test_the_import_command_follows_the_job_to_its_report(stack: Any, tmp_path: Any) -> None:
    import json
    import subprocess
    import sys
    import uuid

    from footnote.dev.timeouts import scaled

    archive = tmp_path / "cli-vault.zip"
    archive.write_bytes(_vault())
    result = subprocess.run(
        [
            sys.executable, "-m", "footnote.cli", "import", str(archive),
            "--user", f"cli-{uuid.uuid4().hex[:8]}@footnote.test", "--api", stack.api_url,
            "--auth", stack.client_env()["FIREBASE_AUTH_EMULATOR_HOST"],
            "--project", stack.project,
        ],
        capture_output=True, text=True, timeout=scaled(120),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["status"], report["imported"], report["failed"]) == ("done", 2, 1)
    # It went straight to Cloud Storage (POST /uploads), not through the API's body.
    uploaded = [
        blob.download_as_bytes()
        for blob in _bucket(stack).client.list_blobs(stack.bucket, prefix="users/")
        if blob.name.endswith("/cli-vault.zip") and "/uploads/" in blob.name
    ]
    assert uploaded == [archive.read_bytes()]


def _bucket(stack: Any) -> Any:
    """The uploads bucket on the stack's storage server, through the SDK."""
    from google.cloud import storage  # type: ignore[attr-defined]

    return storage.Client(project=stack.project).bucket(stack.bucket)


def _wait(user: Any, path: str, what: str) -> dict[str, Any]:
    report: dict[str, Any] = {}

    def finished() -> bool:
        report.update(user.call("GET", path).json())
        return report["status"] in ("done", "failed", "cancelled")

    wait_for(finished, timeout=90, what=what)
    return report


def test_an_archive_uploaded_straight_to_storage_is_imported(stack: Any, new_user: Any) -> None:
    import requests

    from footnote.dev.timeouts import scaled

    alice, bob = new_user(), new_user()
    archive = _vault()
    r = alice.call("POST", "/uploads", json={"name": "vault.zip", "size": len(archive)})
    assert r.status_code == 201, r.text
    upload = r.json()
    name = upload["object"]
    assert name.startswith(f"users/{alice.uid}/uploads/") and name.endswith("/vault.zip")
    assert upload["uploadUrl"].startswith(stack.storage_url + "/upload/storage/v1/")
    # The bytes go to Cloud Storage, with no token: the session URL is the capability.
    put = requests.put(upload["uploadUrl"], data=archive, timeout=scaled(30))
    assert put.status_code in (200, 201), put.text
    assert _bucket(stack).blob(name).download_as_bytes() == archive
    assert bob.call("POST", "/imports", json={"object": name}).status_code == 403
    started = alice.call("POST", "/imports", json={"object": name})
    assert started.status_code == 202, started.text
    report = _wait(alice, f"/imports/{started.json()['id']}", "the import of the upload")
    assert (report["status"], report["imported"], report["failed"]) == ("done", 2, 1), report
    titles = {n["title"] for n in alice.call("GET", "/notes").json()["notes"]}
    assert titles == {"Pricing call", "Garden"}
    # Bob's upload URL is for his own prefix, whatever name he asks for.
    theirs = bob.call("POST", "/uploads", json={"name": f"../{alice.uid}/x.zip", "size": 3})
    assert theirs.status_code == 201 and theirs.json()["object"].startswith(f"users/{bob.uid}/")


def test_an_export_is_written_to_storage_and_read_back_from_it(stack: Any, new_user: Any) -> None:
    import json

    alice = new_user()
    note = alice.add_note("The boiler was serviced in May.", title="Boiler")
    r = alice.call("POST", "/exports")
    assert r.status_code == 202, r.text
    report = _wait(alice, f"/exports/{r.json()['id']}", "the export")
    assert report["status"] == "done", report
    stored = [
        blob
        for blob in _bucket(stack).client.list_blobs(stack.bucket, prefix=f"users/{alice.uid}/")
    ]
    assert [b.name for b in stored] == [f"users/{alice.uid}/exports/{report['id']}.zip"]
    in_storage = stored[0].download_as_bytes()
    assert report["size"] == len(in_storage)
    downloaded = alice.call("GET", report["download"])
    assert downloaded.status_code == 200
    assert downloaded.content == in_storage  # streamed from Cloud Storage, byte for byte
    with zipfile.ZipFile(io.BytesIO(in_storage)) as z:
        notes = json.loads(z.read("notes.json"))
    exported = notes["notes"] if isinstance(notes, dict) else notes
    assert [(n["id"], n["text"]) for n in exported] == [(note, "The boiler was serviced in May.")]


def test_an_export_left_queued_by_a_dead_worker_is_written_by_the_job_sweep(
    stack: Any, new_user: Any, firestore_client: Any
) -> None:
    """An export whose worker died with its message stayed "queued" for good: the
    job sweep (the message ``make dev`` publishes at a restart) finds it in
    Firestore, publishes it again, and the worker writes it."""
    from datetime import UTC, datetime, timedelta

    from footnote.services.imports import sweep_message

    alice = new_user()
    alice.add_note("The boiler was serviced in May.", title="Boiler")
    hour_ago = datetime.now(UTC) - timedelta(hours=1)
    job_id = f"exp{uuid.uuid4().hex[:20]}"
    # A run began an hour ago and died, with its message.
    died = {"status": "queued", "attempts": 1, "createdAt": hour_ago, "updatedAt": hour_ago}
    firestore_client.collection("exports").document(job_id).set(
        {"tenantId": alice.uid, "object": "", "notes": 0, "conversations": 0, "size": 0, **died}
    )
    stack.publish("footnote-accounts", sweep_message())
    report = _wait(alice, f"/exports/{job_id}", "the swept export")
    assert (report["status"], report["notes"]) == ("done", 1), report
    assert alice.call("GET", report["download"]).status_code == 200


@pytest.mark.slow
def test_an_archive_over_the_body_limit_imports_through_the_upload_url(
    stack: Any, new_user: Any
) -> None:
    """A vault with a 34 MiB photo: refused as a body (30 MiB, under Cloud Run's 32),
    imported when uploaded straight to Cloud Storage."""
    import os

    import requests

    from footnote.dev.timeouts import scaled

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
        z.writestr("Vault/trip.md", "---\ntitle: Trip\n---\nThe ferry leaves at nine.\n")
        z.writestr("Vault/attachments/photo.jpg", os.urandom(34 * 1024 * 1024))
    archive = buffer.getvalue()
    alice = new_user()
    body = alice.call(
        "POST", "/imports?name=vault.zip", data=archive, headers={"Content-Type": "application/zip"}
    )
    assert body.status_code == 413, body.text
    upload = alice.call("POST", "/uploads", json={"name": "vault.zip", "size": len(archive)})
    assert upload.status_code == 201, upload.text
    put = requests.put(upload.json()["uploadUrl"], data=archive, timeout=scaled(120))
    assert put.status_code in (200, 201), put.text
    started = alice.call("POST", "/imports", json={"object": upload.json()["object"]})
    assert started.status_code == 202, started.text
    report = _wait(alice, f"/imports/{started.json()['id']}", "the import of a big upload")
    assert (report["status"], report["imported"], report["failed"]) == ("done", 1, 0), report


def test_an_import_left_running_by_a_dead_worker_is_resumed_by_the_job_sweep(
    stack: Any, new_user: Any, firestore_client: Any
) -> None:
    """A job whose worker died with its message (the functions host killed, the
    Pub/Sub emulator restarted) is "running" with no run alive: the sweep message
    ``make dev`` publishes at a restart finds it in Firestore and resumes it."""
    from datetime import UTC, datetime, timedelta

    from footnote.services.imports import sweep_message

    alice = new_user()
    r = alice.call(
        "POST", "/imports?name=vault.zip", data=_vault(),
        headers={"Content-Type": "application/zip"},
    )  # fmt: skip
    assert r.status_code == 202, r.text
    done_path = f"/imports/{r.json()['id']}"
    wait_for(lambda: alice.call("GET", done_path).json()["status"] == "done", 90, "the import")
    # The same upload, as a job a dead worker left at its start, an hour ago.
    jobs = firestore_client.collection("imports")
    stalled = jobs.document(f"imp{r.json()['id'][3:12]}stalled")
    record = jobs.document(r.json()["id"]).get().to_dict()
    hour_ago = datetime.now(UTC) - timedelta(hours=1)
    record.update(
        status="running", cursor=0, found=0, imported=0, duplicates=0, failed=0,
        problems=[], finishedAt=None, startedAt=hour_ago, updatedAt=hour_ago, attempts=1,
    )  # fmt: skip
    stalled.set(record)
    stack.publish("footnote-accounts", sweep_message())
    path = f"/imports/{stalled.id}"
    wait_for(lambda: alice.call("GET", path).json()["status"] == "done", 90, "the resumed import")
    report = alice.call("GET", path).json()
    assert (report["imported"], report["duplicates"], report["failed"]) == (0, 2, 1), report
