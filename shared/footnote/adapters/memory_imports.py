"""Import and export jobs in process memory: the offline twins of the Firestore stores."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Generic, Protocol, TypeVar

from footnote.domain import ExportJob, ImportJob


class _TenantJob(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def tenant_id(self) -> str: ...


J = TypeVar("J", bound=_TenantJob)


class _MemoryJobs(Generic[J]):
    """Jobs by id, each owned by a tenant: what both kinds share."""

    def __init__(self) -> None:
        self.jobs: dict[str, J] = {}
        self._lock = threading.Lock()

    def create(self, job: J) -> J:
        with self._lock:
            return self.jobs.setdefault(job.id, job)

    def get(self, job_id: str) -> J | None:
        return self.jobs.get(job_id)

    def purge(self, tenant_id: str, limit: int) -> int:
        """Account deletion: up to ``limit`` of the tenant's jobs; how many went."""
        with self._lock:
            mine = [k for k, j in self.jobs.items() if j.tenant_id == tenant_id][:limit]
            for key in mine:
                del self.jobs[key]
            return len(mine)


class MemoryImportJobs(_MemoryJobs[ImportJob]):
    def __init__(self) -> None:
        super().__init__()
        self.sessions: dict[str, tuple[str, str]] = {}  # upload id -> (tenant, URL)

    def record_upload(self, tenant_id: str, upload_id: str, url: str, expires: datetime) -> None:
        with self._lock:
            self.sessions[upload_id] = (tenant_id, url)

    def uploads(self, tenant_id: str, limit: int) -> list[tuple[str, str]]:
        with self._lock:
            mine = [(k, url) for k, (t, url) in self.sessions.items() if t == tenant_id]
        return mine[:limit]

    def forget_uploads(self, upload_ids: Sequence[str]) -> None:
        with self._lock:
            for upload_id in upload_ids:
                self.sessions.pop(upload_id, None)

    def save(self, job: ImportJob, expected_cursor: int) -> bool:
        with self._lock:
            stored = self.jobs.get(job.id)
            if stored is None or stored.cursor != expected_cursor or stored.status == "cancelled":
                return False
            self.jobs[job.id] = job
            return True

    def unfinished(self, limit: int) -> list[ImportJob]:
        with self._lock:
            return [j for j in self.jobs.values() if not j.finished][:limit]

    def cancel(self, job_id: str) -> ImportJob | None:
        with self._lock:
            job = self.jobs.get(job_id)
            if job is not None and not job.finished:
                job = self.jobs[job_id] = replace(job, status="cancelled")
            return job


class MemoryExportJobs(_MemoryJobs[ExportJob]):
    def save(self, job: ExportJob) -> None:
        with self._lock:
            self.jobs[job.id] = job

    def unfinished(self, limit: int) -> list[ExportJob]:
        with self._lock:
            return [j for j in self.jobs.values() if not j.finished][:limit]

    def claim(self, job: ExportJob, now: datetime) -> bool:
        with self._lock:
            stored = self.jobs.get(job.id)
            if stored is None or stored.finished or stored.updated_at != job.updated_at:
                return False
            self.jobs[job.id] = replace(stored, updated_at=now)
            return True
