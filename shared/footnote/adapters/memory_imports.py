"""Import and export jobs in process memory: the offline twins of the Firestore stores."""

from __future__ import annotations

import threading
from dataclasses import replace

from footnote.domain import ExportJob, ImportJob


class MemoryImportJobs:
    def __init__(self) -> None:
        self.jobs: dict[str, ImportJob] = {}
        self._lock = threading.Lock()

    def create(self, job: ImportJob) -> ImportJob:
        with self._lock:
            return self.jobs.setdefault(job.id, job)

    def get(self, job_id: str) -> ImportJob | None:
        return self.jobs.get(job_id)

    def save(self, job: ImportJob, expected_cursor: int) -> bool:
        with self._lock:
            stored = self.jobs.get(job.id)
            if stored is None or stored.cursor != expected_cursor or stored.status == "cancelled":
                return False
            self.jobs[job.id] = job
            return True

    def cancel(self, job_id: str) -> ImportJob | None:
        with self._lock:
            job = self.jobs.get(job_id)
            if job is not None and not job.finished:
                job = self.jobs[job_id] = replace(job, status="cancelled")
            return job

    def purge(self, tenant_id: str, limit: int) -> int:
        with self._lock:
            mine = [k for k, j in self.jobs.items() if j.tenant_id == tenant_id][:limit]
            for key in mine:
                del self.jobs[key]
            return len(mine)


class MemoryExportJobs:
    """Export jobs in process memory: the offline twin of ``FirestoreExportJobs``."""

    def __init__(self) -> None:
        self.jobs: dict[str, ExportJob] = {}
        self._lock = threading.Lock()

    def create(self, job: ExportJob) -> ExportJob:
        with self._lock:
            return self.jobs.setdefault(job.id, job)

    def get(self, job_id: str) -> ExportJob | None:
        return self.jobs.get(job_id)

    def save(self, job: ExportJob) -> None:
        with self._lock:
            self.jobs[job.id] = job

    def purge(self, tenant_id: str, limit: int) -> int:
        with self._lock:
            mine = [k for k, j in self.jobs.items() if j.tenant_id == tenant_id][:limit]
            for key in mine:
                del self.jobs[key]
            return len(mine)
