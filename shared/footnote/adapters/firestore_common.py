"""What the Firestore repositories share: one client, the collections, the
document shapes of notes and index states, and the chunk bookkeeping both the
note and the chunk repositories do inside their transactions.

Collections: ``notes`` (what users write), ``noteChunks`` (chunks with vectors),
``indexState`` (one per note, kept apart from the note so the indexer never
writes the document whose changes trigger it), ``tenants`` (a version counter
per tenant that moves whenever its chunks change), ``embeddingCache``,
``conversations`` and ``messages``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from footnote.adapters.cursors import decode_cursor
from footnote.adapters.google_retry import port_errors_only
from footnote.domain import Chunk, IndexState, IndexStatus, MemoryType, Note, deletion_job_id
from footnote.errors import Contention, MalformedNote, Unauthenticated

if TYPE_CHECKING:
    from google.cloud import firestore

NOTES = "notes"
CHUNKS = "noteChunks"
STATES = "indexState"
TENANTS = "tenants"
EMBEDDINGS = "embeddingCache"
CONVERSATIONS = "conversations"
MESSAGES = "messages"
JOBS = "reindexJobs"
# One per account deletion, named by ``domain.deletion_job_id``: the job's progress
# and the fence the tenant's writes check (kept after the job: it names no one).
ACCOUNT_DELETIONS = "accountDeletions"
# One document per note: its latest change's commit time (changedAt, the server's
# timestamp of the very write that changed the note), tenant and whether it was a
# deletion; written in the same batch as the note. GET /notes/changes reads it.
NOTE_CHANGES = "noteChanges"
CHUNK_IDS = "chunkIds"  # in indexState: the chunk ids the last chunk transaction wrote
# In indexState: the commit time of the last change to the note's chunks (an index
# write, or the API dropping them on an edit or delete). The change log in-memory
# corpora patch from: ``notes_changed_since`` queries it per tenant.
CHUNKS_CHANGED_AT = "chunksChangedAt"


def make_client(project_id: str, database: str) -> firestore.Client:
    from google.cloud import firestore

    return firestore.Client(project=project_id, database=database)


class FirestoreRepository:
    """Base of the repositories: the shared client and the SDK names they use,
    imported here rather than at module import so a cold start pays for them once.

    Each repository's public methods raise their port's errors, never the SDK's
    (``google_retry.port_errors_only``): a service tells a failed Firestore from a
    bug by ``errors.PORT_ERRORS``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        port_errors_only(cls)

    def __init__(self, client: firestore.Client) -> None:
        from google.cloud import firestore as fs
        from google.cloud.firestore_v1.base_query import FieldFilter
        from google.cloud.firestore_v1.vector import Vector

        self.client = client
        self._fs = fs
        self._where = FieldFilter
        self._vector = Vector

    def _keyset(
        self, collection: str, tenant_id: str, field: str, limit: int, cursor: str | None
    ) -> tuple[list[Any], Any | None]:
        """One page of a tenant's documents, newest ``field`` first (ties by id), after
        ``cursor``: its snapshots and the last one when another page follows."""
        fs = self._fs
        docs = self.client.collection(collection)
        query = (
            docs.where(filter=self._where("tenantId", "==", tenant_id))
            .order_by(field, direction=fs.Query.DESCENDING)
            .order_by("__name__", direction=fs.Query.DESCENDING)
        )
        if cursor:
            moment, last_id = decode_cursor(cursor, collection)
            query = query.start_after({field: moment, "__name__": docs.document(last_id)})
        snaps = list(query.limit(limit + 1).stream())
        return snaps[:limit], (snaps[limit - 1] if len(snaps) > limit else None)

    def _run_for_api(self, run: Any, what: str) -> Any:
        """Run an API transaction; when contention outlasts the SDK's retries (on the
        emulator a lock wait ends with ABORTED after ~10 s), raise Contention, a 503
        with Retry-After, rather than the SDK's bare ValueError (a 500)."""
        from google.api_core.exceptions import Aborted

        try:
            return run(self.client.transaction(max_attempts=5))
        except ValueError as exc:
            if isinstance(exc.__cause__, Aborted):
                raise Contention(what) from exc
            raise
        except Aborted as exc:
            raise Contention(what) from exc

    # A delete or an edit through the API drops the note's chunks in its own
    # transaction, so no query (in memory or through Vector Search, whose vectors
    # the indexer removes a moment later) can cite a deleted note or an edited
    # note's old text. indexState keeps chunkIds, so the indexer still knows which
    # vectors to remove.
    def _recorded_chunk_ids(self, tx: Any, note_id: str) -> list[str]:
        state = self.client.collection(STATES).document(note_id).get(transaction=tx)
        return list((state.to_dict() or {}).get(CHUNK_IDS, [])) if state.exists else []

    def _drop_chunks(self, tx: Any, chunk_ids: Sequence[str], state: IndexState) -> None:
        """Delete the chunk documents and record ``state`` (why) in the same transaction."""
        for cid in chunk_ids:
            tx.delete(self.client.collection(CHUNKS).document(cid))
        tx.set(
            self.client.collection(STATES).document(state.note_id),
            state_doc(state) | {CHUNKS_CHANGED_AT: self._fs.SERVER_TIMESTAMP},
            merge=True,  # keeps chunkIds, which only the chunk transactions write
        )

    # indexState/{noteId}.chunkIds lists every chunk document of the note: the
    # only writes of chunks (``replace_chunks``, ``create_notes``) record their ids
    # there in the same transaction, and a list is only shortened by the
    # transaction that deletes what it drops (a withdrawal or the API's drop keeps
    # the list, so the indexer still removes those vectors). So the chunk
    # transactions read that one document (and so lock it) and run no query: the
    # Firestore emulator locks a whole collection for a transactional query, so
    # concurrent indexing of different notes aborted each other ("Failed to
    # commit transaction in 5 attempts"), and it answers a query on noteId by
    # scanning the collection: 8 s for an `in` of 30 ids over 20,000 chunks, which
    # made an import slow down as the tenant grew (docs/performance.md).
    #
    # Every id is returned, stored or not: the API may have dropped the documents
    # already (an edit or a delete), and the indexer still removes their vectors.
    def _chunk_doc(self, c: Chunk) -> dict[str, Any]:
        return {
            "chunkId": c.chunk_id,
            "noteId": c.note_id,
            "tenantId": c.tenant_id,
            "position": c.position,
            "text": c.text,
            "title": c.title,
            "terms": list(c.terms),
            "memoryType": c.memory_type.value,
            "createdAt": c.created_at,
            "embedding": self._vector(list(c.embedding)),
            "embeddingModel": c.embedding_model,
        }

    def _check_fence(self, tx: Any, tenant_id: str) -> None:
        """Inside a write's transaction: refuse it once the tenant's deletion began.
        The read locks the fence document, so a deletion starting concurrently makes
        this transaction retry and see it."""
        if self._fence_ref(tenant_id).get(transaction=tx).exists:
            raise Unauthenticated("a valid Firebase ID token is required")

    def _fence_ref(self, tenant_id: str) -> Any:
        return self.client.collection(ACCOUNT_DELETIONS).document(deletion_job_id(tenant_id))

    def _bump(self, tenant_id: str) -> None:
        # After the commit, not inside the transaction: every indexing transaction
        # of a tenant writing this one document made concurrent indexing of its
        # notes contend until commits failed ("Failed to commit transaction in 5
        # attempts"). Bumping after the commit keeps the order readers need (a
        # reader that sees the new version also sees the new chunks); Increment
        # is atomic, so concurrent bumps are not lost.
        self.client.collection(TENANTS).document(tenant_id).set(
            {"version": self._fs.Increment(1)},
            merge=True,
        )


