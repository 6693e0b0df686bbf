"""Re-index job progress in Firestore (``reindexJobs/{jobId}``): a cursor per job,
advanced by compare-and-set in a transaction."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from footnote.adapters.firestore_common import JOBS
from footnote.domain import Job

if TYPE_CHECKING:
    from google.cloud import firestore


class FirestoreJobStore:
    def __init__(self, client: firestore.Client, collection: str = JOBS) -> None:
        self._client = client
        self._collection = collection

    def _ref(self, job_id: str) -> Any:
        return self._client.collection(self._collection).document(job_id)

    def create(self, job_id: str, scope: str, tenant_id: str | None) -> Job:
        job = Job(job_id, scope, tenant_id)
        self._ref(job_id).set(_doc(job) | {"createdAt": datetime.now(UTC)})
        return job

    def get_or_create(self, job_id: str, scope: str, tenant_id: str | None) -> Job:
        existing = self.get(job_id)
        if existing is not None:
            return existing
        from google.api_core.exceptions import AlreadyExists

        job = Job(job_id, scope, tenant_id)
        try:
            self._ref(job_id).create(_doc(job) | {"createdAt": datetime.now(UTC)})
        except AlreadyExists:
            return self.get(job_id) or job
        return job

    def get(self, job_id: str) -> Job | None:
        snap = self._ref(job_id).get()
        return _job(job_id, snap.to_dict() or {}) if snap.exists else None

    def advance(
        self, job_id: str, expected: str | None, cursor: str | None, processed: int, done: bool
    ) -> bool:
        from google.cloud import firestore

        ref = self._ref(job_id)

        @firestore.transactional
        def run(tx: Any) -> bool:
            snap = ref.get(transaction=tx)
            job = _job(job_id, snap.to_dict() or {}) if snap.exists else None
            if job is None or job.cursor != expected or job.done:
                return False
            tx.set(
                ref,
                _doc(
                    replace(
                        job,
                        cursor=cursor,
                        previous_cursor=expected,
                        processed=job.processed + processed,
                        done=done,
                    )
                )
                | {"updatedAt": datetime.now(UTC)},
                merge=True,
            )
            return True

        return bool(run(self._client.transaction()))


def _doc(job: Job) -> dict[str, Any]:
    return {
        "scope": job.scope,
        "tenantId": job.tenant_id,
        "cursor": job.cursor,
        "previousCursor": job.previous_cursor,
        "processed": job.processed,
        "done": job.done,
    }


def _job(job_id: str, d: dict[str, Any]) -> Job:
    return Job(
        job_id=job_id,
        scope=d.get("scope", ""),
        tenant_id=d.get("tenantId"),
        cursor=d.get("cursor"),
        previous_cursor=d.get("previousCursor"),
        processed=int(d.get("processed", 0)),
        done=bool(d.get("done", False)),
    )
