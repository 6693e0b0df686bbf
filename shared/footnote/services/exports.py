"""Exports: everything a user keeps, as one zip they can read and take elsewhere.

``POST /exports`` records a job and publishes it on the worker's accounts topic;
``run`` writes ``users/{uid}/exports/{jobId}.zip`` to the blob store, page by page
(memory does not grow with the notebook: notes and conversations are read a page at
a time and each entry is written as it is read), then records the job done with
its size. The archive (``ARCHIVE_README`` says the same inside it):

- ``notes.json``: every note, ``{id, title, tags, type, created, updated, text}``,
  ISO-8601 times; what ``POST /imports`` reads back, exactly;
- ``notes/<id>.md``: each note as Markdown with YAML front matter, for people and
  for Obsidian and other Markdown apps;
- ``conversations.json``: every conversation with its questions and answers and the
  citations each answer showed;
- ``README.md``: what each file is.

A redelivered message writes the archive again from the start: it is derived data,
and the object is replaced only once complete (the blob store's writes are
all-or-nothing), so a crash never leaves a half archive behind a "done" job. A job
whose worker died with its message (an instance killed, the local stack restarted)
is published again by the job sweep (``resume_stalled``); one whose runs keep dying
ends failed after EXPORT_RUNS of them, so no export stays queued for good.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import IO, Any

from footnote.domain import EXPORT_RUNS, IMPORT_LEASE, ExportJob, Note
from footnote.errors import BadEvent, NotFound
from footnote.ports import BlobStore, ExportJobStore, ReindexQueue, Store
from footnote.services.quotas import QuotaService

log = logging.getLogger(__name__)

EXPORT_NOTES = "exportNotes"  # the ``job`` of an export message
_PAGE = 200
_SPOOL = 8 * 1024 * 1024  # bytes of a JSON listing kept in memory before it spills to disk
STUCK = "the export failed {runs} times in a row: export again"

ARCHIVE_README = """# Your Footnote export

Everything Footnote keeps of yours, written {written}.

- `notes.json`: every note: id, title, tags, type (the memory type you set, or null),
  created and updated (ISO 8601, UTC) and text. Import this archive into Footnote
  (Import, or `POST /imports`) to get the same notes back with the same dates.
- `notes/<id>.md`: each note as a Markdown file with YAML front matter (the same
  fields), readable as it is and by Markdown apps such as Obsidian.
- `conversations.json`: every conversation: its title and, in order, each question
  and each answer with the passages of your notes it cited.

