"""Import jobs in Firestore: ``imports/{jobId}``, with the ``tenantId`` that account
deletion finds them by. Progress is saved by a transaction that checks the cursor it
started from, so two deliveries of one page never both count it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from footnote.adapters.firestore_common import FirestoreRepository
from footnote.domain import ExportJob, ImportJob, ImportProblem

IMPORTS = "imports"
UPLOAD_SESSIONS = "uploadSessions"


def _doc(job: ImportJob) -> dict[str, Any]:
    return {
        "tenantId": job.tenant_id,
        "object": job.object_name,
        "createdAt": job.created_at,
        "status": job.status,
        "cursor": job.cursor,
        "found": job.found,
        "imported": job.imported,
        "duplicates": job.duplicates,
        "failed": job.failed,
        "problems": [{"file": p.file, "reason": p.reason} for p in job.problems],
        "reason": job.reason,
        "startedAt": job.started_at,
        "finishedAt": job.finished_at,
        "attempts": job.attempts,
        "updatedAt": job.updated_at or datetime.now(UTC),
    }


def _job(job_id: str, d: dict[str, Any]) -> ImportJob:
    return ImportJob(
        id=job_id,
        tenant_id=d["tenantId"],
        object_name=d["object"],
        created_at=d["createdAt"],
        status=d.get("status", "queued"),
        cursor=int(d.get("cursor", 0)),
        found=int(d.get("found", 0)),
        imported=int(d.get("imported", 0)),
        duplicates=int(d.get("duplicates", 0)),
        failed=int(d.get("failed", 0)),
        problems=tuple(ImportProblem(p["file"], p["reason"]) for p in d.get("problems") or ()),
        reason=d.get("reason"),
        started_at=d.get("startedAt"),
        finished_at=d.get("finishedAt"),
        attempts=int(d.get("attempts", 0)),
        updated_at=d.get("updatedAt"),
    )


class FirestoreImportJobs(FirestoreRepository):
    def _ref(self, job_id: str) -> Any:
        return self.client.collection(IMPORTS).document(job_id)

    def create(self, job: ImportJob) -> ImportJob:
        from google.api_core.exceptions import AlreadyExists

        try:
            self._ref(job.id).create(_doc(job))
            return job
        except AlreadyExists:
            stored = self.get(job.id)
            assert stored is not None
            return stored

    def get(self, job_id: str) -> ImportJob | None:
        snap = self._ref(job_id).get()
        return _job(job_id, snap.to_dict() or {}) if snap.exists else None

    def save(self, job: ImportJob, expected_cursor: int) -> bool:
        @self._fs.transactional
        def run(tx: Any) -> bool:
            snap = self._ref(job.id).get(transaction=tx)
            d = snap.to_dict() or {}
            if (
                not snap.exists
                or d.get("cursor") != expected_cursor
                or d.get("status") == "cancelled"
            ):
                return False
            tx.set(self._ref(job.id), _doc(job))
            return True

        return bool(run(self.client.transaction()))

    def unfinished(self, limit: int) -> list[ImportJob]:
        # An equality filter on one field: Firestore's automatic index serves it.
        query = (
            self.client.collection(IMPORTS)
            .where(filter=self._where("status", "in", ["queued", "running"]))
            .limit(limit)
        )
        return [_job(s.id, s.to_dict() or {}) for s in query.stream()]

    def record_upload(self, tenant_id: str, upload_id: str, url: str, expires: datetime) -> None:
        self.client.collection(UPLOAD_SESSIONS).document(upload_id).set(
            {"tenantId": tenant_id, "url": url, "expiresAt": expires}
        )

    def uploads(self, tenant_id: str, limit: int) -> list[tuple[str, str]]:
        query = (
            self.client.collection(UPLOAD_SESSIONS)
            .where(filter=self._where("tenantId", "==", tenant_id))
            .limit(limit)
        )
        return [(s.id, str((s.to_dict() or {}).get("url", ""))) for s in query.stream()]

    def forget_uploads(self, upload_ids: Sequence[str]) -> None:
        batch = self.client.batch()
        for upload_id in upload_ids:
            batch.delete(self.client.collection(UPLOAD_SESSIONS).document(upload_id))
        batch.commit()

    def cancel(self, job_id: str) -> ImportJob | None:
        @self._fs.transactional
        def run(tx: Any) -> ImportJob | None:
            snap = self._ref(job_id).get(transaction=tx)
            if not snap.exists:
                return None
            job = _job(job_id, snap.to_dict() or {})
            if not job.finished:
                tx.update(
                    self._ref(job_id), {"status": "cancelled", "updatedAt": datetime.now(UTC)}
                )
                job = _job(job_id, {**(snap.to_dict() or {}), "status": "cancelled"})
            return job

        result: ImportJob | None = run(self.client.transaction())
        return result


EXPORTS = "exports"


class FirestoreExportJobs(FirestoreRepository):
    """Export jobs: ``exports/{jobId}``, with the ``tenantId`` account deletion finds
    them by (its ``exports`` step)."""

    def _ref(self, job_id: str) -> Any:
        return self.client.collection(EXPORTS).document(job_id)

    def create(self, job: ExportJob) -> ExportJob:
        from google.api_core.exceptions import AlreadyExists

        try:
            self._ref(job.id).create(_export_doc(job))
            return job
        except AlreadyExists:
            stored = self.get(job.id)
            assert stored is not None
            return stored

    def get(self, job_id: str) -> ExportJob | None:
        snap = self._ref(job_id).get()
        return _export_job(job_id, snap.to_dict() or {}) if snap.exists else None

    def save(self, job: ExportJob) -> None:
        self._ref(job.id).set(_export_doc(job))

    def unfinished(self, limit: int) -> list[ExportJob]:
        # An equality filter on one field: Firestore's automatic index serves it.
        query = (
            self.client.collection(EXPORTS)
            .where(filter=self._where("status", "==", "queued"))
            .limit(limit)
        )
        return [_export_job(s.id, s.to_dict() or {}) for s in query.stream()]

    def claim(self, job: ExportJob, now: datetime) -> bool:
        @self._fs.transactional
        def run(tx: Any) -> bool:
            snap = self._ref(job.id).get(transaction=tx)
            d = snap.to_dict() or {}
            if (
                not snap.exists
                or d.get("status") != "queued"
                or d.get("updatedAt") != job.updated_at
            ):
                return False
            tx.update(self._ref(job.id), {"updatedAt": now})
            return True

        return bool(run(self.client.transaction()))


def _export_job(job_id: str, d: dict[str, Any]) -> ExportJob:
    return ExportJob(
        id=job_id,
        tenant_id=d["tenantId"],
        created_at=d["createdAt"],
        status=d.get("status", "queued"),
        object_name=d.get("object", ""),
        notes=int(d.get("notes", 0)),
        conversations=int(d.get("conversations", 0)),
        size=int(d.get("size", 0)),
        finished_at=d.get("finishedAt"),
        reason=d.get("reason"),
        attempts=int(d.get("attempts", 0)),
        updated_at=d.get("updatedAt"),
    )


def _export_doc(job: ExportJob) -> dict[str, Any]:
    return {
        "tenantId": job.tenant_id,
        "createdAt": job.created_at,
        "status": job.status,
        "object": job.object_name,
        "notes": job.notes,
        "conversations": job.conversations,
        "size": job.size,
        "finishedAt": job.finished_at,
        "reason": job.reason,
        "attempts": job.attempts,
        "updatedAt": job.updated_at,
    }