def note_doc(n: Note) -> dict[str, Any]:
    return {
        "tenantId": n.tenant_id,
        "text": n.text,
        "title": n.title,
        "tags": list(n.tags),
        "type": n.type.value if n.type else None,
        "createdAt": n.created_at,
        "updatedAt": n.updated_at,
        "version": n.version,
    }


def note_from(snap: Any) -> Note:
    d = snap.to_dict() or {}
    tenant = d.get("tenantId")
    tenant_id = tenant if isinstance(tenant, str) else ""

    def bad(problem: str) -> MalformedNote:
        return MalformedNote(snap.id, problem, tenant_id)

    # Notes written behind the API's back (admin credentials) may have any shape:
    # a clear MalformedNote, never a TypeError / KeyError deep in the pipeline.
    if not tenant_id:
        raise bad("tenantId must be a non-empty string")
    if not isinstance(d.get("text"), str):
        raise bad("text must be a string")
    created, updated = d.get("createdAt"), d.get("updatedAt") or d.get("createdAt")
    if not isinstance(created, datetime) or not isinstance(updated, datetime):
        raise bad("createdAt (and updatedAt) must be timestamps")
    title, tags, kind = d.get("title"), d.get("tags"), d.get("type")
    if title is not None and not isinstance(title, str):
        raise bad("title must be a string")
    if tags is not None and not (isinstance(tags, list) and all(isinstance(t, str) for t in tags)):
        raise bad("tags must be a list of strings")
    if kind and kind not in {m.value for m in MemoryType}:
        raise bad("type is not a known memory type")
    version = d.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise bad("version must be a whole number")
    return Note(
        id=snap.id,
        tenant_id=tenant_id,
        text=d["text"],
        created_at=created,
        updated_at=updated,
        title=title or "",
        tags=tuple(tags or ()),
        type=MemoryType(kind) if kind else None,
        version=version,
    )


def state_doc(s: IndexState) -> dict[str, Any]:
    return {
        "tenantId": s.tenant_id,
        "status": s.status.value,
        "contentHash": s.content_hash,
        "chunkCount": s.chunk_count,
        "model": s.model,
        "sourceUpdateTime": s.source_update_time,
        "error": s.error,
        "attempts": s.attempts,
        "memoryType": s.memory_type.value if s.memory_type else None,
    }


def state_from(note_id: str, d: Mapping[str, Any]) -> IndexState:
    return IndexState(
        note_id=note_id,
        tenant_id=d.get("tenantId", ""),
        status=IndexStatus(d.get("status", "pending")),
        content_hash=d.get("contentHash", ""),
        chunk_count=int(d.get("chunkCount", 0)),
        model=d.get("model", ""),
        source_update_time=d.get("sourceUpdateTime"),
        error=d.get("error", ""),
        attempts=int(d.get("attempts", 0)),
        memory_type=MemoryType(d["memoryType"]) if d.get("memoryType") else None,
    )
