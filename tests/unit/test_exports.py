"""Exports in process: the archive holds every note (JSON and Markdown with front
matter), every conversation with its citations, and a README; it downloads through
the API; it imports into a fresh account exactly; it is a few a day, and gone with
the account."""

from __future__ import annotations

import contextlib
import io
import json
import zipfile
from typing import Any

import frontmatter
import pytest

from footnote.domain import MemoryType
from tests.inproc import Harness

ALICE, BOB = "alice-exp", "bob-exp"


def deliver(h: Harness) -> None:
    """The worker: every published export or import message."""
    queue: Any = h.container.account_queue
    while queue.published:
        m = queue.published.pop(0)
        if m["job"] == "exportNotes":
            h.container.exports.run(m["tenantId"], m["jobId"])
        elif m["job"] == "importNotes":
            h.container.imports.run(m["tenantId"], m["jobId"])


def notebook(h: Harness) -> list[str]:
    ids = [
        h.add_note(ALICE, "We chose Firestore for real-time sync.", title="Storage", tags=["work"]),
        h.add_note(ALICE, "Call the bank about the mortgage on Monday.", type="task"),
        h.add_note(ALICE, 'Ünïcödé and "quotes": --- not front matter ---\nSecond line.'),
    ]
    h.index_all()
    answer = h.call("POST", "/chat", ALICE, json={"message": "Why did we choose Firestore?"})
    assert answer.status_code == 200
    return ids


def export(h: Harness, tenant: str = ALICE) -> zipfile.ZipFile:
    r = h.call("POST", "/exports", tenant)
    assert r.status_code == 202, r.get_data(as_text=True)
    job = r.get_json()
    assert job["status"] == "queued" and job["download"] is None
    deliver(h)
    done = h.call("GET", f"/exports/{job['id']}", tenant).get_json()
    assert done["status"] == "done" and done["download"] == f"/exports/{job['id']}/archive"
    archive = h.call("GET", done["download"], tenant)
    assert archive.status_code == 200 and archive.mimetype == "application/zip"
    assert len(archive.data) == done["size"]
    return zipfile.ZipFile(io.BytesIO(archive.data))


def test_the_archive_holds_every_note_every_conversation_and_says_what_is_what() -> None:
    h = Harness()
    ids = notebook(h)
    z = export(h)
    names = set(z.namelist())
    assert {"notes.json", "conversations.json", "README.md"} <= names
    assert {f"notes/{i}.md" for i in ids} <= names
    notes = {n["id"]: n for n in json.loads(z.read("notes.json"))}
    stored = h.store.notes
    for note_id in ids:
        n, s = notes[note_id], stored[note_id]
        assert (n["text"], n["title"], tuple(n["tags"])) == (s.text, s.title, s.tags)
        assert n["created"].startswith(s.created_at.strftime("%Y-%m-%dT%H:%M:%S"))
        # The Markdown copy reads back with the same fields.
        md = frontmatter.loads(z.read(f"notes/{note_id}.md").decode())
        assert md.content == s.text and md["id"] == note_id and md["title"] == s.title
    assert notes[ids[1]]["type"] == MemoryType.TASK.value
    (conversation,) = json.loads(z.read("conversations.json"))
    question, answer = conversation["messages"]
    assert question["role"] == "user" and "Firestore" in question["text"]
    assert answer["citations"] and answer["citations"][0]["noteId"] == ids[0]
    assert "notes.json" in z.read("README.md").decode()


def test_an_export_imports_into_a_fresh_account_exactly() -> None:
    h = Harness()
    notebook(h)
    data = io.BytesIO()
    with export(h) as z, zipfile.ZipFile(data, "w") as copy:
        for info in z.infolist():
            copy.writestr(info, z.read(info))
    r = h.call(
        "POST", "/imports?name=footnote.zip", BOB, data=data.getvalue(),
        headers={"Content-Type": "application/zip"},
    )  # fmt: skip
    assert r.status_code == 202
    deliver(h)
    report = h.call("GET", f"/imports/{r.get_json()['id']}", BOB).get_json()
    assert (report["imported"], report["failed"]) == (3, 0), report

    def shape(tenant: str) -> list[tuple[Any, ...]]:
        return sorted(
            (n.title, n.text, n.tags, n.type or "", n.created_at, n.updated_at)
            for n in h.store.notes.values()
            if n.tenant_id == tenant
        )

    assert shape(BOB) == shape(ALICE)


def test_the_download_is_the_owners_only_and_only_when_ready() -> None:
    h = Harness()
    notebook(h)
    job = h.call("POST", "/exports", ALICE).get_json()
    assert h.call("GET", f"/exports/{job['id']}/archive", ALICE).status_code == 404  # not yet
    deliver(h)
    assert h.call("GET", f"/exports/{job['id']}", BOB).status_code == 404
    assert h.call("GET", f"/exports/{job['id']}/archive", BOB).status_code == 404
    assert h.call("GET", f"/exports/{job['id']}/archive", ALICE).status_code == 200


