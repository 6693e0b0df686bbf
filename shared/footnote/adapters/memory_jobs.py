"""Re-index job progress in process memory: the offline twin of ``FirestoreJobStore``."""

from __future__ import annotations

import threading
from dataclasses import replace

from footnote.domain import Job


class MemoryJobStore:
    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def create(self, job_id: str, scope: str, tenant_id: str | None) -> Job:
        with self._lock:
            job = Job(job_id, scope, tenant_id)
            self._jobs[job_id] = job
            return job

    def get_or_create(self, job_id: str, scope: str, tenant_id: str | None) -> Job:
        with self._lock:
            return self._jobs.setdefault(job_id, Job(job_id, scope, tenant_id))

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def advance(
        self, job_id: str, expected: str | None, cursor: str | None, processed: int, done: bool
    ) -> bool:
        with self._lock:
            job = self._jobs[job_id]
            if job.cursor != expected or job.done:
                return False
            self._jobs[job_id] = replace(
                job,
                cursor=cursor,
                previous_cursor=expected,
                processed=job.processed + processed,
                done=done,
            )
            return True
