"""The JSON the API writes: service results to camelCase bodies.

The only place the wire format is made. The shapes are described by the response
models in ``api/schemas.py``; tests check every body against them. Scores and
times are rounded here, for the wire only.
"""

from __future__ import annotations

from typing import Any

from footnote.domain import (
    Citation,
    Conversation,
    DeletionJob,
    ExportJob,
    ImportJob,
    Note,
    TimeWindow,
)
from footnote.services.chat import ChatOutcome
from footnote.services.results import (
    AnswerSummary,
    ChangeListing,
    ConversationListing,
    Message,
    NoteListing,
    NoteView,
    QueryReport,
    RetrievalReport,
    SearchResult,
    citation_record,
    iso,
)


def etag(n: Note) -> str:
    """The note's ETag, as the ``ETag`` header and the body's ``etag`` carry it (one
    string, quotes included, so a client sends it back in ``If-Match`` as it is)."""
    return f'"{n.version}"'


def note(view: NoteView) -> dict[str, Any]:
    body = _note(view.note)
    if view.index_status is not None:
        body["indexStatus"] = view.index_status.value
    if view.chunk_count is not None:
        body["chunkCount"] = view.chunk_count
    if view.memory_type is not None:
        body["memoryType"] = view.memory_type.value
    return body


def note_page(listing: NoteListing) -> dict[str, Any]:
    return {
        "notes": [note(v) for v in listing.notes],
        "cursor": listing.cursor,
        "hasMore": listing.cursor is not None,
    }


def changes(listing: ChangeListing) -> dict[str, Any]:
    return {
        "changes": [
            {
                "id": c.mark.note_id,
                "changedAt": iso(c.mark.moment),
                "deleted": c.note is None,
                "note": None if c.note is None else _note(c.note),
            }
            for c in listing.changes
        ],
        "token": listing.token,
        "hasMore": listing.more,
    }


def chat(outcome: ChatOutcome) -> dict[str, Any]:
    m = outcome.meta
    return {
        "answer": outcome.answer,
        "citations": [citation(c) for c in outcome.citations],
        "conversationId": outcome.conversation_id,
        "messageId": outcome.message_id,
        "meta": {
            "model": m.model,
            "confidence": m.confidence,
            "retrieval": _retrieval(m.retrieval),
            "timings": dict(m.timings),
            "fallbacks": list(m.fallbacks),
            "regenerated": m.regenerated,
            "intent": m.intent.value,
            "followUp": m.follow_up,
            "declined": m.declined,
        },
    }


def search(result: SearchResult) -> dict[str, Any]:
    return {
        "results": [
            {
                "chunkId": h.chunk_id,
                "noteId": h.note_id,
                "title": h.title,
                "text": h.text,
                "createdAt": iso(h.created_at),
                "memoryType": h.memory_type.value,
                "score": round(h.score, 6),
                "similarity": round(h.similarity, 4),
                "sources": list(h.sources),
                "breakdown": {k: round(v, 6) for k, v in h.breakdown.items()},
            }
            for h in result.hits
        ],
        "meta": {**_retrieval(result.retrieval), "query": _query(result.query)},
    }


def conversation_page(listing: ConversationListing) -> dict[str, Any]:
    return {
        "conversations": [_conversation(c) for c in listing.conversations],
        "cursor": listing.cursor,
        "hasMore": listing.cursor is not None,
    }


def messages(turns: tuple[Message, ...]) -> dict[str, Any]:
    return {
        "messages": [
            {
                "id": t.id,
                "conversationId": t.conversation_id,
                "role": t.role,
                "text": t.text,
                "createdAt": iso(t.created_at),
                "citations": [citation(c) for c in t.citations],
                **({} if t.meta is None else {"meta": _answer_summary(t.meta)}),
            }
            for t in turns
        ]
    }


def sources(citations: tuple[Citation, ...]) -> dict[str, Any]:
    return {"sources": [citation(c) for c in citations]}


def citation(c: Citation) -> dict[str, Any]:
    # A turn stores its citations in exactly the shape the API returns, so one
    # function writes both (GET /conversations/{id}/messages serves them as stored).
    return citation_record(c)


def _note(n: Note) -> dict[str, Any]:
    return {
        "id": n.id,
        "text": n.text,
        "title": n.title,
        "tags": list(n.tags),
        "type": n.type.value if n.type else None,
        "createdAt": iso(n.created_at),
        "updatedAt": iso(n.updated_at),
        "etag": etag(n),
    }


def _conversation(c: Conversation) -> dict[str, Any]:
    return {
        "id": c.id,
        "title": c.title,
        "createdAt": iso(c.created_at),
        "updatedAt": iso(c.updated_at),
        "messageCount": c.message_count,
    }


def _answer_summary(s: AnswerSummary) -> dict[str, Any]:
    return {"confidence": s.confidence, "strategy": s.strategy}


def _retrieval(r: RetrievalReport) -> dict[str, Any]:
    body: dict[str, Any] = {
        "k": r.k,
        "strategy": r.strategy,
        "candidateCount": r.candidate_count,
        "rerankCount": r.rerank_count,
        "timeMs": round(r.time_ms, 2),
        "matched": r.matched,
        "confidence": round(r.confidence, 4),
        "fallbacks": list(r.fallbacks),
    }
    if r.total_ms is not None:
        body["totalMs"] = r.total_ms
    return body


def _query(q: QueryReport) -> dict[str, Any]:
    return {
        "keywords": list(q.keywords),
        "intent": q.intent.value,
        "types": [t.value for t in q.types],
        "window": None if q.window is None else _window(q.window),
        "unresolved": list(q.unresolved),
    }


def _window(w: TimeWindow) -> dict[str, Any]:
    return {
        "start": iso(w.start) if w.start else None,
        "end": iso(w.end) if w.end else None,
        "label": w.label,
    }


def account_deletion(job: DeletionJob) -> dict[str, Any]:
    return {"jobId": job.job_id, "status": "deleted" if job.done else "deleting"}


def import_job(job: ImportJob) -> dict[str, Any]:
    return {
        "id": job.id,
        "status": job.status,
        "found": job.found,
        "imported": job.imported,
        "duplicates": job.duplicates,
        "failed": job.failed,
        "problems": [{"file": p.file, "reason": p.reason} for p in job.problems],
        "reason": job.reason,
        "createdAt": iso(job.created_at),
        "startedAt": iso(job.started_at) if job.started_at else None,
        "finishedAt": iso(job.finished_at) if job.finished_at else None,
    }


def upload(object_name: str, url: str) -> dict[str, Any]:
    return {"object": object_name, "uploadUrl": url, "method": "PUT"}


def export_job(job: ExportJob) -> dict[str, Any]:
    return {
        "id": job.id,
        "status": job.status,
        "notes": job.notes,
        "conversations": job.conversations,
        "size": job.size,
        "download": f"/exports/{job.id}/archive" if job.status == "done" else None,
        "createdAt": iso(job.created_at),
        "finishedAt": iso(job.finished_at) if job.finished_at else None,
    }
