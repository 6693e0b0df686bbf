"""Imports end to end in process: POST /imports, the job the worker runs, the notes
it writes with their own dates, the report, re-imports, quotas, cancelling, other
users' files, and a dated question answered from imported notes."""

from __future__ import annotations

import contextlib
import io
import json
import zipfile
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from footnote.adapters import firestore_events
from footnote.domain import IndexStatus, Note
from footnote.errors import BackendUnavailable, QuotaExhausted
from footnote.evaluation.everyday import Clock
from footnote.ingest.classify import RuleClassifier
from footnote.ingest.pipeline import prepare
from footnote.ports import CreatedNotes, NewNote
from footnote.services.chat import RagConfig
from footnote.services.imports import ImportService
from footnote.services.indexing import IndexingService, Outcome
from footnote.wiring import Container
from tests.inproc import Harness, settings

ALICE, BOB = "alice-imp", "bob-imp"


def vault(notes: dict[str, str] | dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in notes.items():
            z.writestr(name, body)
    return buffer.getvalue()


def front(title: str, created: str, body: str, tags: str = "[]") -> str:
    return f"---\ntitle: {title}\ncreated: {created}\ntags: {tags}\n---\n{body}\n"


VAULT = vault(
    {
        "v/march-pricing.md": front(
            "Pricing call",
            "2023-03-09T10:00:00Z",
            "We decided to charge 8 euros a month.",
            "[work]",
        ),
        "v/march-hiring.md": front(
            "Hiring", "2023-03-21T16:00:00Z", "Decided to hire a designer before the summer."
        ),
        # Tidied as POST /notes tidies text: runs of spaces, control characters.
        "v/june.md": front(
            "Garden", "2023-06-02T08:00:00Z", "Planted  the\x07 tomatoes by the fence."
        ),
        "v/empty.md": "   ",
        "v/../escape.md": "nope",
    }
)


def upload(h: Harness, tenant: str, data: bytes, name: str = "vault.zip", **kw: Any) -> Any:
    return h.call(
        "POST", f"/imports?name={name}", tenant, data=data,
        headers={"Content-Type": "application/zip", **kw.pop("headers", {})}, **kw,
    )  # fmt: skip


def run_jobs(h: Harness) -> None:
    """The worker: deliver every published import message."""
    queue: Any = h.container.account_queue
    while queue.published:
        m = queue.published.pop(0)
        assert m["job"] == "importNotes"
        h.container.imports.run(m["tenantId"], m["jobId"])


def imported(h: Harness, tenant: str) -> dict[str, Note]:
    return {n.title: n for n in h.store.notes.values() if n.tenant_id == tenant}


def test_an_upload_imports_every_note_with_its_own_dates_and_reports_the_rest() -> None:
    h = Harness()
    r = upload(h, ALICE, VAULT)
    assert r.status_code == 202, r.get_data(as_text=True)
    job = r.get_json()
    assert job["status"] == "queued" and job["imported"] == 0
    run_jobs(h)
    done = h.call("GET", f"/imports/{job['id']}", ALICE).get_json()
    assert done["status"] == "done" and done["finishedAt"]
    assert (done["found"], done["imported"], done["duplicates"], done["failed"]) == (3, 3, 0, 2)
    reasons = {p["file"]: p["reason"] for p in done["problems"]}
    assert "empty note" in reasons["v/empty.md"] and "unsafe" in reasons["v/../escape.md"]
    notes = imported(h, ALICE)
    assert notes["Pricing call"].created_at == datetime(2023, 3, 9, 10, tzinfo=UTC)
    assert notes["Pricing call"].tags == ("work",)
    assert notes["Garden"].text == "Planted the tomatoes by the fence."
    # The notes list shows them in their own order, oldest last.
    listed = h.call("GET", "/notes", ALICE).get_json()["notes"]
    assert [n["title"] for n in listed] == ["Garden", "Hiring", "Pricing call"]
    assert listed[0]["createdAt"].startswith("2023-06-02")


def test_importing_the_same_export_again_adds_nothing() -> None:
    h = Harness()
    upload(h, ALICE, VAULT)
    run_jobs(h)
    before = dict(h.store.notes)
    again = upload(h, ALICE, VAULT).get_json()
    run_jobs(h)
    report = h.call("GET", f"/imports/{again['id']}", ALICE).get_json()
    assert (report["imported"], report["duplicates"]) == (0, 3)
    assert h.store.notes == before


def test_a_redelivered_message_counts_nothing_twice() -> None:
    h = Harness()
    job = upload(h, ALICE, VAULT).get_json()
    queue: Any = h.container.account_queue
    message = dict(queue.published[0])
    run_jobs(h)
    h.container.imports.run(message["tenantId"], message["jobId"])  # at-least-once
    report = h.call("GET", f"/imports/{job['id']}", ALICE).get_json()
    assert report["imported"] == 3 and len(imported(h, ALICE)) == 3


def test_a_crash_mid_import_resumes_where_it_stopped_and_loses_nothing() -> None:
    h = Harness()
    c = h.container
    notes_per_page = 2
    service = ImportService(
        c.settings, c.store, c.blobs, c.import_jobs, c.account_queue, page_size=notes_per_page
    )
    many = vault(
        {
            f"n{i}.md": front(f"Note {i}", f"2023-01-0{1 + i % 9}T00:00:00Z", f"Body {i}")
            for i in range(7)
        }
    )
    job = upload(h, ALICE, many).get_json()
    original = c.store.create_notes
    writes = {"n": 0}

    def crash_on_the_third(entries: Sequence[NewNote]) -> CreatedNotes:
        writes["n"] += 1  # one atomic write per page of two notes
        if writes["n"] == 3:
            raise ConnectionError("the instance died")
        return original(entries)

    c.store.create_notes = crash_on_the_third  # type: ignore[method-assign]
    with pytest.raises(ConnectionError):
        service.run(ALICE, job["id"])
    stored = c.import_jobs.get(job["id"])
    assert stored is not None and stored.cursor == 4 and stored.status == "running"
    assert len(imported(h, ALICE)) == 4  # the third page: none of its notes
    c.store.create_notes = original  # type: ignore[method-assign]
    final = service.run(ALICE, job["id"])  # the redelivery
    assert final.status == "done" and final.imported == 7 and final.duplicates == 0
    assert len(imported(h, ALICE)) == 7


def test_the_quota_stops_an_import_cleanly_with_the_reason() -> None:
    h = Harness(quotas=True, QUOTA_NOTES_PER_DAY=2)
    job = upload(h, ALICE, VAULT).get_json()
    run_jobs(h)
    report = h.call("GET", f"/imports/{job['id']}", ALICE).get_json()
    assert report["status"] == "done" and report["imported"] == 2
    assert "quota" in report["reason"] and "2 per day" in report["reason"]
    assert len(imported(h, ALICE)) == 2  # nothing half-written


def test_cancelling_stops_the_job() -> None:
    h = Harness()
    job = upload(h, ALICE, VAULT).get_json()
    cancelled = h.call("DELETE", f"/imports/{job['id']}", ALICE)
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    run_jobs(h)
    assert imported(h, ALICE) == {}
    assert h.call("GET", f"/imports/{job['id']}", ALICE).get_json()["status"] == "cancelled"


def test_another_users_upload_is_forbidden_and_their_job_not_found() -> None:
    h = Harness()
    job = upload(h, ALICE, VAULT).get_json()
    object_name = h.container.import_jobs.get(job["id"]).object_name  # type: ignore[union-attr]
    assert object_name.startswith(f"users/{ALICE}/")
    theft = h.call("POST", "/imports", BOB, json={"object": object_name})
    assert theft.status_code == 403 and theft.get_json()["error"]["code"] == "permission_denied"
    # Refused on the name: a name that exists nowhere gets the same answer.
    nowhere = h.call("POST", "/imports", BOB, json={"object": f"users/{ALICE}/uploads/none.zip"})
    assert nowhere.status_code == 403
    climb = h.call("POST", "/imports", BOB, json={"object": f"users/{BOB}/../{ALICE}/x.zip"})
    assert climb.status_code == 403
    missing = h.call("POST", "/imports", BOB, json={"object": f"users/{BOB}/uploads/none.zip"})
    assert missing.status_code == 404
    assert h.call("GET", f"/imports/{job['id']}", BOB).status_code == 404
    assert h.call("DELETE", f"/imports/{job['id']}", BOB).status_code == 404
    # Alice's own uploaded object, named in JSON, starts a job.
    mine = h.call("POST", "/imports", ALICE, json={"object": object_name})
    assert mine.status_code == 202


def test_bad_uploads_get_clear_errors_and_write_nothing() -> None:
    h = Harness(IMPORT_UPLOAD_MAX_BYTES=4096)
    assert upload(h, ALICE, b"").status_code == 400
    big = upload(h, ALICE, b"x" * 5000)
    assert big.status_code == 413 and "larger than 4096 bytes" in big.get_data(as_text=True)
    corrupt = upload(h, ALICE, VAULT[: len(VAULT) // 2]).get_json()
    run_jobs(h)
    report = h.call("GET", f"/imports/{corrupt['id']}", ALICE).get_json()
    assert report["status"] == "failed" and "damaged" in report["reason"]
    assert imported(h, ALICE) == {}
    bad_json = h.call("POST", "/imports", ALICE, json={"object": 5})
    assert bad_json.status_code == 400


def test_account_deletion_removes_imports_and_uploads() -> None:
    h = Harness()
    upload(h, ALICE, VAULT)
    run_jobs(h)
    assert list(h.container.blobs.names(f"users/{ALICE}/"))
    r = h.call("DELETE", "/account", ALICE, json={"confirm": f"{ALICE}@footnote.test"})
    assert r.status_code == 202
    queue: Any = h.container.account_queue
    m = queue.published.pop()
    h.container.accounts.run(m["tenantId"], m["jobId"])
    assert list(h.container.blobs.names(f"users/{ALICE}/")) == []
    assert not [j for j in h.container.import_jobs.jobs.values() if j.tenant_id == ALICE]  # type: ignore[attr-defined]


def test_a_dated_question_is_answered_from_the_imported_notes_of_that_month() -> None:
    clock = Clock()
    clock.now = datetime(2026, 11, 24, 9, tzinfo=UTC)
    c = Container(settings(), clock=clock)
    today = Note("today", ALICE, "We decided to move the standup to 10am.", clock.now, clock.now)
    c.store.create_note(today)
    notes: Any = c.store
    name = c.imports.upload(ALICE, "j1/vault.zip", VAULT)
    c.imports.start(ALICE, "j1", name)
    assert c.imports.run(ALICE, "j1").imported == 3
    for note_id in list(notes.notes):
        c.indexing.index_note(note_id)
    out = c.chat.chat(ALICE, "What did I decide in March 2023?", None, RagConfig())
    cited = {notes.notes[cite.note_id].title for cite in out.citations}
    assert cited and cited <= {"Pricing call", "Hiring"}, (out.answer, cited)
    assert "8 euros" in out.answer or "designer" in out.answer, out.answer


def test_two_imports_of_the_same_file_at_once_write_each_note_once() -> None:
    """Both jobs run a note a page, taking turns (each page publishes its job's next):
    whichever job reaches a note first imports it, the other counts it a duplicate,
    and the stored-character quota is charged once per note."""
    h = Harness(quotas=True, QUOTA_STORED_CHARS=1_000_000)
    c = h.container
    taking_turns = ImportService(
        c.settings, c.store, c.blobs, c.import_jobs, c.account_queue, c.quotas,
        page_size=1, budget_s=-1.0,
    )  # fmt: skip
    first = upload(h, ALICE, VAULT).get_json()
    second = upload(h, ALICE, VAULT).get_json()
    queue: Any = c.account_queue
    delivered = []
    while queue.published:
        m = queue.published.pop(0)
        delivered.append(m["jobId"])
        taking_turns.run(m["tenantId"], m["jobId"])
    assert delivered[:4] == [first["id"], second["id"]] * 2  # they did interleave
    reports = [h.call("GET", f"/imports/{j['id']}", ALICE).get_json() for j in (first, second)]
    assert [r["status"] for r in reports] == ["done", "done"]
    assert sum(r["imported"] for r in reports) == 3
    assert sum(r["duplicates"] for r in reports) == 3
    notes = imported(h, ALICE)
    assert len(notes) == 3
    assert c.quotas.stored_chars(ALICE) == sum(len(n.text) for n in notes.values())


def test_a_note_written_between_the_check_and_the_write_is_a_duplicate_charged_nothing() -> None:
    """The race the turn-taking test cannot show: the other job's write lands after
    this one looked and before it wrote. The create conflicts, the note counts as a
    duplicate, and the quota reserved for it is given back."""
    h = Harness(quotas=True, QUOTA_STORED_CHARS=1_000_000)
    c = h.container
    upload(h, ALICE, VAULT)
    run_jobs(h)
    chars = c.quotas.stored_chars(ALICE)
    c.store.existing_note_ids = lambda tenant_id, note_ids: set()  # type: ignore[method-assign]
    again = upload(h, ALICE, VAULT).get_json()
    run_jobs(h)
    report = c.import_jobs.get(again["id"])
    assert report is not None and (report.imported, report.duplicates) == (0, 3)
    assert c.quotas.stored_chars(ALICE) == chars


def test_twenty_thousand_tiny_files_import_to_the_daily_quota_and_say_where_they_stopped() -> None:
    """Issue 23's 20,000 tiny files: read (under the 50,000-file cap), imported up to
    the notes-per-day quota, the job done with the reason, nothing half-written."""
    h = Harness(quotas=True, QUOTA_NOTES_PER_DAY=1000)
    tiny = vault({f"v/n{i:05}.md": f"tiny note {i}" for i in range(20_000)})
    job = upload(h, ALICE, tiny).get_json()
    run_jobs(h)
    report = h.call("GET", f"/imports/{job['id']}", ALICE).get_json()
    assert report["status"] == "done" and "quota" in report["reason"]
    assert (report["imported"], report["failed"]) == (1000, 0)
    assert len(imported(h, ALICE)) == 1000
    assert {n.text for n in imported(h, ALICE).values()} == {f"tiny note {i}" for i in range(1000)}


def test_the_report_stays_one_firestore_document_whatever_the_names_in_the_zip() -> None:
    """A zip entry's name may run to 65,535 bytes; 250 bad entries with long names
    must not make a report Firestore refuses (1 MiB a document), which would fail
    every save and leave the job running until its message is dead-lettered."""
    deep = "/".join(["a-folder-with-a-long-name"] * 240)  # 6,239 characters
    bad = vault({f"{deep}/{i}/../../escape-{i}.md": "x" for i in range(250)})
    assert 200 * len(deep) > 1024 * 1024  # the 200 problems kept, named in full: too big
    h = Harness()
    job = upload(h, ALICE, bad).get_json()
    run_jobs(h)
    report = h.call("GET", f"/imports/{job['id']}", ALICE).get_json()
    assert report["status"] == "done" and report["failed"] == 250
    assert len(report["problems"]) == 200
    assert all(len(p["file"]) <= 300 and len(p["reason"]) <= 300 for p in report["problems"])
    assert report["problems"][0]["file"].endswith("/0/../../escape-0.md")
    assert len(json.dumps(report).encode()) < 200_000


def test_an_archive_with_no_notes_says_so_and_a_zip_in_the_zip_is_reported() -> None:
    h = Harness()
    photos = upload(h, ALICE, vault({"Photos/beach.jpg": "\x89PNG", "doc.pdf": "%PDF"})).get_json()
    parts = upload(
        h, ALICE, vault({"Export-1/Export-1-Part-1.zip": vault({"a.md": "a"})})
    ).get_json()
    run_jobs(h)
    nothing = h.call("GET", f"/imports/{photos['id']}", ALICE).get_json()
    assert nothing["status"] == "done" and nothing["imported"] == 0
    assert nothing["reason"].startswith("no notes found")
    nested = h.call("GET", f"/imports/{parts['id']}", ALICE).get_json()
    assert nested["failed"] == 1 and nested["reason"] is None
    assert nested["problems"] == [
        {
            "file": "Export-1/Export-1-Part-1.zip",
            "reason": "a zip inside the zip is not read: import it on its own",
        }
    ]


def test_a_fault_that_recurs_at_one_place_fails_the_job_before_its_message_is_dead_lettered() -> (
    None
):
    """Each delivery raises at the same note (the fault is in the data or the code,
    not the weather): after three such runs the next delivery ends the job 'failed'
    with the reason, rather than leaving it 'running' until Pub/Sub dead-letters the
    message. A run past its time budget publishes a new message, counted afresh."""
    h = Harness()
    c = h.container
    service = ImportService(
        c.settings, c.store, c.blobs, c.import_jobs, c.account_queue, page_size=2
    )
    many = vault(
        {f"n{i}.md": front(f"Note {i}", "2023-01-02T00:00:00Z", f"Body {i}") for i in range(7)}
    )
    job = upload(h, ALICE, many).get_json()
    original = c.store.create_notes
    failing = {"title": "Note 3"}

    def fails_on_one_note(entries: Sequence[NewNote]) -> CreatedNotes:
        if any(e.note.title == failing["title"] for e in entries):
            raise ConnectionError("the same fault, every time")
        return original(entries)

    c.store.create_notes = fails_on_one_note  # type: ignore[method-assign]
    for _ in range(3):  # the first run imports notes 0-1 and saves the cursor at 2
        with pytest.raises(ConnectionError):
            service.run(ALICE, job["id"])
    stuck = c.import_jobs.get(job["id"])
    assert stuck is not None and stuck.status == "running" and stuck.cursor == 2
    failed = service.run(ALICE, job["id"])  # the fourth delivery: no fourth try
    assert failed.status == "failed" and failed.finished_at is not None
    assert failed.reason is not None and "3 tries in a row" in failed.reason
    # Notes 2 and 3 are one page, one atomic write: neither is half there.
    assert sorted(imported(h, ALICE)) == ["Note 0", "Note 1"]
    assert service.run(ALICE, job["id"]).status == "failed"  # a late redelivery: nothing


def test_a_long_import_continued_by_new_messages_is_not_counted_as_failing() -> None:
    h = Harness()
    c = h.container
    ticks = iter(range(1000))
    service = ImportService(
        c.settings, c.store, c.blobs, c.import_jobs, c.account_queue,
        page_size=1, budget_s=0.5, monotonic=lambda: float(next(ticks)),
    )  # fmt: skip
    many = vault({f"n{i}.md": f"Body {i}" for i in range(6)})
    job = upload(h, ALICE, many).get_json()
    queue: Any = c.account_queue
    runs = 0
    while queue.published:
        m = queue.published.pop(0)
        runs += 1
        service.run(m["tenantId"], m["jobId"])
    done = c.import_jobs.get(job["id"])
    assert runs > 3  # more runs than one message may have, each a new message
    assert done is not None and done.status == "done" and done.imported == 6


class _SessionBlobs:
    """The memory store, plus the upload sessions a Cloud Storage store would create."""

    def __init__(self) -> None:
        from footnote.adapters.memory_blobs import MemoryBlobStore

        self.inner = MemoryBlobStore()
        self.sessions: list[tuple[str, str, int, str | None]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def upload_session(
        self, name: str, content_type: str, size: int, origin: str | None
    ) -> str | None:
        self.sessions.append((name, content_type, size, origin))
        return f"https://storage.example/upload?session={len(self.sessions)}"


def _with_blobs(h: Harness, blobs: Any) -> None:
    c = h.container
    c._built["blobs"] = blobs
    c._built["imports"] = ImportService(c.settings, c.store, blobs, c.import_jobs, c.account_queue)


def test_an_upload_url_is_for_one_object_under_the_callers_own_prefix() -> None:
    h = Harness()
    blobs = _SessionBlobs()
    _with_blobs(h, blobs)
    r = h.call(
        "POST", "/uploads", ALICE,
        json={"name": "../../Evernote export.enex", "size": 1234, "contentType": "text/xml"},
        headers={"Origin": "https://footnote.example"},
    )  # fmt: skip
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    assert body["uploadUrl"] == "https://storage.example/upload?session=1"
    assert body["method"] == "PUT"
    name = body["object"]
    assert name.startswith(f"users/{ALICE}/uploads/") and name.endswith("/Evernote export.enex")
    assert ".." not in name.split("/")
    assert blobs.sessions == [(name, "text/xml", 1234, "https://footnote.example")]
    # Another upload gets another object; the name is the server's, never the client's.
    again = h.call("POST", "/uploads", ALICE, json={"name": "a.zip", "size": 1}).get_json()
    assert again["object"] != name and again["object"].startswith(f"users/{ALICE}/uploads/")
    # Once uploaded, Alice imports it; Bob may not.
    with blobs.open_write(name, "text/xml") as out:
        out.write(b"<en-export></en-export>")
    assert h.call("POST", "/imports", BOB, json={"object": name}).status_code == 403
    assert h.call("POST", "/imports", ALICE, json={"object": name}).status_code == 202


def test_upload_urls_refuse_bad_sizes_and_say_when_there_are_none() -> None:
    h = Harness()
    _with_blobs(h, _SessionBlobs())
    for size in (0, -1, 2 * 1024**3 + 1):
        r = h.call("POST", "/uploads", ALICE, json={"name": "a.zip", "size": size})
        assert r.status_code == 400, (size, r.get_data(as_text=True))
    assert h.call("POST", "/uploads", ALICE, json={"size": 5}).status_code == 400
    weird = h.call("POST", "/uploads", ALICE, json={"name": "a", "size": 5, "contentType": "x"})
    assert weird.status_code == 400
    # In process (the memory store): no URL a client could reach; the body path stays.
    plain = Harness()
    r = plain.call("POST", "/uploads", ALICE, json={"name": "a.zip", "size": 5})
    assert r.status_code == 404 and "POST /imports" in r.get_json()["error"]["message"]
    assert upload(plain, ALICE, VAULT).status_code == 202


def test_upload_sessions_are_limited_per_day() -> None:
    h = Harness(quotas=True, QUOTA_UPLOADS_PER_DAY=2)
    c = h.container
    blobs = _SessionBlobs()
    c._built["blobs"] = blobs
    c._built["imports"] = ImportService(
        c.settings, c.store, blobs, c.import_jobs, c.account_queue, c.quotas
    )
    ask = {"name": "a.zip", "size": 10}
    assert [h.call("POST", "/uploads", ALICE, json=ask).status_code for _ in range(2)] == [201, 201]
    third = h.call("POST", "/uploads", ALICE, json=ask)
    assert third.status_code == 429 and third.headers.get("Retry-After")
    assert third.get_json()["error"]["details"]["quota"] == "uploadsPerDay"
    assert len(blobs.sessions) == 2  # the refused one opened no session
    assert h.call("POST", "/uploads", BOB, json=ask).status_code == 201  # per user


# -- the job indexes its own pages (issue 23, item 4) ---------------------------------


def _long_vault(count: int) -> bytes:
    """Notes of several chunks each (CHUNK_SIZE 450), no two chunks alike, in 2023."""

    def body(i: int) -> str:
        return " ".join(
            f"Sentence {k} of note {i} about the pricing decision and the launch plan."
            for k in range(30)
        )

    return vault(
        {
            f"v/n{i}.md": front(f"Note {i}", f"2023-02-{1 + i:02d}T09:00:00Z", body(i))
            for i in range(count)
        }
    )


def _trigger(h: Harness, note_id: str, kind: str, n: int) -> Any:
    """The trigger's event for a note, decoded and handed to the indexer as on the stack."""
    from tests.faults.exactness import note_event
    from tests.faults.test_exact_indexing import PROJECT

    event = firestore_events.decode(note_event(PROJECT, note_id, kind, f"ev-{n}"))
    return h.container.indexing.index_note(event.note_id)


def _assert_indexed_as_stored(h: Harness, tenant: str) -> None:
    c = h.container
    for note in imported(h, tenant).values():
        state = h.store.index_state(note.id)
        expected = prepare(note, c.embedder.model_id, 450, 75)
        assert state.status is IndexStatus.INDEXED, (note.title, state)
        assert state.content_hash == expected.content_hash
        stored = sorted(
            (ch.position, ch.text) for ch in h.store.chunks.values() if ch.note_id == note.id
        )
        assert stored == [(d.position, d.text) for d in expected.drafts]


def test_the_job_indexes_each_page_in_one_embedding_call_and_the_trigger_then_embeds_nothing() -> (
    None
):
    h = Harness(faults=True)
    c = h.container
    embedder = h.faults["embedder"]
    raw: Any = c.raw_embedder
    raw.batch_size = 4  # the embedder's own batch size: one call of the job is split by it
    batches: list[int] = []
    embed_batch = raw._embed_batch

    def counted(texts: Any, task: Any) -> Any:
        batches.append(len(texts))
        return embed_batch(texts, task)

    raw._embed_batch = counted
    service = ImportService(
        c.settings, c.store, c.blobs, c.import_jobs, c.account_queue,
        page_size=4, indexing=lambda: c.indexing,
    )  # fmt: skip
    job = upload(h, ALICE, _long_vault(10)).get_json()
    final = service.run(ALICE, job["id"])
    assert (final.status, final.imported, final.cursor) == ("done", 10, 10)
    assert embedder.calls == 3  # one call per page of 4, 4 and 2 notes
    chunks = len([ch for ch in h.store.chunks.values() if ch.tenant_id == ALICE])
    assert chunks > 20 and sum(batches) == chunks and max(batches) == 4
    _assert_indexed_as_stored(h, ALICE)

    # The trigger's event for each imported note (delivered twice) finds it indexed
    # at its version: no embedding, nothing written.
    calls, version = embedder.calls, h.store.tenant_version(ALICE)
    outcomes = {
        _trigger(h, note.id, "created", n).outcome
        for n, note in enumerate(2 * list(imported(h, ALICE).values()))
    }
    assert outcomes == {Outcome.UNCHANGED}
    assert embedder.calls == calls and h.store.tenant_version(ALICE) == version


def test_a_note_edited_right_after_the_jobs_write_ends_indexed_as_edited() -> None:
    """The job writes a note with its chunks at once; the user's edit right after
    drops those chunks (the old text is never cited), and the edit's event indexes
    the user's text."""
    h = Harness()
    c = h.container
    original = c.store.create_notes
    edited: dict[str, str] = {}

    def then_the_user_edits(entries: Sequence[NewNote]) -> CreatedNotes:
        done = original(entries)
        for entry in entries:
            if entry.note.title == "Note 2":
                assert entry.chunks and h.store.index_state(entry.note.id).status is (
                    IndexStatus.INDEXED
                )
                c.notes.update(ALICE, entry.note.id, {"text": "Edited by hand: we chose 9 euros."})
                edited[entry.note.id] = "Edited by hand: we chose 9 euros."
        return done

    c.store.create_notes = then_the_user_edits  # type: ignore[method-assign]
    job = upload(h, ALICE, _long_vault(4)).get_json()
    run_jobs(h)
    assert c.import_jobs.get(job["id"]).imported == 4  # type: ignore[union-attr]
    (note_id,) = edited
    assert h.store.index_state(note_id).status is IndexStatus.PENDING
    assert not [ch for ch in h.store.chunks.values() if ch.note_id == note_id]
    assert _trigger(h, note_id, "created", 1).outcome is Outcome.INDEXED
    assert _trigger(h, note_id, "updated", 2).outcome is Outcome.UNCHANGED
    assert h.store.notes[note_id].text == edited[note_id]
    _assert_indexed_as_stored(h, ALICE)


def test_an_embedding_quota_leaves_the_page_pending_for_the_trigger_and_the_job_goes_on() -> None:
    h = Harness(faults=True)
    c = h.container
    embedder = h.faults["embedder"]
    embedder.fail = QuotaExhausted("embeddings: RESOURCE_EXHAUSTED")
    service = ImportService(
        c.settings, c.store, c.blobs, c.import_jobs, c.account_queue,
        page_size=2, indexing=lambda: c.indexing,
    )  # fmt: skip
    job = upload(h, ALICE, _long_vault(5)).get_json()
    final = service.run(ALICE, job["id"])
    assert (final.status, final.imported, final.cursor, final.reason) == ("done", 5, 5, None)
    assert embedder.calls == 1  # the rest of the run left to the trigger, no more waits
    notes = imported(h, ALICE)
    assert len(notes) == 5
    assert {h.store.index_state(n.id).status for n in notes.values()} == {IndexStatus.PENDING}
    # The trigger's events (here, redelivered once the quota is back) index them.
    with pytest.raises(QuotaExhausted):
        _trigger(h, notes["Note 0"].id, "created", 0)
    embedder.fail = None
    for n, note in enumerate(notes.values()):
        assert _trigger(h, note.id, "created", n + 1).outcome is Outcome.INDEXED
    _assert_indexed_as_stored(h, ALICE)


def test_notes_the_job_cannot_index_stay_pending_and_their_trigger_events_index_them() -> None:
    """The notes are written with their chunks; the vector index refuses their
    upsert (a quota): their states say pending, so their events (or the sweep) index
    them again, vectors and all."""
    h = Harness()
    c = h.container
    index: Any = c.vector_index
    upsert = index.upsert
    failures = {"left": 1}

    def upsert_once_exhausted(chunks: Any) -> Any:
        if failures["left"]:
            failures["left"] -= 1
            raise QuotaExhausted("vector search: RESOURCE_EXHAUSTED")
        return upsert(chunks)

    index.upsert = upsert_once_exhausted
    job = upload(h, ALICE, _long_vault(3)).get_json()
    run_jobs(h)
    final = c.import_jobs.get(job["id"])
    assert final is not None and (final.status, final.imported) == ("done", 3)
    states = {n.title: h.store.index_state(n.id).status for n in imported(h, ALICE).values()}
    assert states == dict.fromkeys(["Note 0", "Note 1", "Note 2"], IndexStatus.PENDING)
    upserted: list[str] = []
    index.upsert = lambda chunks: upserted.extend(ch.note_id for ch in chunks)
    for n, note in enumerate(imported(h, ALICE).values()):
        assert _trigger(h, note.id, "created", n).outcome is Outcome.INDEXED
    assert set(upserted) == {n.id for n in imported(h, ALICE).values()}
    _assert_indexed_as_stored(h, ALICE)


def _import_service(h: Harness, indexing: Any = None) -> ImportService:
    c = h.container
    return ImportService(
        c.settings, c.store, c.blobs, c.import_jobs, c.account_queue,
        page_size=2, indexing=lambda: indexing or c.indexing,
    )  # fmt: skip


def test_an_embedder_that_is_down_leaves_the_page_to_the_trigger_and_the_job_goes_on() -> None:
    h = Harness(faults=True)
    h.faults["embedder"].fail = BackendUnavailable("embeddings down")
    job = upload(h, ALICE, _long_vault(3)).get_json()
    final = _import_service(h).run(ALICE, job["id"])
    assert (final.status, final.imported, final.reason) == ("done", 3, None)
    notes = imported(h, ALICE)
    assert {h.store.index_state(n.id).status for n in notes.values()} == {IndexStatus.PENDING}


def test_a_bug_in_embedding_an_import_page_is_raised_not_left_to_the_trigger() -> None:
    h = Harness(faults=True)
    bug = TypeError("bug in the embedder")
    h.faults["embedder"].fail = bug
    job = upload(h, ALICE, _long_vault(3)).get_json()
    with pytest.raises(TypeError) as raised:
        _import_service(h).run(ALICE, job["id"])
    assert raised.value is bug


class _UpsertFails:
    """The in-memory vector index whose upserts raise ``error``."""

    def __init__(self, inner: Any, error: Exception) -> None:
        self._inner = inner
        self.error = error

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def upsert(self, chunks: Any) -> None:
        raise self.error


@pytest.mark.parametrize("chunks_alone_index", [True, False])
def test_an_index_that_is_down_leaves_imported_notes_to_the_sweep_and_a_bug_is_raised(
    chunks_alone_index: bool,
) -> None:
    """Both ways an import indexes its notes: written with their chunks (the in-memory
    index reads the chunk store), or written alone and then committed with their
    vectors. A failed backend is recorded and the job goes on; a bug is raised."""
    for error in (BackendUnavailable("vector index down"), TypeError("bug in the index")):
        h = Harness()
        c = h.container
        indexing = IndexingService(
            c.settings, c.store, c.store, c.embedder, RuleClassifier(),
            _UpsertFails(c.vector_index, error), index_reads_chunk_store=chunks_alone_index,
        )  # fmt: skip
        job = upload(h, ALICE, _long_vault(3)).get_json()
        service = _import_service(h, indexing)
        if isinstance(error, TypeError):
            with pytest.raises(TypeError) as raised:
                service.run(ALICE, job["id"])
            assert raised.value is error
            continue
        final = service.run(ALICE, job["id"])
        assert (final.status, final.imported) == ("done", 3)
        states = {h.store.index_state(n.id) for n in imported(h, ALICE).values()}
        assert {(s.status, s.error) for s in states} == {(IndexStatus.FAILED, "BackendUnavailable")}


def test_a_long_note_shows_its_parts_in_the_counts_as_they_are_written_and_warns_once() -> None:
    """A 300,000-character note is three parts of 100,000: each is embedded and
    written, and the job's counts saved, before the next (not all after the last), and
    the report says once that it was split (issue 46, item 4)."""
    h = Harness()
    c = h.container
    saved: list[int] = []
    save = c.import_jobs.save

    def counted(job: Any, expected_cursor: int) -> Any:
        saved.append(job.found)
        return save(job, expected_cursor)

    c.import_jobs.save = counted  # type: ignore[method-assign]
    paragraph = "The garden plan for spring, the fence by the shed and the budget. "
    body = "\n\n".join(f"{i}: {paragraph * 3}" for i in range(1500))
    assert 300_000 < len(body) < 400_000
    job = upload(h, ALICE, body.encode(), name="Garden.md").get_json()
    run_jobs(h)
    done = h.call("GET", f"/imports/{job['id']}", ALICE).get_json()
    assert (done["status"], done["found"], done["imported"]) == ("done", 4, 4)
    assert saved[: saved.index(4)] == [0, 1, 2, 3]  # running, then after each part
    assert [p["reason"] for p in done["problems"]] == [
        "longer than 100,000 characters: split into 4 notes"
    ]


def test_an_import_whose_worker_died_is_resumed_by_the_sweep_or_ends_failed() -> None:
    """The worker dies mid-import and its message dies with it (the local Pub/Sub
    emulator keeps nothing across a restart): the job stayed "running" for good. The
    sweep publishes it again once no run has saved it for a lease; runs that keep
    dying end it failed."""
    from datetime import timedelta

    from footnote.domain import IMPORT_LEASE
    from footnote.services.imports import parse_sweep, sweep_message

    h = Harness()
    c = h.container
    now = [datetime.now(UTC)]  # the API starts the jobs on the real clock
    service = ImportService(
        c.settings, c.store, c.blobs, c.import_jobs, c.account_queue,
        page_size=2, clock=lambda: now[0],
    )  # fmt: skip
    queue: Any = c.account_queue
    many = vault({f"n{i}.md": f"# Note {i}\nBody {i}." for i in range(7)})
    original = c.store.create_notes
    dying = {"from": 2, "writes": 0}

    def dies(entries: Sequence[NewNote]) -> CreatedNotes:
        dying["writes"] += 1
        if dying["writes"] >= dying["from"]:
            raise SystemExit("the instance was killed")  # not an error the run handles
        return original(entries)

    c.store.create_notes = dies  # type: ignore[method-assign]
    first = upload(h, ALICE, many).get_json()
    queue.published.clear()  # the message is lost with the worker
    with pytest.raises(SystemExit):
        service.run(ALICE, first["id"])
    assert c.import_jobs.get(first["id"]).status == "running"  # type: ignore[union-attr]
    now[0] += timedelta(minutes=5)
    assert service.resume_stalled() == ()  # a run may still be alive: wait a lease
    now[0] += IMPORT_LEASE
    assert service.resume_stalled(parse_sweep(sweep_message())) == (first["id"],)
    assert service.resume_stalled(timedelta(minutes=1)) == ()  # stamped: not published twice
    c.store.create_notes = original  # type: ignore[method-assign]
    m = queue.published.pop()
    done = service.run(m["tenantId"], m["jobId"])
    assert done.status == "done" and done.imported == 7

    # A job whose every run dies (a file that kills the worker) ends failed.
    dying.update({"from": 1, "writes": 0})
    c.store.create_notes = dies  # type: ignore[method-assign]
    second = upload(h, ALICE, vault({"x.md": "# X\nBody x."}), name="x.zip").get_json()
    queue.published.clear()
    for _ in range(5):
        now[0] += IMPORT_LEASE + timedelta(seconds=1)
        if not service.resume_stalled():
            break
        m = queue.published.pop()
        with contextlib.suppress(SystemExit):
            service.run(m["tenantId"], m["jobId"])
    stuck = c.import_jobs.get(second["id"])
    assert stuck is not None and stuck.status == "failed", stuck
    assert "tries in a row failed" in (stuck.reason or "")


def test_a_done_import_writes_the_tenants_index_snapshot_for_its_first_search() -> None:
    from footnote.adapters.blob_snapshots import BlobIndexSnapshots
    from footnote.retrieval.corpus import CorpusCache, CorpusLoad

    h = Harness()
    c = h.container
    snapshots = BlobIndexSnapshots(c.blobs)
    worker = CorpusCache(c.store, snapshots=snapshots)
    c._built["imports"] = ImportService(
        c.settings, c.store, c.blobs, c.import_jobs, c.account_queue,
        indexing=lambda: c.indexing, after_import=worker.write_snapshot,
    )  # fmt: skip
    assert upload(h, ALICE, VAULT).status_code == 202
    run_jobs(h)
    assert snapshots.read(ALICE) is not None  # written by the job, in its thread
    # A fresh API instance's first search: the snapshot, no chunk read.
    loads: list[CorpusLoad] = []
    api = CorpusCache(c.store, snapshots=snapshots, on_load=lambda t, load: loads.append(load))
    assert len(api.get(ALICE)) == len([x for x in h.store.chunks.values() if x.tenant_id == ALICE])
    assert loads == [CorpusLoad(False, 0, 0, snapshot=True)]
