"""The OpenAPI 3.1 description of the HTTP API, built from the settings in force.

Served at ``GET /openapi.json`` (no token needed) and used by the property-based
fuzzer in ``tests/fuzz``. Limits come from :class:`~footnote.config.Settings`,
so the description always states the limits the running API enforces.
"""

from __future__ import annotations

from typing import Any

from footnote.config import Settings
from footnote.domain import Fallback, MemoryType, Strategy

ID_PATTERN = r"^[A-Za-z0-9_-]+$"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    what = {
        400: "Invalid request (bad JSON, bad field, empty text, bad cursor or page size).",
        401: "Missing or invalid Firebase ID token.",
        404: "No such resource for this caller (another tenant's ids look missing too).",
        405: "Method not allowed on this path.",
        413: "Request body or note text too large.",
        415: "Body is not application/json.",
        429: "A per-user quota is used up (requests per minute, notes per day, stored "
        "characters); the Retry-After header says when to try again. Nothing was done.",
        503: "A backend (store or model) is unavailable; retry later.",
    }
    return {str(s): _json(_ref("Error"), what[s]) for s in statuses}


def build_spec(settings: Settings | None = None) -> dict[str, Any]:
    s = settings or Settings()  # type: ignore[call-arg]
    types = [t.value for t in MemoryType]
    id_param = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": ID_PATTERN}

    def path_id(name: str) -> dict[str, Any]:
        return {"name": name, "in": "path", "required": True, "schema": id_param}

    schemas: dict[str, Any] = {
        "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {
                "error": {
                    "type": "object",
                    "required": ["code", "message", "details"],
                    "properties": {
                        "code": {"type": "string"},
                        "message": {"type": "string"},
                        "details": {},
                    },
                }
            },
        },
        "MemoryType": {"type": "string", "enum": types},
        "NoteCreate": {
            "type": "object",
            "additionalProperties": False,
            "required": ["text"],
            "properties": {
                "text": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": s.note_max_chars,
                    "description": "Must contain non-blank text. Longer text gets 413.",
                },
                "title": {"type": ["string", "null"], "maxLength": s.note_title_max_chars},
                "tags": {
                    "type": ["array", "null"],
                    "maxItems": s.note_max_tags,
                    "items": {"type": "string", "maxLength": 50},
                },
                "type": {"anyOf": [_ref("MemoryType"), {"type": "null"}]},
            },
        },
        "NotePatch": {
            "type": "object",
            "additionalProperties": False,
            "minProperties": 1,
            "properties": {
                "text": {"type": "string", "minLength": 1, "maxLength": s.note_max_chars},
                "title": {"type": ["string", "null"], "maxLength": s.note_title_max_chars},
                "tags": {
                    "type": ["array", "null"],
                    "maxItems": s.note_max_tags,
                    "items": {"type": "string", "maxLength": 50},
                },
                "type": {"anyOf": [_ref("MemoryType"), {"type": "null"}]},
            },
        },
        "Note": {
            "type": "object",
            "required": ["id", "text", "title", "tags", "type", "createdAt", "updatedAt"],
            "properties": {
                "id": {"type": "string"},
                "text": {"type": "string"},
                "title": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "type": {"type": ["string", "null"]},
                "createdAt": {"type": "string", "format": "date-time"},
                "updatedAt": {"type": "string", "format": "date-time"},
                "indexStatus": {
                    "type": "string",
                    "enum": ["pending", "indexed", "failed", "deleted"],
                },
                "chunkCount": {"type": "integer"},
            },
        },
        "NotePage": {
            "type": "object",
            "required": ["notes", "cursor", "hasMore"],
            "properties": {
                "notes": {"type": "array", "items": _ref("Note")},
                "cursor": {"type": ["string", "null"]},
                "hasMore": {"type": "boolean"},
            },
        },
        "RagConfig": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "enableRag": {"type": "boolean", "default": True},
                "maxSources": {"type": "integer", "minimum": 1, "maximum": 12, "default": 8},
                "includeCitations": {"type": "boolean", "default": True},
                "types": {"type": "array", "maxItems": 6, "items": _ref("MemoryType")},
            },
        },
        "ChatRequest": {
            "type": "object",
            "additionalProperties": False,
            "required": ["message"],
            "properties": {
                "message": {"type": "string", "minLength": 1, "maxLength": s.chat_max_query_length},
                "conversationId": {
                    "type": ["string", "null"],
                    "minLength": 1,
                    "maxLength": 100,
                    "pattern": ID_PATTERN,
                },
                "ragConfig": _ref("RagConfig"),
            },
        },
        "Citation": {
            "type": "object",
            "required": ["cid", "noteId", "chunkId", "createdAt", "snippet", "score"],
            "properties": {
                "cid": {"type": "string", "pattern": r"^N[0-9]+$"},
                "noteId": {"type": "string"},
                "chunkId": {"type": "string"},
                "createdAt": {"type": "string"},
                "snippet": {"type": "string"},
                "score": {"type": "number"},
            },
        },
        "ChatResponse": {
            "type": "object",
            "required": ["answer", "citations", "conversationId", "messageId", "meta"],
            "properties": {
                "answer": {"type": "string"},
                "citations": {"type": "array", "items": _ref("Citation")},
                "conversationId": {"type": "string"},
                "messageId": {"type": "string"},
                "meta": {
                    "type": "object",
                    "required": ["model", "confidence", "retrieval", "timings", "fallbacks"],
                    "properties": {
                        "model": {"type": "string"},
                        "confidence": {"type": "number"},
                        "retrieval": {
                            "type": "object",
                            "required": ["k", "strategy"],
                            "properties": {
                                "k": {"type": "integer"},
                                "strategy": {
                                    "type": "string",
                                    "enum": [s.value for s in Strategy],
                                },
                            },
                        },
                        "timings": {"type": "object"},
                        "fallbacks": {
                            "type": "array",
                            "items": {"type": "string", "enum": [f.value for f in Fallback]},
                        },
                    },
                },
            },
        },
        "SearchRequest": {
            "type": "object",
            "additionalProperties": False,
            "required": ["query"],
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": s.chat_max_query_length},
                "k": {"type": "integer", "minimum": 1, "maximum": 50, "default": 8},
            },
        },
        "SearchResponse": {
            "type": "object",
            "required": ["results", "meta"],
            "properties": {
                "results": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["chunkId", "noteId", "text", "score", "breakdown"],
                    },
                },
                "meta": {
                    "type": "object",
                    "required": ["strategy"],
                    "properties": {
                        "strategy": {"type": "string", "enum": [s.value for s in Strategy]}
                    },
                },
            },
        },
        "Messages": {
            "type": "object",
            "required": ["messages"],
            "properties": {"messages": {"type": "array", "items": {"type": "object"}}},
        },
        "Sources": {
            "type": "object",
            "required": ["sources"],
            "properties": {"sources": {"type": "array", "items": _ref("Citation")}},
        },
        "Health": {
            "type": "object",
            "required": ["status", "backends"],
            "properties": {"status": {"type": "string"}, "backends": {"type": "object"}},
        },
    }

    secured: list[dict[str, list[str]]] = [{"firebase": []}]
    body_errors = (400, 401, 413, 415, 429)
    paths: dict[str, Any] = {
        "/healthz": {
            "get": {
                "operationId": "health",
                "security": [],
                "summary": "Liveness and active backends",
                "responses": {"200": _json(_ref("Health"), "The service is up.")},
            }
        },
        "/openapi.json": {
            "get": {
                "operationId": "openapi",
                "security": [],
                "summary": "This description",
                "responses": {"200": _json({"type": "object"}, "The OpenAPI document.")},
            }
        },
        "/notes": {
            "post": {
                "operationId": "createNote",
                "summary": "Save a note (indexed asynchronously)",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("NoteCreate")}},
                },
                "responses": {
                    "201": _json(_ref("Note"), "The saved note."),
                    **_errors(*body_errors),
                },
            },
            "get": {
                "operationId": "listNotes",
                "summary": "A page of the caller's notes, newest first",
                "parameters": [
                    {
                        "name": "limit",
                        "in": "query",
                        "required": False,
                        "schema": {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": s.page_size_max,
                            "default": 20,
                        },
                    },
                    {
                        "name": "cursor",
                        "in": "query",
                        "required": False,
                        "schema": {
                            "type": "string",
                            "maxLength": 1000,
                            "description": "The opaque cursor of the previous page.",
                        },
                    },
                ],
                "responses": {
                    "200": _json(_ref("NotePage"), "A page of notes."),
                    **_errors(400, 401),
                },
            },
        },
        "/notes/{noteId}": {
            "parameters": [path_id("noteId")],
            "get": {
                "operationId": "getNote",
                "summary": "One note with its index status",
                "responses": {"200": _json(_ref("Note"), "The note."), **_errors(401, 404)},
            },
            "patch": {
                "operationId": "updateNote",
                "summary": "Edit a note (re-indexed if its text changed)",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("NotePatch")}},
                },
                "responses": {
                    "200": _json(_ref("Note"), "The edited note."),
                    **_errors(*body_errors, 404),
                },
            },
            "delete": {
                "operationId": "deleteNote",
                "summary": "Delete a note and its chunks",
                "responses": {"204": {"description": "Deleted."}, **_errors(401, 404)},
            },
        },
        "/chat": {
            "post": {
                "operationId": "chat",
                "summary": "A cited answer from the caller's notes",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("ChatRequest")}},
                },
                "responses": {
                    "200": {
                        "description": "The answer; with Accept: text/event-stream, server-sent events.",
                        "content": {
                            "application/json": {"schema": _ref("ChatResponse")},
                            "text/event-stream": {"schema": {"type": "string"}},
                        },
                    },
                    **_errors(*body_errors, 404),
                },
            }
        },
        "/search": {
            "post": {
                "operationId": "search",
                "summary": "Retrieval only, with score breakdowns",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("SearchRequest")}},
                },
                "responses": {
                    "200": _json(_ref("SearchResponse"), "Scored chunks."),
                    **_errors(*body_errors),
                },
            }
        },
        "/conversations/{conversationId}/messages": {
            "parameters": [path_id("conversationId")],
            "get": {
                "operationId": "conversationMessages",
                "summary": "A conversation's turns",
                "responses": {"200": _json(_ref("Messages"), "The turns."), **_errors(401, 404)},
            },
        },
        "/messages/{messageId}/sources": {
            "parameters": [path_id("messageId")],
            "get": {
                "operationId": "messageSources",
                "summary": "The sources an answer cited",
                "responses": {
                    "200": _json(_ref("Sources"), "The cited sources."),
                    **_errors(401, 404),
                },
            },
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Footnote API",
            "version": "0.1.0",
            "description": (
                "Answers from a user's own notes, every claim cited. Every endpoint but "
                "/healthz and /openapi.json needs a Firebase ID token; the tenant is the "
                'token\'s user id. Errors are {"error": {"code", "message", "details"}}. '
                f"Limits: note text {s.note_max_chars} characters, title "
                f"{s.note_title_max_chars}, {s.note_max_tags} tags of 50, question "
                f"{s.chat_max_query_length} characters, request body {s.request_max_bytes} "
                f"bytes, page size 1-{s.page_size_max}."
            ),
        },
        "servers": [{"url": "/"}, {"url": "/api"}],
        "security": secured,
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "firebase": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "Firebase ID token (JWT)",
                }
            },
        },
    }
