"""Re-index a note, a tenant, everything, or every unindexed note, page by page.

A job's progress lives in ``reindexJobs/{jobId}``: the cursor of the next page.
Each Pub/Sub message carries the cursor its page starts at; a page is
committed only if the job's cursor still equals it, so duplicated or replayed
messages never fork the chain, and a crash mid-page redoes just that page
(indexing is idempotent).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from footnote.errors import BadEvent
from footnote.ports import ChunkStore, JobStore, NoteStore, ReindexQueue
from footnote.services.indexing import IndexingService

log = logging.getLogger(__name__)


class ReindexRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    scope: Literal["note", "tenant", "all", "unindexed"]
    note_id: str | None = Field(None, alias="noteId", min_length=1, max_length=200)
    tenant_id: str | None = Field(None, alias="tenantId", min_length=1, max_length=200)
    job_id: str | None = Field(None, alias="jobId", min_length=1, max_length=100)
    cursor: str | None = None
    force: bool = False

    @model_validator(mode="after")
    def _needs(self) -> ReindexRequest:
        if self.scope == "note" and not self.note_id:
            raise ValueError("scope 'note' needs noteId")
        if self.scope == "tenant" and not self.tenant_id:
            raise ValueError("scope 'tenant' needs tenantId")
        return self

    def wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True)


def parse_request(data: Mapping[str, Any]) -> ReindexRequest:
    try:
        return ReindexRequest.model_validate(data)
    except ValidationError as exc:
        raise BadEvent("re-index request is not valid", exc.errors(include_url=False)) from None


@dataclass(frozen=True)
class PageResult:
    job_id: str
    processed: int
    next_cursor: str | None
    skipped: bool = False  # a duplicate or stale message


class ReindexService:
    def __init__(
        self,
        indexing: IndexingService,
        notes: NoteStore,
        chunks: ChunkStore,
        jobs: JobStore,
        queue: ReindexQueue,
        page_size: int,
    ) -> None:
        self._indexing = indexing
        self._notes = notes
        self._chunks = chunks
        self._jobs = jobs
        self._queue = queue
        self._page_size = page_size

    def start(self, request: ReindexRequest) -> str:
        """Create a job and publish its first page; returns the job id."""
        job_id = request.job_id or uuid.uuid4().hex
        self._jobs.create(job_id, request.scope, request.tenant_id)
        self._queue.publish(request.model_copy(update={"job_id": job_id, "cursor": None}).wire())
        return job_id

    def handle(self, request: ReindexRequest) -> PageResult:
        if request.scope == "note":
            assert request.note_id is not None
            self._indexing.index_note(request.note_id, force=request.force)
            return PageResult(request.job_id or "", 1, None)

        job_id = request.job_id or uuid.uuid4().hex
        job = self._jobs.get_or_create(job_id, request.scope, request.tenant_id)
        if job.done:
            return PageResult(job_id, 0, None, skipped=True)
        if job.cursor != request.cursor:
            if job.previous_cursor == request.cursor and job.cursor is not None:
                # This page was committed but its successor may never have been
                # published (a crash in between): publish it again. A duplicate
                # is harmless: only one commit of the next page can succeed.
                self._publish_next(request, job.cursor)
            return PageResult(job_id, 0, job.cursor, skipped=True)

        ids = self._page(request)
        for note_id in ids:
            self._indexing.index_note(note_id, force=request.force)
        last = ids[-1] if ids else request.cursor
        done = len(ids) < self._page_size
        if not self._jobs.advance(job_id, request.cursor, last, len(ids), done):
            return PageResult(job_id, len(ids), None, skipped=True)
        if not done:
            assert last is not None
            self._publish_next(request, last)
        return PageResult(job_id, len(ids), None if done else last)

    def _page(self, request: ReindexRequest) -> list[str]:
        if request.scope == "unindexed":
            return self._chunks.unindexed_note_ids(request.cursor, self._page_size)
        tenant = request.tenant_id if request.scope == "tenant" else None
        return self._notes.note_ids(tenant, request.cursor, self._page_size)

    def _publish_next(self, request: ReindexRequest, cursor: str) -> None:
        self._queue.publish(request.model_copy(update={"cursor": cursor}).wire())
