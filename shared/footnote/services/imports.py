"""Imports: an uploaded archive of another app's notes becomes notes, each with its
own dates, in a job that runs on Pub/Sub (the worker's accounts topic).

``POST /imports`` names an object the user uploaded under ``users/{uid}/`` (or sends
the archive itself, which the API stores there first); ``start`` records the job and
publishes it. ``run`` reads the archive as a stream (``footnote.archives``), skips the
records an earlier delivery accounted for (the job's cursor), and writes each note
with its original created and updated times, charging the user's quotas like any
note. Each imported note's id is a hash of the tenant, its place in the archive and
its content (``imported_note_id``), so a redelivered page or a second import of the
same export finds the note there and counts it a duplicate: nothing is written
twice. Progress is saved every page with a compare-and-set on the cursor; past its
time budget a run publishes its own continuation. A quota reached stops the job
cleanly with the reason; no note is ever half-written (a page's notes are one atomic
create, with their chunks where the chunk write alone indexes a note).

Why this module is over 450 lines: a run is one resumable loop (cursor, quotas,
atomic page writes and their indexing) whose steps share the job's state; the
archive formats are read apart, in ``footnote.archives``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from footnote.config import Settings
from footnote.domain import (
    IMPORT_FAILURES_KEPT,
    IMPORT_LEASE,
    IMPORT_PROBLEM_CHARS,
    IMPORT_RUNS_PER_MESSAGE,
    ImportJob,
    ImportProblem,
    Note,
    imported_note_id,
)
from footnote.errors import (
    PORT_ERRORS,
    BadEvent,
    Forbidden,
    InvalidRequest,
    NotFound,
    QuotaExceeded,
    QuotaExhausted,
    Unauthenticated,
)
from footnote.ports import (
    ATOMIC_WRITES,
    BlobStore,
    ImportJobStore,
    NewNote,
    NoteStore,
    ReindexQueue,
)
from footnote.services.quotas import QuotaService, Reservation
from footnote.text import normalize

if TYPE_CHECKING:
    from footnote.archives import ImportedNote, ImportRecord
    from footnote.services.indexing import EmbeddedNote, IndexingService

log = logging.getLogger(__name__)

IMPORT_NOTES = "importNotes"  # the ``job`` of an import message
SWEEP_JOBS = "sweepJobs"  # the ``job`` of the scheduled sweep of stalled imports and exports
# The report's reason when an archive read cleanly but held nothing to import (a zip
# of photos, a folder of PDFs): without it the job would say "done" and nothing else.
NOTHING_FOUND = (
    "no notes found: Footnote reads Markdown and text files, Evernote .enex, "
    "Google Keep Takeout, Notion and Footnote exports"
)


# A page of records is accounted for (embedded, written, its progress saved) once it
# holds this many characters of notes, if that comes before ``page_size`` records: the
# parts of a long note (up to 100,000 characters each) then show in the job's counts
# one by one, rather than all at once after minutes of embedding.
PAGE_CHARS = 50_000

# An archive uploaded straight to Cloud Storage (POST /uploads): what the readers
# take, at most (footnote.archives reads 2 GiB inflated, in bounded memory).
UPLOAD_MAX_BYTES = 2 * 1024**3
# How long Cloud Storage keeps a resumable upload session open.
UPLOAD_SESSION_LIFE = timedelta(days=7)


class AccountClosing(Exception):
    """The job's account is being deleted: the run stops where it is, and its message
    is acknowledged (the deletion removes the job and what it wrote)."""


class _IndexRun:
    """What one run of a job learnt about indexing: a quota reached leaves the rest
    of its pages to the trigger."""

    quota_hit = False


def user_prefix(tenant_id: str) -> str:
    return f"users/{tenant_id}/"


class ImportService:
    def __init__(
        self,
        settings: Settings,
        notes: NoteStore,
        blobs: BlobStore,
        jobs: ImportJobStore,
        queue: ReindexQueue,
        quotas: QuotaService | None = None,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        monotonic: Callable[[], float] = time.monotonic,
        budget_s: float = 420.0,
        page_size: int = 50,
        indexing: Callable[[], IndexingService] | None = None,
        fence: Callable[[str], bool] | None = None,
        after_import: Callable[[str], None] | None = None,
    ) -> None:
        """``indexing``: the indexer, built when first needed (the API, which never
        runs a job, never builds it); None leaves every note to the trigger.
        ``fence(tenant)``: whether the tenant's account is being deleted; a run then
        stops before its next write (quota counters included) and its message is
        acknowledged, not retried into the dead-letter topic.
        ``after_import``: run with the tenant once a job is done having imported
        notes (the wiring's: write the tenant's index snapshot, so the first search
        after a big import loads it rather than every chunk)."""
        self._s = settings
        self._notes = notes
        self._blobs = blobs
        self._jobs = jobs
        self._queue = queue
        self._quotas = quotas
        self._clock = clock
        self._monotonic = monotonic
        self._budget = budget_s
        self._page = page_size
        self._indexing = indexing
        self._fence = fence or (lambda _tenant: False)
        self._after_import = after_import

    # -- the API's half -------------------------------------------------------------
    def upload(self, tenant_id: str, job_id: str, data: bytes) -> str:
        """Store an archive sent with the request; the object's name."""
        name = f"{user_prefix(tenant_id)}imports/{job_id}"
        with self._blobs.open_write(name, "application/octet-stream") as out:
            out.write(data)
        return name

    def upload_session(
        self, tenant_id: str, upload_id: str, size: int, content_type: str, origin: str | None
    ) -> tuple[str, str]:
        """A place for one archive under the caller's own prefix, and the URL the
        client PUTs its ``size`` bytes to: (object name, upload URL). The name is the
        server's (``users/{uid}/uploads/{id}/{file}``), so no client picks a prefix."""
        if not 0 < size <= UPLOAD_MAX_BYTES:
            raise InvalidRequest(f"an archive is 1 byte to {UPLOAD_MAX_BYTES} bytes")
        name = f"{user_prefix(tenant_id)}uploads/{upload_id}"
        if self._quotas is not None:
            self._quotas.charge_upload(tenant_id)
        url = self._blobs.upload_session(name, content_type, size, origin)
        if url is None:
            raise NotFound("no direct uploads here: send the archive as the body of POST /imports")
        # Recorded before the URL is handed out: an account deletion cancels it.
        self._jobs.record_upload(
            tenant_id, upload_id.split("/", 1)[0], url, self._clock() + UPLOAD_SESSION_LIFE
        )
        return name, url

    def start(self, tenant_id: str, job_id: str, object_name: str) -> ImportJob:
        if not object_name.startswith(user_prefix(tenant_id)) or ".." in object_name.split("/"):
            # Decided on the name alone, before any lookup: another user's object is
            # refused whether or not it exists.
            raise Forbidden(f"only your own uploads ({user_prefix(tenant_id)}…) can be imported")
        if self._blobs.size(object_name) is None:
            raise NotFound("no such upload")
        now = self._clock()
        job = self._jobs.create(ImportJob(job_id, tenant_id, object_name, now, updated_at=now))
        if not job.finished:
            self._queue.publish(message(tenant_id, job.id))
        return job

    def get(self, tenant_id: str, job_id: str) -> ImportJob:
        job = self._jobs.get(job_id)
        if job is None or job.tenant_id != tenant_id:
            raise NotFound("import not found")
        return job

    def cancel(self, tenant_id: str, job_id: str) -> ImportJob:
        self.get(tenant_id, job_id)
        job = self._jobs.cancel(job_id)
        if job is None:
            raise NotFound("import not found")
        return job

    # -- the sweep ------------------------------------------------------------------
    def resume_stalled(self, stalled_after: timedelta = IMPORT_LEASE) -> tuple[str, ...]:
        """Publish again the message of every unfinished job no run has saved for
        ``stalled_after``: its worker died (an instance killed, the local stack
        restarted) and its message with it. The job resumes at its cursor; a job whose
        runs keep dying ends ``failed`` after IMPORT_RUNS_PER_MESSAGE of them, so none
        stays ``running`` for good. The ids of the jobs resumed."""
        now = self._clock()
        resumed: list[str] = []
        for job in self._jobs.unfinished(500):
            heartbeat = job.updated_at or job.started_at or job.created_at
            if now - heartbeat < stalled_after or self._fence(job.tenant_id):
                continue  # alive, or its account's deletion removes it
            # Stamped first (compare-and-set on its cursor): a run that saved meanwhile
            # is alive, and the next sweep waits a whole lease again.
            if self._jobs.save(replace(job, updated_at=now), job.cursor):
                self._queue.publish(message(job.tenant_id, job.id))
                resumed.append(job.id)
        if resumed:
            log.warning("import sweep: %d stalled jobs resumed: %s", len(resumed), resumed)
        return tuple(resumed)

    # -- the job --------------------------------------------------------------------
    def run(self, tenant_id: str, job_id: str) -> ImportJob:
        """Run (or resume) the job. AccountClosing when its account is being deleted:
        the message is then done with (acknowledged), as the deletion empties the rest."""
        if self._fence(tenant_id):
            raise AccountClosing
        job = self._jobs.get(job_id)
        if job is None or job.tenant_id != tenant_id:
            raise BadEvent("import message names no job of its tenant")
        if job.finished:
            return job
        # Here, not at import: only the worker reads archives (and ships their libraries).
        from footnote.archives import ArchiveLimits, ArchiveRefused, read_archive

        started = self._monotonic()
        if job.attempts >= IMPORT_RUNS_PER_MESSAGE:
            log.error("import %s: %d runs failed, at record %d", job.id, job.attempts, job.cursor)
            return self._finish(job, "failed", STUCK.format(runs=job.attempts, done=job.cursor))
        job = self._saved(
            job,
            replace(
                job,
                status="running",
                started_at=job.started_at or self._clock(),
                attempts=job.attempts + 1,
            ),
        )
        if job.finished:
            return job
        try:
            stream = self._blobs.open_read(job.object_name)
        except FileNotFoundError:
            return self._finish(job, "failed", "the uploaded file is gone")
        with stream:
            try:
                limits = ArchiveLimits(max_note_chars=self._s.note_max_chars)
                records = read_archive(stream, job.object_name.rsplit("/", 1)[-1], limits)
                return self._consume(job, records, started)
            except ArchiveRefused as refused:
                return self._finish(job, "failed", str(refused))
            except AccountClosing:
                log.info("import %s stopped: its account is being deleted", job.id)
                raise

    def _consume(
        self, job: ImportJob, records: Iterator[ImportRecord], started: float
    ) -> ImportJob:
        skip = job.cursor
        progress = job
        page: list[tuple[int, ImportRecord]] = []
        page_chars = 0
        index_run = _IndexRun()
        for index, record in enumerate(records):
            if index < skip:
                continue  # accounted for by an earlier delivery
            page.append((index, record))
            page_chars += len(getattr(record, "text", ""))
            if progress.cursor + len(page) - job.cursor < self._page and page_chars < PAGE_CHARS:
                continue
            progress, stopped = self._page_of(progress, page, index_run)
            page, page_chars = [], 0
            if stopped is not None:
                return self._finish(job, "done", stopped, progress)
            job = self._saved(job, progress)
            progress = job
            if job.finished:
                return job  # cancelled meanwhile
            # A concurrent delivery of the same message may have saved pages past
            # this one: its counts stand, so go on from its cursor rather than
            # counting those records again.
            skip = job.cursor
            if self._monotonic() - started > self._budget:
                job = self._saved(job, replace(job, attempts=0))  # a new message's count
                self._queue.publish(message(job.tenant_id, job.id))
                return job
        if page:
            progress, stopped = self._page_of(progress, page, index_run)
            if stopped is not None:
                return self._finish(job, "done", stopped, progress)
        if progress.found == 0 and progress.failed == 0:
            return self._finish(job, "done", NOTHING_FOUND, progress)
        return self._finish(job, "done", None, progress)

    def _page_of(
        self, job: ImportJob, page: list[tuple[int, ImportRecord]], index_run: _IndexRun
    ) -> tuple[ImportJob, str | None]:
        """Account for a page of records: the job with its counts and cursor past the
        last record accounted for, and the reason it stopped at a quota, if it did.

        One read finds the page's notes imported already (duplicates: not embedded,
        not written). The new ones are embedded in one call through the indexer
        (``IndexingService.embed_notes``), then written with their chunks in as few
        atomic writes as the store allows (``NoteStore.create_notes``), so the
        trigger event each note's write fires finds it indexed at its content and
        embeds nothing. With Vector Search (vectors outside Firestore) they are
        written pending, then each indexed by the trigger's own write with its
        vectors (``IndexingService.new_notes`` says why). Indexing is the job's
        help, never its duty: a page it cannot embed or upsert (a quota) is left
        pending, and its trigger events index it."""
        from footnote.archives import ImportFailure

        planned: list[Note | str | None] = []  # the note to write, "empty", "duplicate"
        for _, record in page:
            if isinstance(record, ImportFailure):
                planned.append(None)
                continue
            note = self._note(job.tenant_id, record)
            planned.append("empty" if note is None else note)
        candidates = [n.id for n in planned if isinstance(n, Note)]
        # Stored already, or twice in this page (a zip may hold one name twice): the
        # later ones are duplicates, as a second create of the note would find.
        seen = self._notes.existing_note_ids(job.tenant_id, candidates)
        for i, plan in enumerate(planned):
            if isinstance(plan, Note):
                planned[i] = "duplicate" if plan.id in seen else plan
                seen.add(plan.id)
        new = [n for n in planned if isinstance(n, Note)]
        embedded = self._embedded(new, index_run)
        if self._fence(job.tenant_id):
            # Checked after the embedding, the page's long part, right before its
            # quota counters and notes are written: the deletion's grace covers the
            # moment between, so nothing of this run lands after a step emptied it.
            raise AccountClosing
        outcomes, stopped = self._write(new, embedded, index_run)
        for (index, record), plan in zip(page, planned, strict=True):
            if stopped is not None and isinstance(plan, Note) and plan.id == stopped[0]:
                return job, f"stopped at your quota: {stopped[1]}"
            outcome = outcomes.get(plan.id, "duplicate") if isinstance(plan, Note) else plan
            job = replace(self._account(job, record, outcome), cursor=index + 1)
        return job, None

    def _write(
        self, notes: list[Note], embedded: dict[str, EmbeddedNote], index_run: _IndexRun
    ) -> tuple[dict[str, str], tuple[str, QuotaExceeded] | None]:
        """Write new notes, in page order, a group of them per atomic write: by note
        id "imported" or "duplicate" (written meanwhile by another delivery), and the
        note whose quota reservation was refused, if one was (none after it is
        written)."""
        indexing = self._indexing() if self._indexing is not None and embedded else None
        entries = indexing.new_notes(notes, embedded) if indexing else [NewNote(n) for n in notes]
        outcomes: dict[str, str] = {}
        group: list[tuple[NewNote, Reservation | None]] = []
        for entry in entries:
            if entry.writes > ATOMIC_WRITES:
                entry = NewNote(entry.note)  # too big with its chunks: alone, then commit
            if group and sum(e.writes for e, _ in group) + entry.writes > ATOMIC_WRITES:
                self._commit(group, outcomes, embedded, index_run)
                group = []
            try:
                reservation = self._reserve(entry.note)
            except QuotaExceeded as exceeded:
                self._commit(group, outcomes, embedded, index_run)
                return outcomes, (entry.note.id, exceeded)
            group.append((entry, reservation))
        self._commit(group, outcomes, embedded, index_run)
        return outcomes, None

    def _reserve(self, note: Note) -> Reservation | None:
        if self._quotas is None:
            return None
        return self._quotas.reserve_note(note.tenant_id, len(note.text), True)

    def _commit(
        self,
        group: list[tuple[NewNote, Reservation | None]],
        outcomes: dict[str, str],
        embedded: dict[str, EmbeddedNote],
        index_run: _IndexRun,
    ) -> None:
        """One atomic write of a group of new notes; a failure gives their quota back
        (nothing was written), as does a note another delivery wrote first. Then the
        notes it wrote with chunks are finished (``index_created``), and those it
        wrote alone though embedded are indexed with their vectors (``commit``)."""
        if not group:
            return
        entries = [entry for entry, _ in group]
        try:
            done = self._notes.create_notes(entries)
        except Unauthenticated:
            # The deletion's fence, read inside the write: nothing was written, and
            # nothing is given back either (a give-back would write the counters
            # the deletion empties).
            raise AccountClosing from None
        except BaseException:
            self._release(r for _, r in group)
            raise
        existing = set(done.existing)
        self._release(r for entry, r in group if entry.note.id in existing)
        outcomes.update(dict.fromkeys(done.created, "imported"))
        outcomes.update(dict.fromkeys(done.existing, "duplicate"))
        if self._indexing is None:
            return
        if any(e.state is not None for e in entries):
            self._indexing().index_created(entries, done)
        created = set(done.created)
        for entry in entries:
            if entry.state is None and entry.note.id in created:
                self._index(entry.note, embedded, index_run)

    def _release(self, reservations: Iterable[Reservation | None]) -> None:
        if self._quotas is None:
            return
        for reservation in reservations:
            if reservation is not None:
                self._quotas.release(reservation)

    def _embedded(self, notes: list[Note], index_run: _IndexRun) -> dict[str, EmbeddedNote]:
        if self._indexing is None or not notes or index_run.quota_hit:
            return {}
        try:
            return self._indexing().embed_notes(notes)
        except QuotaExhausted as exc:
            # The embedding quota, after the retry policy's own backoff: the notes are
            # written unindexed (pending) and their trigger events index them, with
            # their own backoff. This run leaves the rest of its pages to them too.
            log.warning("import: %d notes left to the trigger (quota): %s", len(notes), exc)
            index_run.quota_hit = True
        except PORT_ERRORS:  # the embedder or the store failed; a bug is raised
            log.exception("import: %d notes left to the trigger: embedding failed", len(notes))
        return {}

    def _account(self, job: ImportJob, record: ImportRecord, outcome: str | None) -> ImportJob:
        """Count one record: ``outcome`` is "imported", "duplicate", "empty", or None
        for a file the reader could not read."""
        from footnote.archives import ImportFailure

        if isinstance(record, ImportFailure):
            return self._problem(replace(job, failed=job.failed + 1), record.source, record.reason)
        job = replace(job, found=job.found + 1)
        if outcome == "empty":  # nothing left once tidied (control characters only)
            return self._problem(
                replace(job, failed=job.failed + 1), record.source, "empty note: nothing to import"
            )
        if outcome == "duplicate":
            job = replace(job, duplicates=job.duplicates + 1)
        else:
            job = replace(job, imported=job.imported + 1)
        for warning in record.warnings:
            job = self._problem(job, record.source, warning)
        return job

    def _note(self, tenant_id: str, record: ImportedNote) -> Note | None:
        """The note a record becomes; None when nothing is left of it once tidied."""
        created = record.created_at or self._clock()
        text = normalize(record.text)
        if not text:
            return None
        return Note(
            id=imported_note_id(tenant_id, record.source, record.text, record.created_at),
            tenant_id=tenant_id,
            # Stored as POST /notes stores text (NFKC, no control characters, tidy
            # spaces), so an imported note reads, indexes and exports like any other.
            text=text,
            created_at=created,
            updated_at=max(record.updated_at or created, created),
            title=normalize(record.title)[: self._s.note_title_max_chars],
            tags=tuple(t for t in map(normalize, record.tags) if t)[: self._s.note_max_tags],
            type=record.type,
            version=1,
        )

    def _index(self, note: Note, embedded: dict[str, EmbeddedNote], index_run: _IndexRun) -> None:
        """Index a note just written with its page's vectors, if it has them."""
        ready = embedded.get(note.id)
        if ready is None or self._indexing is None or index_run.quota_hit:
            return  # pending: its trigger event indexes it
        try:
            self._indexing().commit(ready)
        except QuotaExhausted as exc:
            # Vector Search's quota, after the retry policy's wait: this note stays
            # pending, and the run leaves the rest to the trigger rather than wait
            # that long once per note.
            log.warning("import: notes left to the trigger (quota): %s", exc)
            index_run.quota_hit = True
        except PORT_ERRORS as exc:  # recorded pending or failed: its event or the sweep redoes it
            log.warning("import: note %s left to the trigger: %s", note.id, type(exc).__name__)

    @staticmethod
    def _problem(job: ImportJob, file: str, reason: str) -> ImportJob:
        if len(job.problems) >= IMPORT_FAILURES_KEPT:
            return job
        if len(file) > IMPORT_PROBLEM_CHARS:  # the end of a path names the file
            file = "…" + file[-(IMPORT_PROBLEM_CHARS - 1) :]
        problem = ImportProblem(file, _clipped(reason))
        return replace(job, problems=(*job.problems, problem))

    def _saved(self, expected: ImportJob, job: ImportJob) -> ImportJob:
        job = replace(job, updated_at=self._clock())  # the run's heartbeat
        if self._jobs.save(job, expected.cursor):
            return job
        stored = self._jobs.get(job.id)
        if stored is None:
            raise BadEvent("import job disappeared")
        return stored  # cancelled, or another delivery moved on: its state stands

    def _finish(
        self, job: ImportJob, status: str, reason: str | None, progress: ImportJob | None = None
    ) -> ImportJob:
        final = replace(
            progress or job,
            status=status,
            reason=_clipped(reason) if reason else reason,
            finished_at=self._clock(),
        )
        done = self._saved(job, final)
        log.info("import %s %s: %s", job.id, done.status, reason or "complete")
        if done.status == "done" and done.imported and self._after_import is not None:
            try:
                self._after_import(done.tenant_id)
            except Exception:  # the notes are in; a later search loads them all instead
                log.warning("after import %s: the index snapshot failed", job.id, exc_info=True)
        return done


