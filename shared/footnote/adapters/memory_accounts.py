"""Account deletion in process memory: the offline twins of ``FirestoreTenantData``
and ``FirebaseAccountAuth``, over the in-memory store, quota counter, job store,
embedding cache and term statistics the container built."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from footnote.adapters.cached_embedder import MemoryEmbeddingCache
from footnote.adapters.memory_idempotency import MemoryIdempotencyStore
from footnote.adapters.memory_imports import MemoryImportJobs
from footnote.adapters.memory_jobs import MemoryJobStore
from footnote.adapters.memory_quota import MemoryQuotaCounter
from footnote.adapters.memory_store import MemoryStore
from footnote.adapters.memory_term_stats import MemoryTermStats
from footnote.domain import DeletionJob, deletion_job_id
from footnote.ports import AuthUser


class MemoryTenantData:
    def __init__(
        self,
        store: MemoryStore,
        quotas: MemoryQuotaCounter | None = None,
        jobs: MemoryJobStore | None = None,
        cache: MemoryEmbeddingCache | None = None,
        term_stats: MemoryTermStats | None = None,
        exports: Any = None,
        idempotency: MemoryIdempotencyStore | None = None,
        imports: MemoryImportJobs | None = None,
    ) -> None:
        self._store = store
        self._quotas = quotas
        self._jobs = jobs
        self._cache = cache
        self._stats = term_stats
        self._exports = exports
        self._idempotency = idempotency
        self._imports = imports
        self.deletions: dict[str, DeletionJob] = {}
        self._lock = threading.Lock()

    # -- the job and its fence --------------------------------------------------------
    def begin_deletion(self, job_id: str, now: datetime) -> DeletionJob:
        with self._lock:
            self._store.fenced.add(job_id)
            return self.deletions.setdefault(job_id, DeletionJob(job_id, "revoke", now))

    def deletion(self, job_id: str) -> DeletionJob | None:
        return self.deletions.get(job_id)

    def record_step(self, job_id: str, step: str, deleted: Mapping[str, int]) -> None:
        with self._lock:
            job = self.deletions[job_id]
            counts = dict(job.deleted)
            for k, v in deleted.items():
                counts[k] = counts.get(k, 0) + v
            self.deletions[job_id] = replace(job, step=step, deleted=counts)

    def is_deleting(self, tenant_id: str) -> bool:
        return deletion_job_id(tenant_id) in self.deletions

    # -- the tenant's data ------------------------------------------------------------
    def vector_page(self, tenant_id: str, area: str, limit: int) -> tuple[list[str], list[str]]:
        s = self._store
        with s._lock:
            if area == "chunks":
                ids = sorted(cid for cid, c in s.chunks.items() if c.tenant_id == tenant_id)
                return ids[:limit], ids[:limit]
            if area == "states":
                notes = sorted(n for n, st in s.states.items() if st.tenant_id == tenant_id)
                page = notes[:limit]
                named = set()
                for n in page:
                    named |= s._recorded.get(n, set()) | set(s._note_chunks.get(n, {}))
                return page, sorted(named)
        raise ValueError(f"no vector area {area!r}")

    def delete_documents(self, area: str, doc_ids: Sequence[str]) -> None:
        s = self._store
        with s._lock:
            for doc_id in doc_ids:
                if area == "chunks":
                    chunk = s.chunks.pop(doc_id, None)
                    if chunk is not None:
                        s._note_chunks.get(chunk.note_id, {}).pop(doc_id, None)
                elif area == "states":
                    s.states.pop(doc_id, None)
                    s._recorded.pop(doc_id, None)
                    s._note_chunks.pop(doc_id, None)
                else:
                    raise ValueError(f"no vector area {area!r}")

    def purge(self, tenant_id: str, area: str, limit: int) -> int:
        s = self._store
        with s._lock:
            if area == "notes":
                gone = _drop(
                    s.notes, [k for k, n in s.notes.items() if n.tenant_id == tenant_id], limit
                )
                # its change-feed entries, and the responses its idempotent requests keep
                feed = [k for k, (_, tenant, _) in s.feed.items() if tenant == tenant_id]
                gone += _drop(s.feed, feed, max(0, limit - gone))
                if self._idempotency is not None:
                    kept = self._idempotency.records
                    mine = [k for k, r in kept.items() if r.tenant_id == tenant_id]
                    gone += _drop(kept, mine, max(0, limit - gone))
                return gone
            if area == "conversations":
                mine = [k for k, c in s.conversations.items() if c.tenant_id == tenant_id]
                return _drop(s.conversations, mine, limit)
            if area == "messages":
                return _drop(
                    s.turns, [k for k, t in s.turns.items() if t.tenant_id == tenant_id], limit
                )
            if area == "tenant":
                found = int(tenant_id in s.versions or tenant_id in s._changes)
                s.versions.pop(tenant_id, None)
                s._changes.pop(tenant_id, None)
                return found
        if area == "quotas":
            if self._quotas is None:
                return 0
            with self._quotas._lock:
                counts = self._quotas.counts
                return _drop(counts, [k for k in counts if k.startswith(f"{tenant_id}:")], limit)
        if area == "jobs":
            gone = 0
            if self._jobs is not None:
                with self._jobs._lock:
                    jobs = self._jobs._jobs
                    mine = [k for k, j in jobs.items() if j.tenant_id == tenant_id]
                    gone = _drop(jobs, mine, limit)
            if self._imports is not None and gone < limit:
                gone += self._imports.purge(tenant_id, limit - gone)
            return gone
        if area == "embeddings":
            return self._cache.purge_owner(tenant_id, limit) if self._cache is not None else 0
        if area == "termStats":
            if self._stats is None:
                return 0
            with self._stats._lock:
                notes = self._stats._notes
                gone = _drop(
                    notes, [k for k, r in notes.items() if r.tenant_id == tenant_id], limit
                )
                if gone < limit and self._stats._tenants.pop(tenant_id, None) is not None:
                    gone += 1
                return gone
        if area == "exports":
            return self._exports.purge(tenant_id, limit) if self._exports is not None else 0
        raise ValueError(f"no area {area!r}")

    def tenants_after(self, after: str | None, limit: int) -> list[str]:
        s = self._store
        with s._lock:
            found = {n.tenant_id for n in s.notes.values()}
            found |= {c.tenant_id for c in s.conversations.values()}
            found |= {t.tenant_id for t in s.turns.values()}
            found |= {c.tenant_id for c in s.chunks.values()}
            found |= {st.tenant_id for st in s.states.values()}
            found |= set(s.versions)
        if self._quotas is not None:
            with self._quotas._lock:
                found |= {k.split(":", 1)[0] for k in self._quotas.counts}
        if self._jobs is not None:
            with self._jobs._lock:
                found |= {j.tenant_id for j in self._jobs._jobs.values() if j.tenant_id}
        if self._imports is not None:
            found |= {j.tenant_id for j in list(self._imports.jobs.values())}
        return sorted(t for t in found if after is None or t > after)[:limit]


def _drop(data: dict[str, Any], keys: list[str], limit: int) -> int:
    for key in keys[:limit]:
        del data[key]
    return min(len(keys), limit)


class MemoryAccountAuth:
    """Users by uid. ``known=False`` makes every uid a user (email ``{uid}@footnote.test``)
    until it is deleted: for in-process harnesses whose tokens are made up."""

    def __init__(self, known: bool = False) -> None:
        self.users: dict[str, str | None] = {}
        self.revoked: set[str] = set()
        self.deleted: set[str] = set()
        self._known = known

    def add(self, uid: str, email: str | None) -> None:
        self.users[uid] = email

    def user(self, uid: str) -> AuthUser | None:
        if uid in self.deleted:
            return None
        if uid in self.users:
            return AuthUser(uid, self.users[uid])
        return None if self._known else AuthUser(uid, f"{uid}@footnote.test")

    def revoke(self, uid: str) -> None:
        if self.user(uid) is not None:
            self.revoked.add(uid)

    def delete(self, uid: str) -> None:
        self.users.pop(uid, None)
        self.deleted.add(uid)
