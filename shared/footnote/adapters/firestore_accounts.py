"""Firestore TenantData: where each of a tenant's documents lives, for deletion, and
the deletion job (``accountDeletions/{jobId}``).

By ``tenantId`` field: notes, noteChunks, indexState, conversations, messages,
reindexJobs, imports, termStatsNotes, exports, embeddingCache. By document id: quotas
(``{uid}:…``), termStats (``{uid}~{row}``) and tenants (``{uid}``).
``tests/emulator/test_account_deletion.py`` lists every collection of the emulator
(not these names) to prove the list is complete.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from footnote.adapters.firestore_common import (
    ACCOUNT_DELETIONS,
    CHUNK_IDS,
    CHUNKS,
    CONVERSATIONS,
    EMBEDDINGS,
    JOBS,
    MESSAGES,
    NOTE_CHANGES,
    NOTES,
    STATES,
    TENANTS,
    FirestoreRepository,
)
from footnote.adapters.firestore_idempotency import IDEMPOTENCY
from footnote.adapters.firestore_imports import IMPORTS
from footnote.adapters.firestore_quota import QUOTAS
from footnote.adapters.firestore_term_stats import NOTES as TERM_NOTES
from footnote.adapters.firestore_term_stats import ROWS as TERM_ROWS
from footnote.domain import DeletionJob, deletion_job_id

EXPORTS = "exports"
_BY_TENANT_FIELD = {
    # A note's change-feed entry and the stored responses of its idempotent requests
    # go with the notes.
    "notes": (NOTES, NOTE_CHANGES, IDEMPOTENCY),
    "conversations": (CONVERSATIONS,),
    "messages": (MESSAGES,),
    "jobs": (JOBS, IMPORTS),
    "termStats": (TERM_NOTES,),
    "exports": (EXPORTS,),
    "embeddings": (EMBEDDINGS,),
}
_BY_ID_PREFIX = {"quotas": (QUOTAS, ":"), "termStats": (TERM_ROWS, "~")}
_VECTOR_AREAS = {"chunks": CHUNKS, "states": STATES}
_BATCH = 400  # under Firestore's 500 writes per commit


class FirestoreTenantData(FirestoreRepository):
    # -- the job and its fence --------------------------------------------------------
    def _job_ref(self, job_id: str) -> Any:
        return self.client.collection(ACCOUNT_DELETIONS).document(job_id)

    def begin_deletion(self, job_id: str, now: datetime) -> DeletionJob:
        from google.api_core.exceptions import AlreadyExists

        with contextlib.suppress(AlreadyExists):
            self._job_ref(job_id).create(
                {"step": "revoke", "fencedAt": now, "updatedAt": now, "deleted": {}}
            )
        job = self.deletion(job_id)
        assert job is not None
        return job

    def deletion(self, job_id: str) -> DeletionJob | None:
        snap = self._job_ref(job_id).get()
        if not snap.exists:
            return None
        d = snap.to_dict() or {}
        return DeletionJob(
            job_id,
            d.get("step", "revoke"),
            d["fencedAt"],
            {k: int(v) for k, v in (d.get("deleted") or {}).items()},
        )

    def record_step(self, job_id: str, step: str, deleted: Mapping[str, int]) -> None:
        fields: dict[str, Any] = {"step": step, "updatedAt": datetime.now(UTC)}
        for area, n in deleted.items():
            fields[f"deleted.{area}"] = self._fs.Increment(n)
        self._job_ref(job_id).update(fields)

    def is_deleting(self, tenant_id: str) -> bool:
        return bool(self._job_ref(deletion_job_id(tenant_id)).get().exists)

    # -- the tenant's data ------------------------------------------------------------
    def vector_page(self, tenant_id: str, area: str, limit: int) -> tuple[list[str], list[str]]:
        query = (
            self.client.collection(_VECTOR_AREAS[area])
            .where(filter=self._where("tenantId", "==", tenant_id))
            .limit(limit)
        )
        if area == "chunks":
            ids = [s.id for s in query.select([]).stream()]
            return ids, ids
        docs: list[str] = []
        named: set[str] = set()
        for snap in query.select([CHUNK_IDS]).stream():
            docs.append(snap.id)
            named.update((snap.to_dict() or {}).get(CHUNK_IDS) or ())
        return docs, sorted(named)

    def delete_documents(self, area: str, doc_ids: Sequence[str]) -> None:
        self._delete(self.client.collection(_VECTOR_AREAS[area]), doc_ids)

    def purge(self, tenant_id: str, area: str, limit: int) -> int:
        if area == "tenant":
            ref = self.client.collection(TENANTS).document(tenant_id)
            found = ref.get().exists
            ref.delete()
            return int(found)
        gone = 0
        for name in _BY_TENANT_FIELD.get(area, ()):
            collection = self.client.collection(name)
            query = collection.where(filter=self._where("tenantId", "==", tenant_id))
            gone += self._delete_query(collection, query, limit - gone)
        if area in _BY_ID_PREFIX and gone < limit:
            name, separator = _BY_ID_PREFIX[area]
            collection = self.client.collection(name)
            prefix = f"{tenant_id}{separator}"
            query = collection.where(
                filter=self._where("__name__", ">=", collection.document(prefix))
            ).where(filter=self._where("__name__", "<", collection.document(prefix + "\uf8ff")))
            gone += self._delete_query(collection, query, limit - gone)
        if area not in _BY_TENANT_FIELD and area not in _BY_ID_PREFIX:
            raise ValueError(f"no area {area!r}")
        return gone

    def tenants_after(self, after: str | None, limit: int) -> list[str]:
        # Each collection that names its tenant in a field gives its next distinct
        # tenant ids one read each (``tenantId > last``, ordered, limit 1): the walk
        # costs a read per tenant and collection, never a read per document. Ids kept
        # in document names (quotas, term-stat rows) belong to tenants these hold.
        found: set[str] = set()
        for name in (*{c for cs in _BY_TENANT_FIELD.values() for c in cs}, CHUNKS, STATES):
            collection = self.client.collection(name)
            last = after
            for _ in range(limit):
                query = collection.order_by("tenantId")
                if last is not None:
                    query = query.where(filter=self._where("tenantId", ">", last))
                snaps = list(query.select(["tenantId"]).limit(1).stream())
                if not snaps:
                    break
                last = str((snaps[0].to_dict() or {}).get("tenantId"))
                found.add(last)
        tenants = self.client.collection(TENANTS)
        query = tenants.order_by("__name__")
        if after is not None:
            query = query.start_after({"__name__": tenants.document(after)})
        found.update(s.id for s in query.select([]).limit(limit).stream())
        return sorted(found)[:limit]

    def _delete_query(self, collection: Any, query: Any, limit: int) -> int:
        if limit <= 0:
            return 0
        ids = [s.id for s in query.select([]).limit(limit).stream()]
        self._delete(collection, ids)
        return len(ids)

    def _delete(self, collection: Any, ids: Sequence[str]) -> None:
        for i in range(0, len(ids), _BATCH):
            batch = self.client.batch()
            for doc_id in ids[i : i + _BATCH]:
                batch.delete(collection.document(doc_id))
            batch.commit()
