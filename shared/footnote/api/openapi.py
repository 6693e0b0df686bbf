"""The OpenAPI 3.1 description of the HTTP API, generated from what serves it.

Paths and operations come from the route table (``api/routes.py``), request and
response schemas from the models in ``api/schemas.py`` built with the settings in
force, so the description states the limits the running API enforces and cannot
drift from it. Served at ``GET /openapi.json`` (no token needed) and used by the
property-based fuzzer in ``tests/fuzz``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, models_json_schema
from pydantic_core import CoreSchema

from footnote.api import schemas
from footnote.api.routes import ROUTE_TABLE, Route, path_ids
from footnote.config import Settings

_ERRORS = {
    400: "Invalid request (bad JSON, bad field, empty text, bad cursor or page size).",
    401: "Missing or invalid Firebase ID token.",
    403: "The named object is outside the caller's own uploads (users/{uid}/).",
    404: "No such resource for this caller (another tenant's ids look missing too).",
    413: "Request body or note text too large.",
    415: "Body is not application/json.",
    409: "The first request with this Idempotency-Key is still running; retry after the "
    "Retry-After header's seconds to get its response.",
    410: "The sync token is older than the deletions kept (TOMBSTONE_RETENTION_DAYS): "
    "sync in full, without since.",
    412: "If-Match named a version that is no longer current; nothing was changed. "
    "details.current is the note as it is now, and the ETag header its version.",
    422: "This Idempotency-Key was used before with another request (another body, or "
    "JSON instead of a stream); nothing was done.",
    429: "A per-user quota is used up (requests per minute, notes per day, stored "
    "characters); the Retry-After header says when to try again. Nothing was done.",
    503: "Another request was changing the same note at that moment; nothing was done. "
    "Retry after the Retry-After header's seconds.",
}
# The request headers an operation reads (Route.headers), as parameters.
_HEADERS: dict[str, dict[str, Any]] = {
    "If-Match": {
        "name": "If-Match",
        "in": "header",
        "required": False,
        "description": "The note's ETag as last read (several, comma-separated, or *): the "
        "edit or delete applies only to that version, otherwise 412 with the current note. "
        "Weak tags never match. Without it, the last write wins.",
        "schema": {"type": "string", "maxLength": 1000},
    },
    "Idempotency-Key": {
        "name": "Idempotency-Key",
        "in": "header",
        "required": False,
        "description": "A key the client makes for one request (a UUID): a retry with the "
        "same key and the same body gets the first response again (with "
        "Idempotent-Replayed: true) and does nothing again; the same key with another "
        "body is 422. A failed request (4xx, 5xx) is not remembered. Keys are per user "
        "and endpoint and expire after IDEMPOTENCY_TTL_HOURS (24 h).",
        "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 255,
            "pattern": "^[!-~]+$",
        },
    },
}
_REPLAYED_HEADER = {
    "Idempotent-Replayed": {
        "description": "true when this is the stored response of an earlier request "
        "with the same Idempotency-Key.",
        "schema": {"type": "string", "enum": ["true"]},
    }
}
_ETAG_HEADER = {
    "ETag": {
        "description": "The note's version (quotes included); send it back in If-Match.",
        "schema": {"type": "string"},
    }
}
_ID_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": schemas.ID_MAX_CHARS,
    "pattern": schemas.ID_PATTERN,
}


class _Untitled(GenerateJsonSchema):
    """Models keep their titles; fields do not get one made from their names."""

    def field_title_should_be_set(self, schema: CoreSchema) -> bool:
        return False


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def build_spec(settings: Settings | None = None) -> dict[str, Any]:
    """The description for ``settings`` (the process's when None). Cached per set of
    limits: callers must not change it."""
    return _spec(schemas.Limits.of(settings or Settings()))


@lru_cache(maxsize=8)
def _spec(limits: schemas.Limits) -> dict[str, Any]:
    models = schemas.build_models(limits)
    entries: list[tuple[type[BaseModel], JsonSchemaMode]] = [(schemas.Error, "serialization")]
    for route in ROUTE_TABLE:
        for name in (route.body, route.query):
            if name is not None:
                entries.append((getattr(models, name), "validation"))
        if route.response is not None:
            entries.append((route.response, "serialization"))
        if route.streams:
            entries.extend((model, "serialization") for _, model in schemas.STREAM_EVENTS)
    refs, top = models_json_schema(
        list(dict.fromkeys(entries)),
        ref_template="#/components/schemas/{model}",
        schema_generator=_Untitled,
    )
    components: dict[str, Any] = top["$defs"]
    paths: dict[str, Any] = {}
    for route in ROUTE_TABLE:
        item = paths.setdefault(route.path, {})
        if path_ids(route.path):
            item["parameters"] = [
                {"name": n, "in": "path", "required": True, "schema": _ID_SCHEMA}
                for n in path_ids(route.path)
            ]
        item[route.method.lower()] = _operation(route, models, refs, components)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Footnote API",
            "version": "0.1.0",
            "description": (
                "Answers from a user's own notes, every claim cited. Every endpoint but "
                "/healthz and /openapi.json needs a Firebase ID token; the tenant is the "
                'token\'s user id. Errors are {"error": {"code", "message", "details"}}. '
                f"Limits: note text {limits.note_max_chars} characters, title "
                f"{limits.note_title_max_chars}, {limits.note_max_tags} tags of "
                f"{schemas.TAG_MAX_CHARS}, question {limits.chat_max_query_length} "
                f"characters, request body {limits.request_max_bytes} bytes, page size "
                f"1-{limits.page_size_max}."
            ),
        },
        "servers": [{"url": "/"}, {"url": "/api"}],
        "security": [{"firebase": []}],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "firebase": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "Firebase ID token (JWT)",
                }
            },
        },
    }


def _operation(
    route: Route,
    models: schemas.RequestModels,
    refs: Mapping[tuple[Any, JsonSchemaMode], dict[str, Any]],
    components: dict[str, Any],
) -> dict[str, Any]:
    op: dict[str, Any] = {"operationId": route.operation_id, "summary": route.summary}
    if route.public:
        op["security"] = []
    if route.query is not None:
        query = components.pop(
            refs[(getattr(models, route.query), "validation")]["$ref"].rsplit("/", 1)[1]
        )
        op["parameters"] = [
            {
                "name": name,
                "in": "query",
                "required": name in query.get("required", ()),
                "schema": _not_null(schema),
            }
            for name, schema in query["properties"].items()
        ]
    if route.headers:
        op["parameters"] = [*op.get("parameters", ()), *(_HEADERS[h] for h in route.headers)]
    if route.body is not None:
        body = refs[(getattr(models, route.body), "validation")]
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    if route.response is None:
        success: dict[str, Any] = (
            {"description": route.described}
            if route.status == 204
            else _json({"type": "object"}, route.described)
        )
    else:
        success = _json(refs[(route.response, "serialization")], route.described)
        if route.streams:
            # Server-sent events; each event's data is the JSON of its model, in this
            # order (OpenAPI 3.1 has no keyword for an event stream's items).
            success["content"]["text/event-stream"] = {
                "schema": {"type": "string"},
                "x-events": {
                    name: refs[(model, "serialization")] for name, model in schemas.STREAM_EVENTS
                },
            }
    if route.etag:
        success["headers"] = dict(_ETAG_HEADER)
    if "Idempotency-Key" in route.headers:
        success["headers"] = {**success.get("headers", {}), **_REPLAYED_HEADER}
    error = refs[(schemas.Error, "serialization")]
    op["responses"] = {
        str(route.status): success,
        **{str(s): _json(error, _ERRORS[s]) for s in sorted(route.errors)},
    }
    if 412 in route.errors:
        op["responses"]["412"]["headers"] = _ETAG_HEADER
    return op


def _not_null(schema: dict[str, Any]) -> dict[str, Any]:
    """A query parameter's schema: a parameter is absent rather than null."""
    branches = [b for b in schema.get("anyOf", ()) if b != {"type": "null"}]
    out = {k: v for k, v in schema.items() if k != "anyOf" and not (k == "default" and v is None)}
    return {**branches[0], **out} if len(branches) == 1 else out
