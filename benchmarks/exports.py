"""How long an export of a big notebook takes, and how much memory it holds.

    python benchmarks/exports.py [--notes 5000]

In process (memory store, in-memory blob store): N notes of ~1,000 characters and one
conversation per 25 notes, exported to one zip; printed: seconds, notes/s, the
archive's size, and the peak traced memory of the export beside the size of the
notes themselves (the export pages through notes; the zip itself sits in the
in-memory blob store here, in Cloud Storage in production, and is not counted).
Then the archive is imported into a second account and compared, note by note.
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=5000)
    args = parser.parse_args()

    from footnote.config import Settings
    from footnote.domain import Note, Turn
    from footnote.wiring import Container

    c = Container(
        Settings(NOTE_STORE="memory", EMBEDDER="hash", REINDEX_QUEUE="inline",
                 QUOTA_NOTES_PER_DAY=0, QUOTA_STORED_CHARS=0, QUOTA_EXPORTS_PER_DAY=0)
    )  # fmt: skip
    store: Any = c.store
    start = datetime(2021, 1, 1, tzinfo=UTC)
    sentence = "Met the team about the spring launch; budget and dates agreed, see the plan. "
    for i in range(args.notes):
        when = start + timedelta(hours=7 * i)
        store.create_note(Note(f"n{i}", "alice", f"Note {i}. " + (sentence * 13).strip(), when, when,
                               title=f"Note {i}", tags=("work",)))  # fmt: skip
    for i in range(args.notes // 25):
        when = start + timedelta(days=i)
        store.append_turns([
            Turn(f"q{i}", f"c{i}", "alice", "user", "What did we agree?", when),
            Turn(f"a{i}", f"c{i}", "alice", "assistant", "Budget and dates [N1].", when,
                 ({"cid": "N1", "noteId": f"n{i}"},)),
        ])  # fmt: skip
    notes_bytes = sum(len(n.text.encode()) for n in store.notes.values())

    tracemalloc.start()
    t0 = time.perf_counter()
    c.exports.start("alice", "e1")
    job = c.exports.run("alice", "e1")
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    name = c.imports.upload("bob", "j1/export.zip", c.blobs.open_read(job.object_name).read())
    c.imports.start("bob", "j1", name)
    imported = c.imports.run("bob", "j1")

    def shape(tenant: str) -> list[tuple[Any, ...]]:
        return sorted(
            (n.title, n.text, n.tags, n.created_at, n.updated_at)
            for n in store.notes.values()
            if n.tenant_id == tenant
        )

    print(
        json.dumps(
            {
                "notes": job.notes,
                "conversations": job.conversations,
                "exportSeconds": round(seconds, 2),
                "notesPerSecond": round(job.notes / seconds),
                "archiveMiB": round(job.size / 2**20, 2),
                "notesTextMiB": round(notes_bytes / 2**20, 2),
                "exportPeakTracedMiB": round(peak / 2**20, 2),
                "roundTripImported": imported.imported,
                "roundTripExact": shape("bob") == shape("alice"),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