STUCK = (
    "stopped: {runs} tries in a row failed (after {done} files or notes of the archive). "
    "The notes read before are imported; the same file can be imported again, and "
    "nothing is imported twice"
)


def _clipped(reason: str) -> str:
    return (
        reason if len(reason) <= IMPORT_PROBLEM_CHARS else reason[: IMPORT_PROBLEM_CHARS - 1] + "…"
    )


def message(tenant_id: str, job_id: str) -> dict[str, Any]:
    return {"job": IMPORT_NOTES, "tenantId": tenant_id, "jobId": job_id}


def sweep_message(stalled_after_s: float | None = None) -> dict[str, Any]:
    """The job sweep's message; ``stalled_after_s`` instead of IMPORT_LEASE (0 after a
    restart of the local stack, when no run of before can be alive)."""
    extra = {} if stalled_after_s is None else {"stalledAfterS": stalled_after_s}
    return {"job": SWEEP_JOBS, **extra}


def parse_sweep(payload: dict[str, Any]) -> timedelta:
    value = payload.get("stalledAfterS", IMPORT_LEASE.total_seconds())
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 86400:
        raise BadEvent("sweep message 'stalledAfterS' must be 0 to 86400 seconds")
    return timedelta(seconds=value)


def parse_message(payload: dict[str, Any]) -> tuple[str, str]:
    tenant, job_id = payload.get("tenantId"), payload.get("jobId")
    if not isinstance(tenant, str) or not isinstance(job_id, str) or not tenant or not job_id:
        raise BadEvent("import message is not valid")
    return tenant, job_id


def check_object_name(value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > 1024:
        raise InvalidRequest("object must be the name of an uploaded file")
    return value
