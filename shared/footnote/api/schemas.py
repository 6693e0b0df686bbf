"""The API's request and response shapes and every limit on them, declared once.

(Over 400 lines on purpose: one place holds every shape and limit a client sees.)

:func:`request_models` builds the request models from the settings in force (cached
per set of limits). The same models validate request bodies in ``api/http.py`` and
write ``GET /openapi.json``, so the description states exactly the limits enforced.

A rule the JSON Schema keywords cannot carry exactly (text that is blank once
normalised; a note longer than the limit is 413, not 400) is checked by a validator
that raises a :data:`RULE_ERRORS` error with the message the caller sees; the
matching keywords (``maxLength``...) are added to the description by :class:`_Doc`.
Text is normalised here, so the services receive what they store.

The response models are the one definition of what the API writes: ``api/wire.py``
builds them from the services' results (by attribute name; the few renamings,
roundings and instants are the models' own validators, below) and serialises them
with :meth:`ResponseModel.body`; ``GET /openapi.json`` describes the same models. So a field
added to a model and to the result its service returns reaches the wire and the
description together.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    PlainSerializer,
    StrictBool,
    StrictInt,
    StrictStr,
    StringConstraints,
    create_model,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

from footnote.config import Settings
from footnote.domain import Fallback, IndexStatus, Intent, MemoryType, Strategy
from footnote.errors import FootnoteError, InvalidRequest, PayloadTooLarge
from footnote.services.chat import RagConfig as RagOptions
from footnote.services.results import Stage, iso
from footnote.temporal import DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES, supported_language
from footnote.text import normalize

# Limits that are part of the API's contract rather than deployment settings.
TAG_MAX_CHARS = 50
CONVERSATION_ID_MAX_CHARS = 100
MAX_SOURCES = 12
SEARCH_K_MAX = 50
RAG_TYPES_MAX = len(MemoryType)
CURSOR_MAX_CHARS = 1000
PAGE_SIZE_DEFAULT = 20
# Ids in paths: what we issue is URL-safe; anything else is simply not found.
ID_MAX_CHARS = 200
ID_PATTERN = r"^[A-Za-z0-9_-]+$"

# Error types a validator raises for a rule; each becomes this error, its message as is.
RULE_ERRORS: dict[str, type[FootnoteError]] = {
    "footnote_invalid": InvalidRequest,
    "footnote_too_large": PayloadTooLarge,
}


def _invalid(message: str) -> PydanticCustomError:
    return PydanticCustomError("footnote_invalid", message)


def _too_large(message: str) -> PydanticCustomError:
    return PydanticCustomError("footnote_too_large", message)


@dataclass(frozen=True)
class _Doc:
    """JSON Schema keywords for a rule a validator enforces (pydantic's own
    constraints would answer with their generic messages instead of ours)."""

    keywords: tuple[tuple[str, Any], ...]

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema.update(self.keywords)
        return schema


def _doc(**keywords: Any) -> _Doc:
    return _Doc(tuple(keywords.items()))


# Lone surrogates ("\ud800") are valid JSON escapes that Firestore, UTF-8 and every
# response we write cannot carry: pydantic's JSON parser refuses them in request
# bodies (api/http.py says so in the error), so a model's strings are always encodable.
Text = StrictStr


def _checked(check: Callable[[Any], Any], **keywords: Any) -> tuple[AfterValidator, _Doc]:
    return AfterValidator(check), _doc(**keywords)


@dataclass(frozen=True)
class Limits:
    """The settings the request models depend on: models are cached per value."""

    note_max_chars: int
    note_title_max_chars: int
    note_max_tags: int
    chat_max_query_length: int
    page_size_max: int
    request_max_bytes: int

    @classmethod
    def of(cls, s: Settings) -> Limits:
        return cls(
            s.note_max_chars,
            s.note_title_max_chars,
            s.note_max_tags,
            s.chat_max_query_length,
            s.page_size_max,
            s.request_max_bytes,
        )


# -- request models -------------------------------------------------------------------
# The classes below give the fields their types; the models the API uses are their
# subclasses from request_models(), whose fields also carry the limits in force.


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class NoteCreate(_Strict):
    text: Text
    title: Text | None = None
    tags: tuple[Text, ...] | None = None
    type: MemoryType | None = None


class NotePatch(_Strict):
    # Only the fields sent change; text may be absent, never null (the built model's
    # text is not nullable).
    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    text: Text | None = None
    title: Text | None = None
    tags: tuple[Text, ...] | None = None
    type: MemoryType | None = None

    @model_validator(mode="after")
    def _something(self) -> NotePatch:
        if not self.model_fields_set:
            raise ValueError("nothing to change: send text, title, tags or type")
        return self


_RAG = RagOptions()


# ragConfig: the chat service's options (services.chat.RagConfig, which gives the
# fields and their defaults) with the API's aliases and limits; options() hands them over.
class RagConfig(_Strict):
    enable_rag: StrictBool = Field(_RAG.enable_rag, alias="enableRag")
    max_sources: StrictInt = Field(_RAG.max_sources, alias="maxSources", ge=1, le=MAX_SOURCES)
    include_citations: StrictBool = Field(_RAG.include_citations, alias="includeCitations")
    types: list[MemoryType] = Field(default_factory=list, max_length=RAG_TYPES_MAX)

    def options(self) -> RagOptions:
        return RagOptions(**{**dict(self), "types": tuple(self.types)})


def _known_zone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {name!r} (an IANA name, e.g. Europe/Berlin)") from exc
    return name


# The asker's IANA time zone ("Europe/Berlin"): "today", "last week" and the dates in
# an answer are read on that calendar; UTC without one.
TimeZoneName = Annotated[
    str,
    StringConstraints(
        min_length=1, max_length=64, pattern=r"^[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+){0,2}$"
    ),
    AfterValidator(_known_zone),
    Field(description="the asker's IANA time zone, e.g. Europe/Berlin; default UTC"),
]


def _read_language(code: str) -> str:
    """The language a tag names, if the reader knows it; English for any other (a
    browser's "ja" is no bad request: its questions are read as English would be)."""
    return supported_language(code) or DEFAULT_LANGUAGE


# The asker's language (a BCP 47 tag, "es" or "es-MX"): time phrases and search words are
# read in it; without one, the request's Accept-Language, else English.
LanguageCode = Annotated[
    str,
    StringConstraints(
        min_length=2, max_length=35, pattern=r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$"
    ),
    AfterValidator(_read_language),
    Field(
        description="the asker's language (BCP 47), e.g. es or de-DE; read as one of "
        + ", ".join(sorted(SUPPORTED_LANGUAGES))
        + ", else English; default from Accept-Language"
    ),
]


class ChatRequest(_Strict):
    message: Text
    conversation_id: Text | None = Field(
        None,
        alias="conversationId",
        min_length=1,
        max_length=CONVERSATION_ID_MAX_CHARS,
        pattern=ID_PATTERN,
    )
    rag_config: RagConfig = Field(
        default_factory=lambda: RagConfig.model_validate({}), alias="ragConfig"
    )
    time_zone: TimeZoneName | None = Field(None, alias="timeZone")
    language: LanguageCode | None = None


class SearchRequest(_Strict):
    query: Text
    k: StrictInt = Field(8, ge=1, le=SEARCH_K_MAX)
    time_zone: TimeZoneName | None = Field(None, alias="timeZone")
    language: LanguageCode | None = None


class PageQuery(_Strict):
    """The query string of a paged list (``limit`` is checked to be a whole number
    by the handler, which reads it)."""

    limit: int = PAGE_SIZE_DEFAULT
    cursor: str | None = None


class NotesQuery(PageQuery):
    """The query string of ``GET /notes``."""


class ConversationsQuery(PageQuery):
    """The query string of ``GET /conversations`` (a model of its own: the
    description lists each operation's parameters from its model)."""


class AccountDelete(_Strict):
    """``DELETE /account``: the account's email address, typed by its owner (an
    account without one types its user id)."""

    confirm: Text = Field(
        min_length=1,
        max_length=320,
        description="The account's email address, as the user typed it to confirm.",
    )


class ImportStart(_Strict):
    """``POST /imports`` with JSON: an archive already uploaded to Cloud Storage (the
    Firebase Storage SDK, under ``users/{uid}/``). Any other body is the archive."""

    object: str = Field(
        min_length=1,
        max_length=1024,
        description="The uploaded object's name, under users/{uid}/.",
    )


class UploadStart(_Strict):
    """``POST /uploads``: an archive about to be uploaded straight to Cloud Storage."""

    name: str = Field(
        min_length=1, max_length=255, description="The file's name (a hint to its format)."
    )
    size: int = Field(ge=1, description="Its size in bytes: the upload must be exactly this.")
    content_type: str = Field(
        "application/octet-stream",
        alias="contentType",
        max_length=255,
        pattern=r"^[\w.+-]+/[\w.+-]+$",
        description="Its media type.",
    )


class ChangesQuery(_Strict):
    """The query string of ``GET /notes/changes``."""

    since: str | None = None
    limit: int = PAGE_SIZE_DEFAULT


@dataclass(frozen=True)
class RequestModels:
    limits: Limits
    note_create: type[NoteCreate]
    note_patch: type[NotePatch]
    chat: type[ChatRequest]
    search: type[SearchRequest]
    notes_query: type[NotesQuery]
    conversations_query: type[ConversationsQuery]
    account_delete: type[AccountDelete]
    changes_query: type[ChangesQuery]
    import_start: type[ImportStart]
    upload_start: type[UploadStart]


def request_models(settings: Settings) -> RequestModels:
    """The request models with the limits of ``settings``."""
    return build_models(Limits.of(settings))


@lru_cache(maxsize=8)
def build_models(limits: Limits) -> RequestModels:
    """The request models with ``limits``, built once per value."""
    note_max = limits.note_max_chars
    title_max = limits.note_title_max_chars
    tags_max = limits.note_max_tags
    query_max = limits.chat_max_query_length
    page_max = limits.page_size_max

    def note_text(value: str) -> str:
        clean = normalize(value)
        if not clean:
            raise _invalid("note text is empty")
        if len(clean) > note_max:
            raise _too_large(f"note text is longer than {note_max} characters")
        return clean

    def title(value: str) -> str:
        clean = normalize(value)
        if len(clean) > title_max:
            raise _invalid(f"title is longer than {title_max} characters")
        return clean

    def tags(values: tuple[str, ...]) -> tuple[str, ...]:
        if len(values) > tags_max:
            raise _invalid(f"at most {tags_max} tags")
        clean = tuple(dict.fromkeys(t for t in map(normalize, values) if t))
        if any(len(t) > TAG_MAX_CHARS for t in clean):
            raise _invalid(f"a tag is longer than {TAG_MAX_CHARS} characters")
        return clean

    def question(value: str) -> str:
        if not value.strip():
            raise _invalid("the question is empty")
        if len(value) > query_max:
            raise _invalid(f"the question is longer than {query_max} characters")
        return value

    def limit(value: int) -> int:
        if not 1 <= value <= page_max:
            raise _invalid(f"limit must be between 1 and {page_max}")
        return value

    def cursor(value: str) -> str:
        if len(value) > CURSOR_MAX_CHARS:
            raise _invalid("cursor is not valid")
        return value

    note_text_t = Annotated[
        Text,
        *_checked(
            note_text,
            minLength=1,
            maxLength=note_max,
            description="Must contain non-blank text. Longer text gets 413.",
        ),
    ]
    title_t = Annotated[Text, *_checked(title, maxLength=title_max)]
    tag_t = Annotated[Text, _doc(maxLength=TAG_MAX_CHARS)]
    tags_t = Annotated[tuple[tag_t, ...], *_checked(tags, maxItems=tags_max)]
    question_t = Annotated[Text, *_checked(question, minLength=1, maxLength=query_max)]
    cursor_t = Annotated[
        str,
        *_checked(
            cursor,
            maxLength=CURSOR_MAX_CHARS,
            description="The opaque cursor of the previous page.",
        ),
    ]
    limit_t = Annotated[int, *_checked(limit, minimum=1, maximum=page_max)]
    query_fields: dict[str, Any] = {
        "limit": (limit_t, PAGE_SIZE_DEFAULT),
        "cursor": (cursor_t | None, None),
    }
    since_t = Annotated[
        str,
        *_checked(
            cursor,
            maxLength=CURSOR_MAX_CHARS,
            description="The token of the previous answer; absent: everything (a full sync).",
        ),
    ]
    note_fields: dict[str, Any] = {
        "title": (title_t | None, None),
        "tags": (tags_t | None, None),
    }
    return RequestModels(
        limits,
        create_model("NoteCreate", __base__=NoteCreate, text=(note_text_t, ...), **note_fields),
        create_model("NotePatch", __base__=NotePatch, text=(note_text_t, None), **note_fields),
        create_model("ChatRequest", __base__=ChatRequest, message=(question_t, ...)),
        create_model("SearchRequest", __base__=SearchRequest, query=(question_t, ...)),
        create_model("NotesQuery", __base__=NotesQuery, **query_fields),
        create_model("ConversationsQuery", __base__=ConversationsQuery, **query_fields),
        AccountDelete,
        create_model(
            "ChangesQuery",
            __base__=ChangesQuery,
            since=(since_t | None, None),
            limit=(limit_t, PAGE_SIZE_DEFAULT),
        ),
        ImportStart,
        UploadStart,
    )


# -- response models ------------------------------------------------------------------
# What the API writes, and what the description says it writes: api/wire.py builds
# these from the services' results and serialises them (extra="forbid": a test that
# validates a body fails on a key not described).


class ResponseModel(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=True,
        # Built from a service's result by attribute name (wire.py): a field the
        # result and the model share needs no mapping of its own.
        from_attributes=True,
    )

    def body(self) -> dict[str, Any]:
        """The JSON body: camelCase keys, enums as their values, fields described as
        omitted when empty left out."""
        return self.model_dump(mode="json", by_alias=True)


def _instant(value: Any) -> Any:
    return iso(value) if isinstance(value, datetime) else value


def _rounded(digits: int) -> AfterValidator:
    return AfterValidator(lambda value: round(value, digits))


# An instant as the API writes it: ISO 8601 in UTC with a Z (a service gives a datetime).
Instant = Annotated[str, BeforeValidator(_instant)]
# The same, described as a date-time (the serializer is unannotated so the description
# keeps the field's own schema).
Moment = Annotated[datetime, PlainSerializer(lambda moment: iso(moment), when_used="json")]


def _omitted_when_none(value: Any) -> bool:
    return value is None


def _timing_names(timings: Any) -> Any:
    """The services time stages (``Stage``); the API names each timing
    ``<stage>Ms`` ("generateMs"). Names already given (a body read back) stay."""
    if isinstance(timings, dict):
        return {f"{k.value}Ms" if isinstance(k, Stage) else k: v for k, v in timings.items()}
    return timings


class ErrorBody(ResponseModel):
    code: str
    message: str
    details: Any


class Error(ResponseModel):
    error: ErrorBody


class Note(ResponseModel):
    id: str
    text: str
    title: str
    tags: list[str]
    type: MemoryType | None
    created_at: Moment
    updated_at: Moment
    etag: str = Field(
        description="The note's version, quotes included, as the ETag header carries it: "
        "send it back in If-Match to edit or delete only that version (412 otherwise)."
    )
    # chunkCount only on GET /notes/{noteId}; memoryType (the type it was indexed
    # as: its own or the classifier's) once it is indexed.
    index_status: IndexStatus | None = Field(None, exclude_if=_omitted_when_none)
    chunk_count: int | None = Field(None, exclude_if=_omitted_when_none)
    memory_type: MemoryType | None = Field(None, exclude_if=_omitted_when_none)


class NotePage(ResponseModel):
    notes: list[Note]
    cursor: str | None
    has_more: bool


class Change(ResponseModel):
    id: str
    changed_at: Moment = Field(description="When the change committed: the feed's order.")
    deleted: bool = Field(description="A tombstone: the note was deleted (note is null).")
    note: Note | None = Field(
        description="The note as it is now, with its index state as GET /notes lists it; null "
        "when deleted."
    )


class ChangePage(ResponseModel):
    changes: list[Change]
    token: str = Field(
        description="Send it as since next time (the same position again when nothing "
        "changed). A token older than the deletions kept is 410: sync in full."
    )
    has_more: bool


class Citation(ResponseModel):
    cid: str = Field(pattern=r"^N[0-9]+$")
    note_id: str
    chunk_id: str
    created_at: Instant
    snippet: str
    score: float
    support: float = Field(
        ge=0,
        le=1,
        description="How far the note supports the sentences citing it: the least "
        "grounding score among them (Check Grounding's claim score in production). "
        "A citation is kept at the grounder's threshold or above; clients mark one "
        "below 0.7 as weakly supported.",
    )


class RetrievalMeta(ResponseModel):
    k: int
    strategy: Strategy
    candidate_count: int
    rerank_count: int
    time_ms: Annotated[float, _rounded(2)]
    matched: bool
    confidence: Annotated[float, _rounded(4)]
    fallbacks: list[Fallback]
    # Search only: the whole call (absent from a chat answer's meta).
    total_ms: float | None = Field(None, exclude_if=_omitted_when_none)


class ChatMeta(ResponseModel):
    model: str
    confidence: float
    retrieval: RetrievalMeta
    timings: Annotated[
        dict[str, float],
        BeforeValidator(_timing_names),
        Field(description="Milliseconds per stage, in the order they ran (analyzeMs...)."),
    ]
    fallbacks: list[Fallback]
    regenerated: bool
    intent: Intent
    follow_up: bool
    declined: bool = Field(
        description="true when the answer says the notes do not answer the question"
    )


class ChatResponse(ResponseModel):
    """POST /chat's answer; the done event of a streamed answer carries the same."""

    answer: str
    citations: list[Citation]
    conversation_id: str
    message_id: str
    meta: ChatMeta


# -- the events of a streamed answer (POST /chat, Accept: text/event-stream) -----------


class StreamMetaFields(ResponseModel):
    intent: Intent


class StreamMeta(ResponseModel):
    """The first event: the conversation (minted for a new one, recorded once the answer
    is done) and how the question was read."""

    conversation_id: str
    meta: StreamMetaFields


class StreamDelta(ResponseModel):
    """The next checked sentence of the answer, as the client shows it."""

    text: str


# Each event's name and the model of its data, in the order a stream sends them.
STREAM_EVENTS: tuple[tuple[str, type[ResponseModel]], ...] = (
    ("meta", StreamMeta),
    ("delta", StreamDelta),
    ("done", ChatResponse),
)


class Window(ResponseModel):
    start: Instant | None
    end: Instant | None
    label: str


class QueryMeta(ResponseModel):
    keywords: list[str]
    intent: Intent
    types: list[MemoryType]
    window: Window | None
    unresolved: list[str]


class SearchMeta(RetrievalMeta):
    query: QueryMeta


class SearchHit(ResponseModel):
    chunk_id: str
    note_id: str
    title: str = Field(description="The note's title as indexed; the text starts with it.")
    text: str
    created_at: Instant
    memory_type: MemoryType
    score: Annotated[float, _rounded(6)]
    similarity: Annotated[float, _rounded(4)]
    sources: list[str]
    breakdown: Annotated[
        dict[str, float], AfterValidator(lambda scores: {k: round(v, 6) for k, v in scores.items()})
    ]


class SearchResponse(ResponseModel):
    results: list[SearchHit]
    meta: SearchMeta


class AnswerSummary(ResponseModel):
    confidence: float | None
    strategy: str | None


class Message(ResponseModel):
    id: str
    conversation_id: str
    role: str
    text: str
    created_at: Instant
    citations: list[Citation]
    # An answer's confidence and retrieval strategy, as recorded with it.
    meta: AnswerSummary | None = Field(None, exclude_if=_omitted_when_none)


class Conversation(ResponseModel):
    id: str
    title: str = Field(description="The first question, on one line, shortened to fit a list.")
    created_at: Moment
    updated_at: Moment = Field(description="The latest turn: lists are ordered by it.")
    message_count: int = Field(description="Questions and answers: the turns of .../messages.")


class ConversationPage(ResponseModel):
    conversations: list[Conversation]
    cursor: str | None
    has_more: bool


class Messages(ResponseModel):
    messages: list[Message]


class Sources(ResponseModel):
    sources: list[Citation]


class Health(ResponseModel):
    status: str
    backends: dict[str, str]


class AccountDeletion(ResponseModel):
    job_id: str = Field(description="The deletion job: the same for a repeated request.")
    status: str = Field(description="deleting, or deleted once every step has run.")


class ImportProblem(ResponseModel):
    file: str = Field(description="Where in the archive.")
    reason: str = Field(description="What went wrong, for a person.")


class ImportJob(ResponseModel):
    id: str
    status: str = Field(description="queued, running, done, cancelled or failed.")
    found: int = Field(description="Notes read from the archive so far.")
    imported: int
    duplicates: int = Field(description="Already in the notebook: not written again.")
    failed: int = Field(description="Files or notes that could not be imported.")
    problems: list[ImportProblem] = Field(
        description="The failures and warnings, each with its file (the first 200)."
    )
    reason: str | None = Field(description="Why the import stopped early, if it did.")
    created_at: Instant
    started_at: Instant | None
    finished_at: Instant | None


class Upload(ResponseModel):
    object: str = Field(description="The object's name, under users/{uid}/: POST /imports it.")
    upload_url: str = Field(
        description="A resumable upload session for that object alone: PUT the file's "
        'bytes there (no Authorization header), then POST /imports {"object": ...}.'
    )
    method: str = Field(description="PUT.")


class ExportJob(ResponseModel):
    id: str
    status: str = Field(description="queued, done or failed.")
    notes: int
    conversations: int
    size: int = Field(description="Bytes of the archive, once done.")
    download: str | None = Field(description="Where to GET the zip once done (with the token).")
    created_at: Instant
    finished_at: Instant | None
