"""The route table: every operation the API serves, how it is dispatched
(``api/http.py``) and how ``GET /openapi.json`` describes it (``api/openapi.py``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel
from werkzeug.routing import Map, Rule

from footnote.api import schemas
from footnote.api.schemas import ID_MAX_CHARS


@dataclass(frozen=True)
class Route:
    """One operation: how it is dispatched and how ``GET /openapi.json`` describes it.

    ``path`` is written as documented (``{noteId}``); the handler ``_on_<endpoint>``
    receives each path id as a snake_case keyword (``note_id``). ``body`` and
    ``query`` name a model of :class:`~footnote.api.schemas.RequestModels`.
    """

    method: str
    path: str
    endpoint: str
    operation_id: str
    summary: str
    status: int
    response: type[BaseModel] | None
    described: str  # what the success response is
    errors: tuple[int, ...] = ()
    body: str | None = None
    query: str | None = None
    public: bool = False  # no token needed
    streams: bool = False  # answers text/event-stream when asked
    headers: tuple[str, ...] = ()  # request headers it reads (described in api/openapi.py)
    etag: bool = False  # the success response carries the note's ETag header


_BODY_ERRORS = (400, 401, 413, 415, 429)
ROUTE_TABLE = (
    Route("GET", "/healthz", "health", "health", "Liveness and active backends", 200,
          schemas.Health, "The service is up.", public=True),
    Route("GET", "/openapi.json", "openapi", "openapi", "This description", 200, None,
          "The OpenAPI document.", public=True),
    Route("POST", "/notes", "notes_create", "createNote", "Save a note (indexed asynchronously)",
          201, schemas.Note, "The saved note.", (*_BODY_ERRORS, 409, 422), body="note_create",
          headers=("Idempotency-Key",), etag=True),
    Route("GET", "/notes", "notes_list", "listNotes", "A page of the caller's notes, newest first",
          200, schemas.NotePage, "A page of notes.", (400, 401), query="notes_query"),
    Route("GET", "/notes/changes", "notes_changes", "noteChanges",
          "Notes created, edited or deleted since a token, in commit order (sync)", 200,
          schemas.ChangePage, "A page of changes and the token to go on from.",
          (400, 401, 410), query="changes_query"),
    Route("GET", "/notes/{noteId}", "note_get", "getNote", "One note with its index status",
          200, schemas.Note, "The note.", (401, 404), etag=True),
    Route("PATCH", "/notes/{noteId}", "note_patch", "updateNote",
          "Edit a note (re-indexed if its text changed); with If-Match, only that version",
          200, schemas.Note, "The edited note.", (*_BODY_ERRORS, 404, 412, 503),
          body="note_patch", headers=("If-Match",), etag=True),
    Route("DELETE", "/notes/{noteId}", "note_delete", "deleteNote",
          "Delete a note and its chunks; with If-Match, only that version", 204, None,
          "Deleted.", (401, 404, 412, 503), headers=("If-Match",)),
    Route("POST", "/chat", "chat", "chat", "A cited answer from the caller's notes", 200,
          schemas.ChatResponse,
          "The answer; with Accept: text/event-stream, server-sent events.",
          (*_BODY_ERRORS, 404, 409, 422), body="chat", streams=True,
          headers=("Idempotency-Key",)),
    Route("POST", "/search", "search", "search", "Retrieval only, with score breakdowns", 200,
          schemas.SearchResponse, "Scored chunks.", _BODY_ERRORS, body="search"),
    Route("GET", "/conversations", "conversations_list", "listConversations",
          "A page of the caller's conversations, latest activity first", 200,
          schemas.ConversationPage, "A page of conversations.", (400, 401),
          query="conversations_query"),
    Route("GET", "/conversations/{conversationId}/messages", "messages", "conversationMessages",
          "A conversation's turns", 200, schemas.Messages, "The turns.", (401, 404)),
    Route("GET", "/messages/{messageId}/sources", "sources", "messageSources",
          "The sources an answer cited", 200, schemas.Sources, "The cited sources.", (401, 404)),
    Route("DELETE", "/account", "account_delete", "deleteAccount",
          "Delete the caller's account and every piece of its data (a job)", 202,
          schemas.AccountDeletion, "The deletion job was started (or already runs).",
          (400, 401, 404, 413, 415), body="account_delete"),
    Route("POST", "/uploads", "uploads_start", "startUpload",
          "A URL to upload one archive straight to Cloud Storage, under the caller's own "
          "users/{uid}/ (for archives over the body limit of POST /imports)", 201,
          schemas.Upload, "The object's name and its upload URL.",
          (*_BODY_ERRORS, 404), body="upload_start"),
    Route("POST", "/imports", "imports_start", "startImport",
          "Import an archive of notes (Markdown/Obsidian, Evernote, Keep, Notion, Footnote) "
          "with their dates: a job; JSON names an uploaded object, any other body is the "
          "archive itself", 202, schemas.ImportJob, "The import job.",
          (*_BODY_ERRORS, 403, 404, 409, 422), body="import_start", headers=("Idempotency-Key",)),
    Route("GET", "/imports/{importId}", "import_get", "getImport",
          "An import's progress and report", 200, schemas.ImportJob, "The import job.",
          (401, 404)),
    Route("DELETE", "/imports/{importId}", "import_cancel", "cancelImport",
          "Cancel an import (notes already imported stay)", 200, schemas.ImportJob,
          "The import job.", (401, 404)),
    Route("POST", "/exports", "exports_start", "startExport",
          "Export every note and conversation as one zip (a job; a few a day)", 202,
          schemas.ExportJob, "The export job.", (401, 409, 422, 429),
          headers=("Idempotency-Key",)),
    Route("GET", "/exports/{exportId}", "export_get", "getExport",
          "An export's progress; once done, where to download it", 200, schemas.ExportJob,
          "The export job.", (401, 404)),
    Route("GET", "/exports/{exportId}/archive", "export_archive", "downloadExport",
          "The finished export's zip (application/zip)", 200, None, "The archive.",
          (401, 404)),
)  # fmt: skip


def path_ids(path: str) -> list[str]:
    """The ids in a documented path: ``/notes/{noteId}`` -> ``["noteId"]``."""
    return re.findall(r"\{(\w+)\}", path)


def _rule(route: Route) -> Rule:
    path = route.path
    for name in path_ids(path):
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
        path = path.replace(
            f"{{{name}}}", f"<string(minlength=1,maxlength={ID_MAX_CHARS}):{snake}>"
        )
    return Rule(path, endpoint=route.endpoint, methods=[route.method])


ROUTES = Map(
    [_rule(r) for r in ROUTE_TABLE],
    # One canonical form: `/notes/` is not `/notes` (not found, as the README says).
    strict_slashes=True,
    # No redirects: a doubled slash (`/notes//abc`, `/notes/%2Fabc`) is simply not
    # found. Werkzeug would answer it with a 308 raised as an exception, outside the
    # error envelope.
    merge_slashes=False,
    redirect_defaults=False,
)
