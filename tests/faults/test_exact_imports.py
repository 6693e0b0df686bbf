"""Exact indexing holds for imports (issue 23), in process like test_exact_indexing.

An import writes notes in pages; each note it creates fires the Firestore trigger
(here: three copies of its ``created`` event, shuffled, delivered by concurrent
workers while the job runs, as in test_exact_indexing). The job crashes mid-page,
once after a note was written but before its page was saved, and once before a
write, and its Pub/Sub message is redelivered (once as two concurrent copies, and
once more after the job is done). Meanwhile the user edits notes the import already
wrote, and another tenant writes, edits and deletes notes of its own.

Afterwards: exactly one note per file of the vault, with the file's own date, and
an edit never overwritten by a redelivered page; the chunks equal a fresh index of
the final notes (same chunks, vectors, no orphans, no duplicates), every note
indexed with its content hash, the retrieval corpora hold exactly those chunks,
and each tenant's BM25 term statistics equal a count from scratch.
"""

from __future__ import annotations

import io
import random
import threading
import zipfile
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from footnote.adapters.memory_term_stats import MemoryTermStats
from footnote.domain import ImportJob, Note
from footnote.ports import CreatedNotes, NewNote
from footnote.services.imports import ImportService
from tests.faults.test_exact_indexing import Deliveries, assert_exact, deliver, text
from tests.faults.test_exact_term_stats import expected_stats, stats_of
from tests.inproc import Harness

IMPORTER, OTHER = "t-import", "t-other"
NOTES = 120
PAGE = 7  # notes per saved page: several pages, crashes inside them


def vault(rng: random.Random, notes: int = NOTES) -> tuple[bytes, dict[str, datetime]]:
    """An Obsidian vault of ``notes`` notes with front matter dates spread over 2023."""
    buffer = io.BytesIO()
    dates: dict[str, datetime] = {}
    start = datetime(2023, 1, 1, tzinfo=UTC)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(notes):
            title = f"Imported {i:03d}"
            created = start + timedelta(hours=61 * i + rng.randint(0, 60))
            dates[title] = created
            body = text(rng, f"I{i}")
            z.writestr(
                f"Vault/{i:03d}.md",
                f"---\ntitle: {title}\ncreated: {created.isoformat()}\n---\n{body}\n",
            )
    return buffer.getvalue(), dates


class Trigger:
    """The Firestore trigger: every note the store creates emits its ``created``
    event (three copies), which workers deliver while the job goes on."""

    def __init__(self, h: Harness, rng: random.Random, pool: ThreadPoolExecutor) -> None:
        self.h = h
        self.rng = rng
        self.pool = pool
        self.deliveries = Deliveries(rng)
        self.futures: list[Future[None]] = []
        self.lock = threading.Lock()

    def emit(self, note_id: str, kind: str) -> None:
        with self.lock:
            self.deliveries.emit(note_id, kind)
            if self.rng.random() < 0.4:  # some are delivered at once, racing the job
                taken = self.deliveries.take(self.rng.randint(1, 6))
                self.futures += [self.pool.submit(deliver, self.h, e) for e in taken]

    def drain(self) -> None:
        with self.lock:
            taken = self.deliveries.take(len(self.deliveries.pending))
            self.futures += [self.pool.submit(deliver, self.h, e) for e in taken]
        for f in self.futures:
            f.result()


