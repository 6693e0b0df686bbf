"""The JSON the API writes: service results to camelCase bodies.

The only place the wire format is made. Every body is built as its response model
(``api/schemas.py``: the one definition of each shape, which also writes the OpenAPI
description) from the services' results, by attribute name (:func:`_build`); what
is computed for the wire (an ETag, ``hasMore``, a download path) is named here, and
the rounding of scores and times and the writing of instants are the models' own.
"""

from __future__ import annotations

from typing import Any, TypeVar

from footnote.api import schemas
from footnote.domain import (
    Citation,
    Conversation,
    DeletionJob,
    ExportJob,
    ImportJob,
    Note,
)
from footnote.services.chat import ChatOutcome, StreamEvent
from footnote.services.results import (
    AnswerStarted,
    AnswerText,
    ChangeListing,
    ConversationListing,
    Message,
    NoteListing,
    NoteView,
    SearchResult,
)

M = TypeVar("M", bound=schemas.ResponseModel)


def _build(model: type[M], source: Any, **computed: Any) -> M:
    """``model`` from ``source``'s attributes of the same names, and ``computed``."""
    fields = {n: getattr(source, n) for n in model.model_fields if n not in computed}
    return model.model_validate({**fields, **computed})


def error(code: str, message: str, details: Any) -> dict[str, Any]:
    """The error envelope: ``{"error": {"code", "message", "details"}}``."""
    return schemas.Error(
        error=schemas.ErrorBody(code=code, message=message, details=details)
    ).body()


def health(report: dict[str, Any]) -> dict[str, Any]:
    """``GET /healthz``: the wiring's report of its backends, as described."""
    return schemas.Health.model_validate(report).body()


def etag(n: Note) -> str:
    """The note's ETag, as the ``ETag`` header and the body's ``etag`` carry it (one
    string, quotes included, so a client sends it back in ``If-Match`` as it is)."""
    return f'"{n.version}"'


def note(view: NoteView) -> dict[str, Any]:
    return _note(view).body()


def _note(view: NoteView) -> schemas.Note:
    return _build(
        schemas.Note,
        view.note,
        etag=etag(view.note),
        index_status=view.index_status,
        chunk_count=view.chunk_count,
        memory_type=view.memory_type,
    )


def note_page(listing: NoteListing) -> dict[str, Any]:
    return schemas.NotePage(
        notes=[_note(v) for v in listing.notes],
        cursor=listing.cursor,
        has_more=listing.cursor is not None,
    ).body()


def changes(listing: ChangeListing) -> dict[str, Any]:
    return schemas.ChangePage(
        changes=[
            schemas.Change(
                id=c.mark.note_id,
                changed_at=c.mark.moment,
                deleted=c.view is None,
                note=None if c.view is None else _note(c.view),
            )
            for c in listing.changes
        ],
        token=listing.token,
        has_more=listing.more,
    ).body()


def chat(outcome: ChatOutcome) -> dict[str, Any]:
    return _answer(outcome).body()


def _answer(outcome: ChatOutcome) -> schemas.ChatResponse:
    """The answer as its response model: every field read from the outcome (and its
    meta) by name, so a field added to both needs nothing here."""
    return schemas.ChatResponse.model_validate(outcome, from_attributes=True)


_EVENT_NAMES = {model: name for name, model in schemas.STREAM_EVENTS}


def stream_event(event: StreamEvent) -> tuple[str, dict[str, Any]]:
    """A streamed answer's event: its name and its data, as described by
    ``schemas.STREAM_EVENTS``."""
    model: schemas.ResponseModel
    if isinstance(event, AnswerStarted):
        model = schemas.StreamMeta(
            conversation_id=event.conversation_id,
            meta=schemas.StreamMetaFields(intent=event.intent),
        )
    elif isinstance(event, AnswerText):
        model = schemas.StreamDelta.model_validate(event, from_attributes=True)
    else:
        model = _answer(event)
    return _EVENT_NAMES[type(model)], model.body()


def search(result: SearchResult) -> dict[str, Any]:
    return schemas.SearchResponse(
        results=[schemas.SearchHit.model_validate(h, from_attributes=True) for h in result.hits],
        meta=_build(schemas.SearchMeta, result.retrieval, query=result.query),
    ).body()


def conversation_page(listing: ConversationListing) -> dict[str, Any]:
    return schemas.ConversationPage(
        conversations=[_conversation(c) for c in listing.conversations],
        cursor=listing.cursor,
        has_more=listing.cursor is not None,
    ).body()


def _conversation(c: Conversation) -> schemas.Conversation:
    return schemas.Conversation.model_validate(c, from_attributes=True)


def messages(turns: tuple[Message, ...]) -> dict[str, Any]:
    return schemas.Messages.model_validate({"messages": turns}).body()


def sources(citations: tuple[Citation, ...]) -> dict[str, Any]:
    return schemas.Sources.model_validate({"sources": citations}).body()


def account_deletion(job: DeletionJob) -> dict[str, Any]:
    return schemas.AccountDeletion(
        job_id=job.job_id, status="deleted" if job.done else "deleting"
    ).body()


def import_job(job: ImportJob) -> dict[str, Any]:
    return schemas.ImportJob.model_validate(job, from_attributes=True).body()


def upload(object_name: str, url: str) -> dict[str, Any]:
    return schemas.Upload(object=object_name, upload_url=url, method="PUT").body()


def export_job(job: ExportJob) -> dict[str, Any]:
    download = f"/exports/{job.id}/archive" if job.status == "done" else None
    return _build(schemas.ExportJob, job, download=download).body()