def test_exports_are_a_few_a_day() -> None:
    h = Harness(quotas=True, QUOTA_EXPORTS_PER_DAY=2)
    assert h.call("POST", "/exports", ALICE).status_code == 202
    assert h.call("POST", "/exports", ALICE).status_code == 202
    third = h.call("POST", "/exports", ALICE)
    assert third.status_code == 429 and "2 per day" in third.get_data(as_text=True)
    assert h.call("POST", "/exports", BOB).status_code == 202  # per user


def test_account_deletion_removes_exports_and_their_archives() -> None:
    h = Harness()
    notebook(h)
    export(h)
    blobs = h.container.blobs
    assert list(blobs.names(f"users/{ALICE}/exports/"))
    r = h.call("DELETE", "/account", ALICE, json={"confirm": f"{ALICE}@footnote.test"})
    assert r.status_code == 202
    queue: Any = h.container.account_queue
    m = queue.published.pop()
    h.container.accounts.run(m["tenantId"], m["jobId"])
    assert list(blobs.names(f"users/{ALICE}/")) == []
    jobs: Any = h.container.export_jobs
    assert not [j for j in jobs.jobs.values() if j.tenant_id == ALICE]


def test_an_account_with_no_notes_exports_an_empty_archive_that_says_so() -> None:
    h = Harness()
    archive = export(h)
    assert json.loads(archive.read("notes.json")) == []
    assert json.loads(archive.read("conversations.json")) == []
    assert "README.md" in archive.namelist()
    assert not [n for n in archive.namelist() if n.startswith("notes/")]


def test_an_expired_archive_is_gone_and_says_to_export_again() -> None:
    h = Harness()
    notebook(h)
    r = h.call("POST", "/exports", ALICE)
    deliver(h)
    job = h.call("GET", f"/exports/{r.get_json()['id']}", ALICE).get_json()
    # The bucket's lifecycle rule deletes objects some days after they were written.
    assert h.container.blobs.delete_prefix(f"users/{ALICE}/exports/") == 1
    gone = h.call("GET", job["download"], ALICE)
    assert gone.status_code == 404 and "export again" in gone.get_json()["error"]["message"]


def test_an_export_cannot_be_started_while_the_account_is_deleted() -> None:
    h = Harness()
    notebook(h)
    r = h.call("DELETE", "/account", ALICE, json={"confirm": f"{ALICE}@footnote.test"})
    assert r.status_code == 202
    refused = h.call("POST", "/exports", ALICE)
    assert refused.status_code == 401
    queue: Any = h.container.account_queue
    assert not [m for m in queue.published if m["job"] == "exportNotes"]


def test_an_export_whose_worker_died_is_resumed_by_the_job_sweep_or_ends_failed(
    monkeypatch: Any,
) -> None:
    """The worker dies mid-export and its message dies with it (the local Pub/Sub
    emulator keeps nothing across a restart): the job stayed "queued" for good. The
    job sweep (the same message that resumes imports) publishes it again once no run
    has begun it for a lease; an export whose runs keep dying ends failed."""
    from datetime import UTC, datetime, timedelta

    import footnote.entrypoints
    from footnote.domain import IMPORT_LEASE
    from footnote.services.exports import ExportService
    from footnote.services.imports import sweep_message

    h = Harness()
    c = h.container
    now = [datetime.now(UTC)]
    c._built["exports"] = ExportService(
        c.store, c.blobs, c.export_jobs, c.account_queue, clock=lambda: now[0]
    )
    monkeypatch.setattr(footnote.entrypoints, "container", lambda: c)
    queue: Any = c.account_queue
    notebook(h)
    listing = c.store.list_notes

    def killed(*a: Any, **kw: Any) -> Any:
        raise SystemExit("the instance was killed")  # not an error the run handles

    def sweep() -> list[str]:
        queue.published.clear()
        footnote.entrypoints.handle_account_job(sweep_message())
        return [m["jobId"] for m in queue.published if m["job"] == "exportNotes"]

    job = h.call("POST", "/exports", ALICE).get_json()
    monkeypatch.setattr(c.store, "list_notes", killed)
    with pytest.raises(SystemExit):
        c.exports.run(ALICE, job["id"])
    queue.published.clear()  # the message is lost with the worker
    path = f"/exports/{job['id']}"
    assert h.call("GET", path, ALICE).get_json()["status"] == "queued"
    now[0] += timedelta(minutes=5)
    assert sweep() == []  # a run may still be alive: wait a lease
    now[0] += IMPORT_LEASE
    assert sweep() == [job["id"]]
    assert sweep() == []  # stamped: not published twice
    monkeypatch.setattr(c.store, "list_notes", listing)
    now[0] += timedelta(minutes=1)
    c.exports.run(ALICE, job["id"])
    done = h.call("GET", path, ALICE).get_json()
    assert done["status"] == "done" and done["notes"] == 3

    # An export whose every run dies ends failed at the run after the last.
    monkeypatch.setattr(c.store, "list_notes", killed)
    second = h.call("POST", "/exports", ALICE).get_json()
    for _ in range(5):
        now[0] += IMPORT_LEASE + timedelta(seconds=1)
        if second["id"] not in sweep():
            break
        with contextlib.suppress(SystemExit):
            c.exports.run(ALICE, second["id"])
    stuck = h.call("GET", f"/exports/{second['id']}", ALICE).get_json()
    assert stuck["status"] == "failed", stuck
    assert sweep() == []  # a failed export is not published again
