"""Account deletion: ``DELETE /account`` starts a job that empties every store of the
tenant, then deletes the Auth user.

The job is ``accountDeletions/{jobId}`` (``jobId`` is a hash of the uid, so a
replayed or concurrent request names the same job). Its existence is the fence:
from the moment it is written the API refuses the tenant's writes, the stores refuse
a new note or conversation turn inside their transactions, and the indexer writes
nothing for the tenant. Work that began before the fence (a request, an indexer run)
ends within the longest function timeout: the ``grace`` step waits it out before
anything is deleted, so nothing written by it can land after its store was emptied.

Each step empties one area page by page until a query finds nothing, and only then
records the next step: a crash anywhere redoes at most the step it was in, which
finds less to do (every step is idempotent), and the redelivered message finishes
the job. Vector Search datapoints are removed by id before the documents naming
them are deleted (``chunks``, then ``states``, whose ``chunkIds`` name vectors the
API already unlinked), so a crash never strands a vector. The Auth user goes last:
until then the account exists and a sweep can find it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from footnote.domain import DELETION_STEPS, DeletionJob, deletion_job_id
from footnote.errors import BadEvent, InvalidRequest, NotFound
from footnote.ports import (
    AccountAuth,
    BlobStore,
    ImportJobStore,
    ReindexQueue,
    TenantData,
    VectorIndex,
)

log = logging.getLogger(__name__)

DELETE_ACCOUNT = "deleteAccount"  # the ``job`` of a deletion message
SWEEP_ACCOUNTS = "sweepAccounts"  # the ``job`` of the scheduled orphan sweep
_VECTOR_AREAS = ("chunks", "states")


@dataclass(frozen=True)
class DeletionRun:
    job_id: str
    steps: tuple[str, ...] = ()  # the steps this delivery completed
    deleted: dict[str, int] = field(default_factory=dict)
    done: bool = False
    skipped: bool = False  # the job had already finished
    continued: bool = False  # out of time: a continuation message was published


class AccountService:
    def __init__(
        self,
        data: TenantData,
        vectors: VectorIndex,
        auth: AccountAuth,
        queue: ReindexQueue,
        *,
        grace_s: float,
        page_size: int = 400,
        budget_s: float = 420.0,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
        after: Callable[[str], None] | None = None,
        blobs: BlobStore | None = None,
        uploads: ImportJobStore | None = None,
    ) -> None:
        """``after`` is called after the work of each step (``"notes"``) and, in the
        vector steps, after a page's datapoints were removed and before its
        documents are deleted (``"chunks:page"``): tests inject crashes there."""
        self._data = data
        self._vectors = vectors
        self._auth = auth
        self._queue = queue
        self._grace = timedelta(seconds=grace_s)
        self._page = page_size
        self._budget = budget_s
        self._clock = clock
        self._sleep = sleep
        self._monotonic = monotonic
        self._after = after or (lambda _: None)
        self._blobs = blobs  # None: no file store (in-process harnesses without one)
        self._uploads = uploads  # the upload sessions handed out (None: none recorded)

    # -- the API's half -------------------------------------------------------------
    def is_deleting(self, tenant_id: str) -> bool:
        return self._data.is_deleting(tenant_id)

    def request_deletion(self, tenant_id: str, confirm: str) -> DeletionJob:
        """Start (or rejoin) the tenant's deletion; ``confirm`` must be the account's
        email address (its uid when it has none), compared without case."""
        job_id = deletion_job_id(tenant_id)
        user = self._auth.user(tenant_id)
        if user is None:
            job = self._data.deletion(job_id)
            if job is not None:
                return job  # a late replay: the account is already gone
            raise NotFound("account not found")
        expected = user.email or user.uid
        if confirm.strip().casefold() != expected.strip().casefold():
            raise InvalidRequest("confirm must be the account's email address")
        job = self._data.begin_deletion(job_id, self._clock())
        # At once, not when the job runs: from this answer on, the account cannot sign
        # in again nor refresh a token (the job's revoke step repeats it, idempotently).
        self._auth.revoke(tenant_id)
        if not job.done:
            # Published on every request: a replay after a lost publish restarts the
            # job; a duplicate runs idempotent steps twice, nothing worse.
            self._queue.publish(message(tenant_id, job_id))
        return job

    # -- the job --------------------------------------------------------------------
    def run(self, tenant_id: str, job_id: str) -> DeletionRun:
        if not tenant_id or deletion_job_id(tenant_id) != job_id:
            raise BadEvent("deletion message names another tenant's job")
        job = self._data.deletion(job_id) or self._data.begin_deletion(job_id, self._clock())
        if job.done:
            return DeletionRun(job_id, skipped=True, done=True)
        started = self._monotonic()
        completed: list[str] = []
        deleted: dict[str, int] = {}
        for index in range(DELETION_STEPS.index(job.step), len(DELETION_STEPS)):
            step = DELETION_STEPS[index]
            if completed and self._monotonic() - started > self._budget:
                self._queue.publish(message(tenant_id, job_id))
                return DeletionRun(job_id, tuple(completed), deleted, continued=True)
            count = self._step(step, tenant_id, job)
            self._after(step)
            following = DELETION_STEPS[index + 1] if index + 1 < len(DELETION_STEPS) else "done"
            self._data.record_step(job_id, following, {step: count} if count else {})
            completed.append(step)
            if count:
                deleted[step] = count
        log.info("account deletion %s finished: %s", job_id, deleted)
        return DeletionRun(job_id, tuple(completed), deleted, done=True)

    def _step(self, step: str, tenant_id: str, job: DeletionJob) -> int:
        if step == "revoke":
            self._auth.revoke(tenant_id)
            return 0
        if step == "grace":
            wait = (job.fenced_at + self._grace - self._clock()).total_seconds()
            if wait > 0:
                self._sleep(wait)
            return 0
        if step == "auth":
            self._auth.delete(tenant_id)
            return 0
        if step == "files":
            return self._cancel_uploads(tenant_id) + (
                self._blobs.delete_prefix(f"users/{tenant_id}/") if self._blobs else 0
            )
        if step in _VECTOR_AREAS:
            return self._vector_area(tenant_id, step)
        total = 0
        while (n := self._data.purge(tenant_id, step, self._page)) > 0:
            total += n
        return total

    def _cancel_uploads(self, tenant_id: str) -> int:
        """Every upload session handed out to the tenant, cancelled before its files
        are deleted: Cloud Storage keeps a session open for a week, and its URL would
        otherwise create ``users/{uid}/uploads/…`` after the account is gone."""
        if self._uploads is None or self._blobs is None:
            return 0
        total = 0
        while sessions := self._uploads.uploads(tenant_id, self._page):
            for _, url in sessions:
                self._blobs.cancel_upload(url)
            self._uploads.forget_uploads([upload_id for upload_id, _ in sessions])
            total += len(sessions)
        return total

    def _vector_area(self, tenant_id: str, area: str) -> int:
        total = 0
        while True:
            doc_ids, chunk_ids = self._data.vector_page(tenant_id, area, self._page)
            if not doc_ids:
                return total
            if chunk_ids:
                self._vectors.remove(tenant_id, chunk_ids)
            self._after(f"{area}:page")
            self._data.delete_documents(area, doc_ids)
            total += len(doc_ids)

    # -- the orphan sweep ---------------------------------------------------------------
    def sweep(self, after: str | None = None) -> SweepRun:
        """Start the deletion of every tenant whose Auth user is gone (deleted from the
        console or the Admin SDK, never through ``DELETE /account``). Walks every
        tenant in id order from ``after``; past the time budget it publishes its own
        continuation. A tenant whose deletion already began is left to its job (a
        dead-lettered job is retried from the dead-letter topic, not raced here).
        Auth errors propagate: a lookup that failed is never read as "no user"."""
        started = self._monotonic()
        checked = 0
        begun: list[str] = []
        while ids := self._data.tenants_after(after, self._page):
            for tenant_id in ids:
                checked += 1
                job_id = deletion_job_id(tenant_id)
                if self._auth.user(tenant_id) is None and self._data.deletion(job_id) is None:
                    self._data.begin_deletion(job_id, self._clock())
                    self._queue.publish(message(tenant_id, job_id))
                    begun.append(tenant_id)
            after = ids[-1]
            if self._monotonic() - started > self._budget:
                self._queue.publish(sweep_message(after))
                return SweepRun(checked, tuple(begun), continued=True)
        files = self._sweep_files(set(begun))
        if begun or files:
            log.info(
                "orphan sweep: deleting %d tenants without an Auth user, files of %d deleted",
                len(begun),
                len(files),
            )
        return SweepRun(checked, tuple(begun), files)

    def _sweep_files(self, begun: set[str]) -> tuple[str, ...]:
        """Files of users who no longer exist. An upload session handed out before an
        account's deletion can complete after its files step (Cloud Storage keeps a
        session open for a week); a user deleted elsewhere may hold only files. The
        first are deleted here, the second get a deletion job like any orphan."""
        if self._blobs is None:
            return ()
        cleared: list[str] = []
        for uid in self._blobs.folders("users/"):
            if uid in begun or self._auth.user(uid) is not None:
                continue
            job_id = deletion_job_id(uid)
            job = self._data.deletion(job_id)
            if job is None:
                self._data.begin_deletion(job_id, self._clock())
                self._queue.publish(message(uid, job_id))
            elif job.done and self._blobs.delete_prefix(f"users/{uid}/"):
                cleared.append(uid)
        return tuple(cleared)


@dataclass(frozen=True)
class SweepRun:
    checked: int  # tenants looked at by this delivery
    begun: tuple[str, ...] = ()  # tenants whose deletion it started
    files: tuple[str, ...] = ()  # deleted users whose files that arrived late it deleted
    continued: bool = False  # out of time: a continuation message was published


def sweep_message(after: str | None = None) -> dict[str, Any]:
    return {"job": SWEEP_ACCOUNTS, **({} if after is None else {"after": after})}


def message(tenant_id: str, job_id: str) -> dict[str, Any]:
    return {"job": DELETE_ACCOUNT, "tenantId": tenant_id, "jobId": job_id}


def crash_points() -> list[str]:
    """Every point the job can stop at: after each step, and between a vector page's
    removal and its documents' deletion."""
    points: list[str] = []
    for step in DELETION_STEPS:
        if step in _VECTOR_AREAS:
            points.append(f"{step}:page")
        points.append(step)
    return points


def status(job: DeletionJob) -> str:
    return "deleted" if job.done else "deleting"


__all__ = [
    "DELETE_ACCOUNT",
    "SWEEP_ACCOUNTS",
    "AccountService",
    "DeletionRun",
    "SweepRun",
    "crash_points",
    "message",
    "status",
    "sweep_message",
]