class Crashes:
    """Wraps the store's ``create_note`` and ``create_notes`` (the job writes a page
    of notes in one atomic write): emits the trigger's event for each note written,
    and kills the job at the planned notes (after or before the write holding them)."""

    def __init__(self, h: Harness, trigger: Trigger) -> None:
        self.original = h.store.create_note
        self.original_many = h.store.create_notes
        self.trigger = trigger
        self.plan: dict[int, str] = {}  # note number (imports only) -> "after" | "before"
        self.writes = 0
        self.crashed: list[str] = []
        self.with_chunks: list[str] = []  # notes the job wrote together with their chunks
        self.lock = threading.Lock()
        h.store.create_note = self.create_note
        h.store.create_notes = self.create_notes

    def _planned(self, entries: int) -> str | None:
        with self.lock:
            numbers = range(self.writes + 1, self.writes + entries + 1)
            crash = next((self.plan.pop(n) for n in numbers if n in self.plan), None)
            if crash != "before":
                self.writes += entries
            return crash

    def create_note(self, note: Note) -> Note:
        crash = self._planned(1) if note.tenant_id == IMPORTER else None
        if crash == "before":
            self.crashed.append(crash)
            raise ConnectionError("the worker died before the write")
        stored: Note = self.original(note)
        self.trigger.emit(stored.id, "created")
        if crash == "after":
            self.crashed.append(crash)
            raise ConnectionError("the worker died after the write, before its page was saved")
        return stored

    def create_notes(self, entries: Sequence[NewNote]) -> CreatedNotes:
        mine = any(e.note.tenant_id == IMPORTER for e in entries)
        crash = self._planned(len(entries)) if mine else None
        if crash == "before":
            self.crashed.append(crash)
            raise ConnectionError("the worker died before the write")
        done: CreatedNotes = self.original_many(entries)
        created = set(done.created)
        self.with_chunks += [e.note.id for e in entries if e.chunks and e.note.id in created]
        for note_id in done.created:
            self.trigger.emit(note_id, "created")
        if crash == "after":
            self.crashed.append(crash)
            raise ConnectionError("the worker died after the write, before its page was saved")
        return done


def run(service: ImportService, job_id: str) -> ImportJob | None:
    """One delivery of the import message: None when the worker crashed."""
    try:
        return service.run(IMPORTER, job_id)
    except ConnectionError:
        return None


def other_tenant_writes(h: Harness, trigger: Trigger, rng: random.Random, steps: int) -> None:
    notes = h.container.notes
    mine = [n.id for n in h.store.notes.values() if n.tenant_id == OTHER]
    for step in range(steps):
        roll = rng.random()
        if roll < 0.5 or not mine:
            note = notes.create(OTHER, text(rng, f"O{step}"), "Title", None, None)
            mine.append(note.note.id)
            trigger.emit(note.note.id, "created")
        elif roll < 0.8:
            note_id = rng.choice(mine)
            notes.update(OTHER, note_id, {"text": text(rng, f"OE{step}")})
            trigger.emit(note_id, "updated")
        else:
            note_id = mine.pop(rng.randrange(len(mine)))
            notes.delete(OTHER, note_id)
            trigger.emit(note_id, "deleted")


def edit_imported(h: Harness, trigger: Trigger, rng: random.Random, count: int) -> dict[str, str]:
    """The user edits notes the import has written: title -> the edited text."""
    written = sorted(n.id for n in h.store.notes.values() if n.tenant_id == IMPORTER)
    edited = {}
    for note_id in rng.sample(written, count):
        new = text(rng, "EDITED")
        h.container.notes.update(IMPORTER, note_id, {"text": new})
        trigger.emit(note_id, "updated")
        edited[h.store.notes[note_id].title] = h.store.notes[note_id].text
    return edited


