"""How long deleting a big account takes: the deletion job's Firestore steps against
the real emulator, for a tenant of N notes (default 5,000), in process.

    python benchmarks/account_deletion.py [--notes 5000]   # starts the emulators itself

The account is written straight into Firestore in the layout the stores use (a note,
its chunk, its index state and its change-feed entry per note; a conversation with two
messages per 25 notes; quota counters; the version counter), in a project no function
watches, so nothing is indexed meanwhile. The job then runs with no grace wait against
a vector index that only counts the datapoints it is asked to remove. Printed: the
time of each step, documents deleted per second, and what the same deletion costs in
production operations (Firestore document deletes and reads, Vector Search removals).
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any


class CountingVectorIndex:
    """Stands in for Vector Search: counts the datapoints removed, by id."""

    name = "counting"

    def __init__(self) -> None:
        self.removed = 0
        self.calls = 0

    def remove(self, tenant_id: str, chunk_ids: Sequence[str]) -> None:
        self.removed += len(chunk_ids)
        self.calls += 1


def write_account(client: Any, tenant: str, notes: int) -> int:
    now = datetime.now(UTC)
    docs: list[tuple[str, str, dict[str, Any]]] = []
    for i in range(notes):
        note_id = f"{tenant}-n{i}"
        chunk_id = f"{note_id}-c0"
        text = f"Note {i}: the shed plan, week {i % 52}, budget {i * 7} euros."
        docs += [
            ("notes", note_id, {"tenantId": tenant, "text": text, "createdAt": now}),
            ("noteChunks", chunk_id, {"tenantId": tenant, "noteId": note_id, "text": text}),
            ("indexState", note_id, {"tenantId": tenant, "chunkIds": [chunk_id]}),
            ("noteChanges", note_id, {"tenantId": tenant, "changedAt": now}),
            ("termStatsNotes", note_id, {"tenantId": tenant, "terms": {"shed": 1}}),
        ]
    for i in range(notes // 25):
        docs.append(("conversations", f"{tenant}-c{i}", {"tenantId": tenant, "title": "q"}))
        for role in ("user", "assistant"):
            docs.append(("messages", f"{tenant}-c{i}-{role}", {"tenantId": tenant, "role": role}))
    docs += [("quotas", f"{tenant}:notes:{d}", {"count": 50}) for d in range(30)]
    docs.append(("tenants", tenant, {"version": notes}))
    for start in range(0, len(docs), 400):
        batch = client.batch()
        for collection, doc_id, body in docs[start : start + 400]:
            batch.set(client.collection(collection).document(doc_id), body)
        batch.commit()
    return len(docs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=5000)
    args = parser.parse_args()

    import os

    from google.cloud import firestore

    from footnote.adapters.firestore_accounts import FirestoreTenantData
    from footnote.adapters.memory_accounts import MemoryAccountAuth
    from footnote.adapters.pubsub_queue import InlineQueue
    from footnote.dev.prerequisites import Ports
    from footnote.dev.stack import Stack
    from footnote.domain import deletion_job_id
    from footnote.services.accounts import AccountService

    stack = Stack(Ports.free())
    stack.start(with_functions=False)
    try:
        os.environ.update(stack.client_env())
        client = firestore.Client(project=f"bench-{uuid.uuid4().hex[:6]}")
        tenant = f"bench-{uuid.uuid4().hex[:8]}"
        t0 = time.perf_counter()
        written = write_account(client, tenant, args.notes)
        write_s = time.perf_counter() - t0

        steps: dict[str, float] = {}
        mark = [time.perf_counter()]

        def after(step: str) -> None:
            if ":" not in step:
                now = time.perf_counter()
                steps[step] = round(now - mark[0], 2)
                mark[0] = now

        vectors = CountingVectorIndex()
        service = AccountService(
            FirestoreTenantData(client),
            vectors,  # type: ignore[arg-type]
            MemoryAccountAuth(),
            InlineQueue(),
            grace_s=0,
            budget_s=3600,
            after=after,
        )
        job_id = deletion_job_id(tenant)
        service._data.begin_deletion(job_id, datetime.now(UTC))
        t0 = time.perf_counter()
        mark[0] = t0
        run = service.run(tenant, job_id)
        delete_s = time.perf_counter() - t0
        deleted = sum(run.deleted.values())
        assert run.done and deleted == written, (run.deleted, written)
        left = FirestoreTenantData(client).tenants_after(None, 10)
        assert tenant not in left, left
        print(
            json.dumps(
                {
                    "notes": args.notes,
                    "documentsWritten": written,
                    "writeSeconds": round(write_s, 1),
                    "deleteSeconds": round(delete_s, 1),
                    "documentsDeletedPerSecond": round(deleted / delete_s),
                    "stepSeconds": steps,
                    "deletedByStep": run.deleted,
                    "production": {
                        "firestoreDeletes": deleted + 1,  # and the job's own record kept
                        "firestoreReads": "about one per document (each page is read with an empty projection before its batch delete)",
                        "vectorSearchRemovalsRequested": vectors.removed,  # chunk ids also named by indexState are asked twice (a no-op)
                        "vectorSearchRemoveCalls": vectors.calls,
                    },
                },
                indent=2,
            )
        )
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