Nothing else is kept: search indexes and embeddings are derived from your notes and
are rebuilt from them.
"""


class ExportService:
    def __init__(
        self,
        store: Store,
        blobs: BlobStore,
        jobs: ExportJobStore,
        queue: ReindexQueue,
        quotas: QuotaService | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._blobs = blobs
        self._jobs = jobs
        self._queue = queue
        self._quotas = quotas
        self._clock = clock

    # -- the API's half -------------------------------------------------------------
    def start(self, tenant_id: str, job_id: str) -> ExportJob:
        if self._quotas is not None:
            self._quotas.charge_export(tenant_id)
        job = self._jobs.create(ExportJob(job_id, tenant_id, self._clock()))
        self._queue.publish(message(tenant_id, job.id))
        return job

    def get(self, tenant_id: str, job_id: str) -> ExportJob:
        job = self._jobs.get(job_id)
        if job is None or job.tenant_id != tenant_id:
            raise NotFound("export not found")
        return job

    def archive(self, tenant_id: str, job_id: str) -> tuple[ExportJob, IO[bytes]]:
        """The finished archive, as a stream to send."""
        job = self.get(tenant_id, job_id)
        if job.status != "done":
            raise NotFound("the export is not ready yet")
        try:
            return job, self._blobs.open_read(job.object_name)
        except FileNotFoundError:
            raise NotFound("the export's archive is gone: export again") from None

    # -- the sweep ------------------------------------------------------------------
    def resume_stalled(self, stalled_after: timedelta = IMPORT_LEASE) -> tuple[str, ...]:
        """Publish again the message of every unfinished export no run has begun for
        ``stalled_after`` (a run ends within the worker's timeout, under IMPORT_LEASE):
        its worker died and its message with it. The ids of the jobs published."""
        now = self._clock()
        resumed: list[str] = []
        for job in self._jobs.unfinished(500):
            if now - (job.updated_at or job.created_at) < stalled_after:
                continue  # a run may be alive, or its message still on its way
            # Stamped first (compare-and-set): a run that began meanwhile is alive, and
            # the next sweep waits a whole lease again.
            if self._jobs.claim(job, now):
                self._queue.publish(message(job.tenant_id, job.id))
                resumed.append(job.id)
        if resumed:
            log.warning("export sweep: %d stalled jobs resumed: %s", len(resumed), resumed)
        return tuple(resumed)

    # -- the job --------------------------------------------------------------------
    def run(self, tenant_id: str, job_id: str) -> ExportJob:
        job = self._jobs.get(job_id)
        if job is None or job.tenant_id != tenant_id:
            raise BadEvent("export message names no job of its tenant")
        if job.finished:
            return job
        if job.attempts >= EXPORT_RUNS:
            log.error("export %s: %d runs failed", job.id, job.attempts)
            failed = replace(
                job,
                status="failed",
                reason=STUCK.format(runs=job.attempts),
                finished_at=self._clock(),
            )
            self._jobs.save(failed)
            return failed
        # Counted before the run: one that dies (killed, not raising) still counts.
        job = replace(job, attempts=job.attempts + 1, updated_at=self._clock())
        self._jobs.save(job)
        name = f"users/{tenant_id}/exports/{job_id}.zip"
        with self._blobs.open_write(name, "application/zip") as out:
            notes, conversations = self._write(tenant_id, out)
        done = replace(
            job,
            status="done",
            object_name=name,
            notes=notes,
            conversations=conversations,
            size=self._blobs.size(name) or 0,
            finished_at=self._clock(),
        )
        self._jobs.save(done)
        log.info("export %s: %d notes, %d conversations", job_id, notes, conversations)
        return done

    def _write(self, tenant_id: str, out: IO[bytes]) -> tuple[int, int]:
        # A zip is written one entry at a time: each note's Markdown goes in as it is
        # read, while notes.json collects in a spooled file (memory up to a bound, then
        # disk) and goes in after.
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            with tempfile.SpooledTemporaryFile(max_size=_SPOOL) as listing:
                notes = _json_list(
                    listing,
                    (note_record(n) for n in self._notes(tenant_id, archive)),
                )
                _copy_entry(archive, "notes.json", listing)
            with tempfile.SpooledTemporaryFile(max_size=_SPOOL) as listing:
                conversations = _json_list(listing, self._conversations(tenant_id))
                _copy_entry(archive, "conversations.json", listing)
            archive.writestr("README.md", ARCHIVE_README.format(written=_iso(self._clock())))
        return notes, conversations

    def _notes(self, tenant_id: str, archive: zipfile.ZipFile) -> Iterator[Note]:
        """Every note, a page at a time, each written to the archive as Markdown."""
        cursor: str | None = None
        while True:
            page = self._store.list_notes(tenant_id, _PAGE, cursor)
            for note in page.notes:
                archive.writestr(f"notes/{note.id}.md", note_markdown(note))
                yield note
            if page.cursor is None:
                return
            cursor = page.cursor

    def _conversations(self, tenant_id: str) -> Iterator[dict[str, Any]]:
        cursor: str | None = None
        while True:
            page = self._store.list_conversations(tenant_id, _PAGE, cursor)
            for c in page.conversations:
                turns = self._store.conversation_turns(tenant_id, c.id) or []
                yield {
                    "id": c.id,
                    "title": c.title,
                    "created": _iso(c.created_at),
                    "updated": _iso(c.updated_at),
                    "messages": [
                        {
                            "role": t.role,
                            "text": t.text,
                            "created": _iso(t.created_at),
                            "citations": [dict(cite) for cite in t.citations],
                        }
                        for t in turns
                    ],
                }
            if page.cursor is None:
                return
            cursor = page.cursor


def _json_list(out: IO[bytes], records: Iterator[dict[str, Any]]) -> int:
    """Write the records as one JSON array, one record per line; how many."""
    count = 0
    out.write(b"[")
    for record in records:
        out.write((b",\n" if count else b"\n") + json.dumps(record, ensure_ascii=False).encode())
        count += 1
    out.write(b"\n]\n")
    return count


def _copy_entry(archive: zipfile.ZipFile, name: str, source: IO[bytes]) -> None:
    source.seek(0)
    with archive.open(name, "w") as entry:
        shutil.copyfileobj(source, entry, 1024 * 1024)


def note_record(note: Note) -> dict[str, Any]:
    return {
        "id": note.id,
        "title": note.title,
        "tags": list(note.tags),
        "type": note.type.value if note.type else None,
        "created": _iso(note.created_at),
        "updated": _iso(note.updated_at),
        "text": note.text,
    }


def note_markdown(note: Note) -> str:
    """The note with YAML front matter (JSON strings are valid YAML scalars)."""
    record = note_record(note)
    front = "\n".join(
        f"{key}: {json.dumps(record[key], ensure_ascii=False)}"
        for key in ("id", "title", "tags", "type", "created", "updated")
    )
    return f"---\n{front}\n---\n{note.text}\n"


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def message(tenant_id: str, job_id: str) -> dict[str, Any]:
    return {"job": EXPORT_NOTES, "tenantId": tenant_id, "jobId": job_id}