@pytest.mark.parametrize("mode", ["with-chunks", "then-commit", "trigger-only"])
@pytest.mark.parametrize("seed", [20261125, 7])
def test_an_import_crashed_and_redelivered_with_replayed_triggers_indexes_exactly(
    seed: int, mode: str
) -> None:
    """``mode``: the job embeds each page and writes its notes together with their
    chunks (the in-memory index, as on the local stack); or, with term statistics
    kept (Vector Search's shape), writes them pending and then indexes each by the
    trigger's own write, racing the trigger's deliveries; or leaves every note to
    the trigger."""
    rng = random.Random(seed)
    h = Harness()
    c = h.container
    stats = MemoryTermStats()
    if mode != "with-chunks":  # before the indexer is built: it records into these
        c._built["term_stats"] = stats
    service = ImportService(
        c.settings, c.store, c.blobs, c.import_jobs, c.account_queue, page_size=PAGE,
        indexing=(lambda: c.indexing) if mode != "trigger-only" else None,
    )  # fmt: skip
    committed: list[str] = []  # what the job's own commits did, note by note
    commit = c.indexing.commit

    def counted(ready: Any) -> Any:
        result = commit(ready)
        committed.append(result.outcome.value)
        return result

    c.indexing.commit = counted  # type: ignore[method-assign,assignment]
    data, dates = vault(rng)
    name = service.upload(IMPORTER, "job-1", data)
    job_id = service.start(IMPORTER, "job-1", name).id

    with ThreadPoolExecutor(max_workers=4) as pool:
        trigger = Trigger(h, rng, pool)
        crashes = Crashes(h, trigger)
        other_tenant_writes(h, trigger, rng, 30)

        # Delivery 1 dies right after the write of its third page (the one holding
        # note 17; the cursor was saved at 14): notes 15-21 are written (with their
        # chunks, or pending), and their page is not saved.
        crashes.plan[2 * PAGE + 3] = "after"
        assert run(service, job_id) is None
        stored = c.import_jobs.get(job_id)
        assert stored is not None and stored.cursor == 2 * PAGE and stored.status == "running"
        edited = edit_imported(h, trigger, rng, 5)  # some of them in the unsaved page
        other_tenant_writes(h, trigger, rng, 20)

        # Delivery 2 comes as two concurrent copies (Pub/Sub at least once); one of
        # them dies before a write further on. The other goes on.
        crashes.plan[crashes.writes + 4 * PAGE + 2] = "before"
        with ThreadPoolExecutor(max_workers=2) as twins:
            copies = [twins.submit(run, service, job_id) for _ in range(2)]
            outcomes = [f.result() for f in copies]
        assert crashes.crashed == ["after", "before"] and None in outcomes
        other_tenant_writes(h, trigger, rng, 20)
        edited |= edit_imported(h, trigger, rng, 5)

        # The crashed copy's redelivery, and a late duplicate of it.
        final = run(service, job_id)
        late = run(service, job_id)
        trigger.drain()

    assert final is not None and final.status == "done", (final, outcomes)
    if mode == "with-chunks":  # every note written with its chunks by the job, once
        assert sorted(crashes.with_chunks) == sorted(
            n.id for n in h.store.notes.values() if n.tenant_id == IMPORTER
        )
        assert not committed
    else:
        assert not crashes.with_chunks
    if mode == "then-commit":  # most notes indexed by the job; the trigger raced it for some
        assert Counter(committed)["indexed"] > NOTES // 2, Counter(committed)
    if mode == "trigger-only":
        assert not committed
    assert len(trigger.futures) >= 3 * (NOTES + 10 + 30)  # every event, three times
    assert late == final
    # The report counts each file once, however many deliveries read it.
    assert final.found == NOTES and final.failed == 0
    assert final.imported + final.duplicates == NOTES

    # Exactly one note per file, with its own date; edits stand.
    mine = [n for n in h.store.notes.values() if n.tenant_id == IMPORTER]
    assert Counter(n.title for n in mine) == Counter(dates.keys())
    for note in mine:
        assert note.created_at == dates[note.title]
        if note.title in edited:
            assert note.text == edited[note.title]
            assert note.version > 1
        else:
            assert note.version == 1 and "EDITED" not in note.text

    # Chunks, states and corpora equal a fresh index of the final notes.
    deleted = {
        note_id for note_id, state in h.store.states.items() if state.status.value == "deleted"
    }
    assert deleted and all(note_id not in h.store.notes for note_id in deleted)
    assert_exact(h, deleted)
    # BM25 term statistics equal a count from scratch, per tenant.
    for tenant in (IMPORTER, OTHER) if mode != "with-chunks" else ():
        docs, length, df = expected_stats(h, tenant)
        assert docs >= (NOTES if tenant == IMPORTER else 10)
        assert stats_of(stats, tenant) == (docs, length, df)
