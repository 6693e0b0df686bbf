"""Routing and the HTTP edge: CORS, body limits, JSON, auth, the error envelope.

Why this module is over 450 lines: every request passes through ``Api`` (CORS,
App Check, the token, body limits, idempotency, the error envelope), each endpoint
a few lines over those; the helpers below it parse and write bodies for it alone.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import IO, Any, TypeVar

from pydantic import BaseModel, ValidationError
from werkzeug.exceptions import ClientDisconnected, HTTPException
from werkzeug.exceptions import MethodNotAllowed as WzMethodNotAllowed
from werkzeug.routing import RequestRedirect
from werkzeug.wrappers import Request, Response

from footnote import logs
from footnote.api import wire
from footnote.api.routes import ROUTES
from footnote.api.schemas import (
    ID_MAX_CHARS,
    PAGE_SIZE_DEFAULT,
    RULE_ERRORS,
    PageQuery,
    request_models,
)
from footnote.config import Settings
from footnote.errors import (
    ClientClosedRequest,
    Contention,
    FootnoteError,
    IdempotencyInProgress,
    InvalidRequest,
    MalformedBody,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    PreconditionFailed,
    QuotaExceeded,
    Unauthenticated,
    UnsupportedMediaType,
)
from footnote.ports import AppCheckVerifier, StoredResponse, TokenVerifier
from footnote.services.accounts import AccountService
from footnote.services.chat import ChatService, StreamEvent
from footnote.services.exports import ExportService
from footnote.services.idempotency import IdempotencyService
from footnote.services.imports import ImportService
from footnote.services.notes import NotesService
from footnote.services.quotas import QuotaService
from footnote.services.results import NoteView
from footnote.temporal import language_of

log = logging.getLogger("footnote.api")
_SAFE_METHODS = frozenset({"GET", "HEAD"})
M = TypeVar("M", bound=BaseModel)
P = TypeVar("P", bound=PageQuery)


# Ids we issue are URL-safe; anything else (incl. Firestore-reserved "__x__") is simply not found.
_SAFE_ID = re.compile(rf"(?!__.*__$)[A-Za-z0-9_-]{{1,{ID_MAX_CHARS}}}")


class Api:
    def __init__(
        self,
        settings: Settings,
        verifier: TokenVerifier,
        notes: Callable[[], NotesService],
        chat: Callable[[], ChatService],
        health: Callable[[], dict[str, Any]],
        quotas: Callable[[], QuotaService] | None = None,
        app_check: AppCheckVerifier | None = None,
        accounts: Callable[[], AccountService] | None = None,
        idempotency: Callable[[], IdempotencyService] | None = None,
        imports: Callable[[], ImportService] | None = None,
        exports: Callable[[], ExportService] | None = None,
    ) -> None:
        self._s = settings
        self._models = request_models(settings)
        self._app_check = app_check  # None: App Check is off
        self._quotas = quotas  # None: no per-user quotas (in-process test harnesses)
        self._idempotency = idempotency  # None: Idempotency-Key is ignored
        self._verifier = verifier
        self._notes = notes
        self._chat = chat
        self._health = health
        self._accounts = accounts  # None: no account endpoints (in-process harnesses)
        self._imports = imports  # None: no import endpoints
        self._exports = exports  # None: no export endpoints

    # -- entry -----------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        started = time.perf_counter()
        request_id = uuid.uuid4().hex[:16]
        fields: dict[str, Any] = {
            "httpRequest": {"requestMethod": request.method, "requestUrl": request.path},
            "requestId": request_id,
            "trace": logs.trace_id(request.headers.get("X-Cloud-Trace-Context")),
        }
        try:
            if request.method == "OPTIONS":
                response = Response(status=204)
            else:
                response = self._dispatch(request, fields)
        except FootnoteError as exc:
            response = _json(wire.error(exc.code, exc.message, exc.details), exc.status)
            fields["error"] = exc.code
            if isinstance(exc, QuotaExceeded | Contention | IdempotencyInProgress):
                response.headers["Retry-After"] = str(exc.retry_after)
            if isinstance(exc, PreconditionFailed):
                response.headers["ETag"] = wire.etag(exc.current)
            if isinstance(exc, MethodNotAllowed) and exc.allowed:
                response.headers["Allow"] = ", ".join(exc.allowed)
            if isinstance(exc, ClientClosedRequest):
                fields["clientAborted"] = True
        except Exception:
            # The entry point's last resort, the one broad catch the API keeps: a bug
            # (every expected failure is a FootnoteError, above) is logged with its
            # traceback and answered 500 "internal" with the request id that finds it.
            log.exception("unhandled error", extra={"fields": {"requestId": request_id}})
            response = _json(
                wire.error("internal", "internal error", {"requestId": request_id}), 500
            )
        if response.status_code >= 400:
            _leave_unread_body(request)
        self._cors(request, response)
        response.headers["X-Request-Id"] = request_id
        fields["httpRequest"]["status"] = response.status_code
        fields["latencyMs"] = round((time.perf_counter() - started) * 1000, 2)
        logs.event(log, f"{request.method} {request.path} {response.status_code}", **fields)
        return response

    def _dispatch(self, request: Request, fields: dict[str, Any]) -> Response:
        path = request.path
        # One canonical form: no empty segment anywhere, leading ones included (the
        # server may have merged those already; RAW_URI is the path as sent).
        target = str(request.environ.get("RAW_URI") or request.environ.get("REQUEST_URI") or "")
        target = target.split("?", 1)[0]
        if "://" in target:  # absolute form: http://host/path
            target = "/" + target.split("://", 1)[1].partition("/")[2]
        if "//" in path or "//" in target:
            raise NotFound("no such endpoint")
        if path == "/api" or path.startswith("/api/"):  # Hosting rewrites /api/** to us
            path = path[4:] or "/"
        adapter = ROUTES.bind("footnote", path_info=path)
        try:
            endpoint, args = adapter.match(path, method=request.method)
        except WzMethodNotAllowed as exc:
            allowed = tuple(sorted(m for m in exc.valid_methods or () if m != "HEAD"))
            # "GET /search" is a natural guess: say what the path takes
            raise MethodNotAllowed(
                f"{request.method} is not allowed for {path}; use {' or '.join(allowed)}"
                if allowed
                else "method not allowed for this path",
                allowed,
            ) from None
        except (RequestRedirect, HTTPException):  # NotFound, and any redirect left
            raise NotFound("no such endpoint") from None
        if endpoint == "health":
            return _json(wire.health(self._health()), 200)
        if endpoint == "openapi":  # public, like /healthz
            return self._on_openapi(request)
        if self._app_check is not None:
            fields["appId"] = self._app_check.verify(
                request.headers.get("X-Firebase-AppCheck", "").strip()
            )
        tenant = self._authenticate(request, endpoint)
        fields["tenant"] = tenant
        if any(not _SAFE_ID.fullmatch(v) for v in args.values()):
            raise NotFound("not found")
        if (
            request.method != "GET"
            and endpoint != "account_delete"
            and self._accounts is not None
            and self._accounts().is_deleting(tenant)
        ):
            # The account is being deleted: its tokens write nothing more (the
            # stores check the same fence inside their transactions).
            raise Unauthenticated("a valid Firebase ID token is required")
        handler = getattr(self, f"_on_{endpoint}")
        return handler(request, tenant, fields, **args)  # type: ignore[no-any-return]

    # -- endpoints -------------------------------------------------------------
    def _on_openapi(self, request: Request) -> Response:
        from footnote.api.openapi import build_spec

        return _json(build_spec(self._s), 200)

    def _on_notes_create(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        return self._idempotent(
            request, tenant, "notes_create", lambda: self._create(request, tenant, fields)
        )

    def _create(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        body = _parse(request, self._models.note_create, self._s.request_max_bytes)
        note = self._notes().create(tenant, body.text, body.title, body.tags, body.type)
        fields["noteId"] = note.note.id
        return _json(
            wire.note(note),
            201,
            {"Location": f"/notes/{note.note.id}", "ETag": wire.etag(note.note)},
        )

    def _on_notes_list(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        query = _page_query(request, self._models.notes_query)
        return _json(wire.note_page(self._notes().list(tenant, query.limit, query.cursor)), 200)

    def _on_notes_changes(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        raw_limit = request.args.get("limit", str(PAGE_SIZE_DEFAULT))
        query = _validate(
            self._models.changes_query,
            {"limit": _whole_number(raw_limit), "since": request.args.get("since")},
        )
        return _json(wire.changes(self._notes().changes(tenant, query.since, query.limit)), 200)

    def _on_note_get(
        self, request: Request, tenant: str, fields: dict[str, Any], note_id: str
    ) -> Response:
        view = self._notes().get(tenant, note_id)
        return _json(wire.note(view), 200, {"ETag": wire.etag(view.note)})

    def _on_note_patch(
        self, request: Request, tenant: str, fields: dict[str, Any], note_id: str
    ) -> Response:
        body = _parse(request, self._models.note_patch, self._s.request_max_bytes)
        changes = {name: getattr(body, name) for name in body.model_fields_set}
        with _current_on_conflict():
            view = self._notes().update(tenant, note_id, changes, _if_match(request))
        return _json(wire.note(view), 200, {"ETag": wire.etag(view.note)})

    def _on_note_delete(
        self, request: Request, tenant: str, fields: dict[str, Any], note_id: str
    ) -> Response:
        with _current_on_conflict():
            self._notes().delete(tenant, note_id, _if_match(request))
        return Response(status=204)

    def _on_chat(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        return self._idempotent(
            request, tenant, "chat", lambda: self._answer(request, tenant, fields)
        )

    def _answer(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        body = _parse(request, self._models.chat, self._s.request_max_bytes)
        service = self._chat()
        rag = body.rag_config.options()
        language = body.language or language_of(request.headers.get("Accept-Language"))
        with self._charged(tenant, "chat"):
            if wants_event_stream(request):
                # Sentences are sent as the generator writes them; closing the response
                # (a client that left) closes the stream and stops the generation.
                events = service.chat_stream(
                    tenant, body.message, body.conversation_id, rag, body.time_zone, language
                )
                return Response(
                    _sse(events),
                    status=200,
                    mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
                )
            outcome = service.chat(
                tenant, body.message, body.conversation_id, rag, body.time_zone, language
            )
        answer = wire.chat(outcome)
        fields.update(outcome.log_fields, timings=answer["meta"]["timings"])
        return _json(answer, 200)

    def _on_search(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        body = _parse(request, self._models.search, self._s.request_max_bytes)
        with self._charged(tenant, "search"):
            language = body.language or language_of(request.headers.get("Accept-Language"))
            result = self._chat().search(tenant, body.query, body.k, body.time_zone, language)
        fields["strategy"] = result.retrieval.strategy
        fields["chunkIds"] = [h.chunk_id for h in result.hits]
        return _json(wire.search(result), 200)

    def _on_conversations_list(
        self, request: Request, tenant: str, fields: dict[str, Any]
    ) -> Response:
        query = _page_query(request, self._models.conversations_query)
        listing = self._chat().conversations(tenant, query.limit, query.cursor)
        return _json(wire.conversation_page(listing), 200)

    def _on_messages(
        self, request: Request, tenant: str, fields: dict[str, Any], conversation_id: str
    ) -> Response:
        return _json(wire.messages(self._chat().messages(tenant, conversation_id)), 200)

    def _on_sources(
        self, request: Request, tenant: str, fields: dict[str, Any], message_id: str
    ) -> Response:
        return _json(wire.sources(self._chat().sources(tenant, message_id)), 200)

    def _on_account_delete(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        body = _parse(request, self._models.account_delete, self._s.request_max_bytes)
        if self._accounts is None:
            raise NotFound("no such endpoint")
        job = self._accounts().request_deletion(tenant, body.confirm)
        fields["deletionJob"] = job.job_id
        return _json(wire.account_deletion(job), 202)

    def _on_uploads_start(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        body = _parse(request, self._models.upload_start, self._s.request_max_bytes)
        name = _safe_file_name(body.name) or "upload"
        object_name, url = self._import_service().upload_session(
            tenant,
            f"{uuid.uuid4().hex}/{name}",
            body.size,
            body.content_type,
            request.headers.get("Origin"),
        )
        return _json(wire.upload(object_name, url), 201)

    def _on_imports_start(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        return self._idempotent(
            request, tenant, "imports_start", lambda: self._start_import(request, tenant, fields)
        )

    def _start_import(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        imports = self._import_service()
        job_id = new_import_id()
        if request.mimetype == "application/json":
            body = _parse(request, self._models.import_start, self._s.request_max_bytes)
            object_name = body.object
        else:
            # The archive itself (at most IMPORT_UPLOAD_MAX_BYTES; bigger ones go to
            # Cloud Storage first). ?name= keeps its file name, a hint to its format.
            data = _body(request, self._s.import_upload_max_bytes)
            if not data:
                raise InvalidRequest("the archive is empty")
            name = _safe_file_name(request.args.get("name", "")) or "upload"
            object_name = imports.upload(tenant, f"{job_id}/{name}", data)
        job = imports.start(tenant, job_id, object_name)
        fields["importJob"] = job.id
        return _json(wire.import_job(job), 202)

    def _on_import_get(
        self, request: Request, tenant: str, fields: dict[str, Any], import_id: str
    ) -> Response:
        return _json(wire.import_job(self._import_service().get(tenant, import_id)), 200)

    def _on_import_cancel(
        self, request: Request, tenant: str, fields: dict[str, Any], import_id: str
    ) -> Response:
        return _json(wire.import_job(self._import_service().cancel(tenant, import_id)), 200)

    def _on_exports_start(self, request: Request, tenant: str, fields: dict[str, Any]) -> Response:
        def start() -> Response:
            job = self._export_service().start(tenant, "exp" + uuid.uuid4().hex[:20])
            fields["exportJob"] = job.id
            return _json(wire.export_job(job), 202)

        return self._idempotent(request, tenant, "exports_start", start)

    def _on_export_get(
        self, request: Request, tenant: str, fields: dict[str, Any], export_id: str
    ) -> Response:
        return _json(wire.export_job(self._export_service().get(tenant, export_id)), 200)

    def _on_export_archive(
        self, request: Request, tenant: str, fields: dict[str, Any], export_id: str
    ) -> Response:
        job, stream = self._export_service().archive(tenant, export_id)
        # Streamed in pieces: the archive is never held whole, and Cloud Run's 32 MiB
        # response limit does not apply to a streamed body.
        response = Response(
            _chunks(stream), status=200, mimetype="application/zip", direct_passthrough=True
        )
        response.headers["Content-Disposition"] = f'attachment; filename="footnote-{job.id}.zip"'
        response.headers["Content-Length"] = str(job.size)
        response.headers["Cache-Control"] = "no-store"
        return response

    def _export_service(self) -> ExportService:
        if self._exports is None:
            raise NotFound("no such endpoint")
        return self._exports()

    def _import_service(self) -> ImportService:
        if self._imports is None:
            raise NotFound("no such endpoint")
        return self._imports()

    # -- edge concerns -----------------------------------------------------------
    def _charged(self, tenant: str, endpoint: str) -> AbstractContextManager[None]:
        """The request counted against the caller's per-minute quota, and given back
        if the work inside fails (a 404 conversation, a backend down)."""
        if self._quotas is None:
            return nullcontext()
        return self._quotas().charged(tenant, endpoint)

    def _idempotent(
        self, request: Request, tenant: str, endpoint: str, run: Callable[[], Response]
    ) -> Response:
        """``run`` once per ``Idempotency-Key``: a retry with the same body (and the
        same Accept form) gets the first response again, ``Idempotent-Replayed: true``
        (services/idempotency.py has the rules)."""
        key = request.headers.get("Idempotency-Key")
        if key is None or self._idempotency is None:
            return run()
        service = self._idempotency()
        record = service.record_key(tenant, endpoint, service.check_key(key))
        limit = self._s.import_upload_max_bytes if endpoint == "imports_start" else None
        raw = _body(request, limit or self._s.request_max_bytes)
        form = b"sse\n" if wants_event_stream(request) else b"json\n"
        stored = service.begin(record, hashlib.sha256(form + raw).hexdigest(), tenant)
        if stored is not None:
            return _replayed(stored)
        try:
            response = run()
        except BaseException:
            service.release(record)
            raise
        if response.status_code >= 400:
            service.release(record)
        elif response.is_streamed:
            response.response = _recorded(
                response.response,  # type: ignore[arg-type]
                lambda body: service.complete(record, _stored(response, body)),
                lambda: service.release(record),
            )
        else:
            service.complete(record, _stored(response, response.get_data()))
        return response

    def _authenticate(self, request: Request, endpoint: str) -> str:
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthenticated("a valid Firebase ID token is required")
        token = token.strip()
        if endpoint == "account_delete" and self._accounts is not None:
            # DELETE /account closes the account at once (its sessions revoked, sign-in
            # disabled), so a retry of a request whose answer was lost would find its
            # token refused. A token that is itself valid, of an account whose deletion
            # has begun, gets that same job again; it learns nothing and can start
            # nothing else.
            uid = self._verifier.verify(token, fresh=True, check_account=False)
            if self._accounts().is_deleting(uid):
                return uid
        # Reads may reuse a recent check of the account (AUTH_REVOCATION_CACHE_S);
        # anything that may change data checks it now.
        return self._verifier.verify(token, fresh=request.method not in _SAFE_METHODS)

    def _cors(self, request: Request, response: Response) -> None:
        origin = request.headers.get("Origin")
        allowed = [o.strip() for o in self._s.cors_origins.split(",") if o.strip()]
        if "*" in allowed:
            response.headers["Access-Control-Allow-Origin"] = "*"
        elif origin and origin in allowed:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Vary"] = "Origin"
        else:
            return
        response.headers["Access-Control-Allow-Methods"] = "GET, POST, PATCH, DELETE, OPTIONS"
        response.headers["Access-Control-Allow-Headers"] = (
            "Authorization, Content-Type, Accept, X-Firebase-AppCheck, If-Match, Idempotency-Key"
        )
        response.headers["Access-Control-Expose-Headers"] = "ETag, Location, Retry-After"
        response.headers["Access-Control-Max-Age"] = "3600"


@contextmanager
def _current_on_conflict() -> Iterator[None]:
    """A 412 carries the note as it is now (``details.current``) and its ETag."""
    try:
        yield
    except PreconditionFailed as exc:
        raise PreconditionFailed(
            exc.current, {"current": wire.note(NoteView(exc.current))}
        ) from None


def _if_match(request: Request) -> frozenset[int] | None:
    """The note versions ``If-Match`` names; None without the header or with ``*``
    (any current version). Weak and foreign tags match nothing (strong comparison,
    RFC 9110), so a header of only those always answers 412."""
    if "If-Match" not in request.headers:
        return None
    tags = request.if_match
    if tags.star_tag:
        return None
    # An empty tag (``""``) comes back as None: like any foreign tag it matches nothing.
    return frozenset(
        int(t) for t in tags.as_set() if t and t.isascii() and t.isdigit() and len(t) < 19
    )


def wants_event_stream(request: Request) -> bool:
    """Whether the client asked for Server-Sent Events: an explicit
    ``text/event-stream`` entry (any case) with q > 0, preferred at least as much as
    JSON. Wildcards alone (``*/*``) get JSON, the documented default."""
    accept = request.accept_mimetypes
    stream_q = max(
        (q for value, q in accept if value.split(";")[0].strip().lower() == "text/event-stream"),
        default=0.0,
    )
    return stream_q > 0 and stream_q >= accept.quality("application/json")


def _body(request: Request, max_bytes: int) -> bytes:
    """The request body, at most ``max_bytes`` (checked from Content-Length before
    reading, and again on the bytes read)."""
    length = request.content_length
    if length is not None and length > max_bytes:
        raise PayloadTooLarge(f"request body is larger than {max_bytes} bytes")
    try:
        raw = request.get_data(cache=True)
    except (ClientDisconnected, ConnectionError) as exc:
        # The body ended before its Content-Length: the client went away.
        raise ClientClosedRequest("the request body ended early") from exc
    except OSError as exc:  # a bad chunk size or terminator (gunicorn's errors are OSErrors too)
        raise MalformedBody("request body is malformed (its chunked encoding)") from exc
    if len(raw) > max_bytes:
        raise PayloadTooLarge(f"request body is larger than {max_bytes} bytes")
    return raw


def _leave_unread_body(request: Request) -> None:
    """An error answered before (or instead of) reading the whole body: the body is
    left unread. functions-framework reads every request's body after a non-streamed
    response (its ``read_request`` hook), which would wait for a body that never comes
    (a huge Content-Length over the limit, answered 413 from the header) or fail again
    on one that cannot be read (a malformed chunk, a client gone), turning the answer
    into its own HTML 500."""
    if getattr(request, "_cached_data", None) is None:
        request._cached_data = b""


def _parse(request: Request, model: type[M], max_bytes: int) -> M:
    length = request.content_length
    if length is not None and length > max_bytes:
        raise PayloadTooLarge(f"request body is larger than {max_bytes} bytes")
    mimetype = request.mimetype or ""
    if mimetype != "application/json":
        raise UnsupportedMediaType("send the body as application/json")
    charset = request.mimetype_params.get("charset")
    if charset is not None and charset.strip().lower() not in ("utf-8", "utf8"):
        raise UnsupportedMediaType("send the body as application/json in UTF-8")
    raw = _body(request, max_bytes)
    try:
        parsed = model.model_validate_json(raw)  # parsed and validated in one pass
    except ValidationError as exc:
        if exc.errors()[0]["type"] == "json_invalid":
            raise _not_json(raw, exc) from None
        raise _invalid(exc) from None
    _refuse_duplicate_keys(raw)
    return parsed


def _refuse_duplicate_keys(raw: bytes) -> None:
    """A key twice in one object ({"text": "a", "text": "b"}) is refused: parsers
    disagree on which one counts (the body was valid otherwise, so this parse of
    at most REQUEST_MAX_BYTES succeeds)."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            duplicate = next(k for k in keys if keys.count(k) > 1)
            raise InvalidRequest(
                "request body is not valid: a key appears twice in one object",
                [{"field": duplicate, "problem": "duplicate key"}],
            )
        return dict(items)

    json.loads(raw, object_pairs_hook=pairs)


def _not_json(raw: bytes, exc: ValidationError) -> InvalidRequest:
    """Why a body the JSON parser refused is not JSON, said as before the parser was
    pydantic's. Runs only for such bodies (at most ``REQUEST_MAX_BYTES``)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return InvalidRequest("request body is not valid UTF-8")
    if "recursion limit" in exc.errors()[0]["msg"]:
        return InvalidRequest("request body is nested too deeply")
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return InvalidRequest("request body is not valid JSON")
    # Python's parser takes what pydantic's refused: a lone surrogate ("\ud800"),
    # which Firestore, UTF-8 and every response we write cannot carry.
    return InvalidRequest(
        "request body is not valid: strings must be valid Unicode (no unpaired surrogates)"
    )


def _page_query(request: Request, model: type[P]) -> P:
    """A paged list's ``limit`` and ``cursor``, checked by ``model``."""
    raw_limit = request.args.get("limit", str(PAGE_SIZE_DEFAULT))
    return _validate(
        model, {"limit": _whole_number(raw_limit), "cursor": request.args.get("cursor") or None}
    )


def _whole_number(raw: str) -> int:
    """A query parameter that must be a whole number: ASCII digits only (not "²" or
    full-width "１", which str.isdecimal takes), leading zeros allowed. Beyond nine
    significant digits it is over any limit: 10**9 stands for it (int() of a huge
    string is slow)."""
    if not raw or not (raw.isascii() and raw.isdigit()):
        raise InvalidRequest("limit must be a whole number")
    digits = raw.lstrip("0") or "0"
    return int(digits) if len(digits) <= 9 else 10**9


def _validate(model: type[M], data: Any) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _invalid(exc) from None


def _invalid(exc: ValidationError) -> FootnoteError:
    """The error a request that fails its model gets. Structural problems (types,
    unknown fields) come first, with every one in ``details``; otherwise the first
    rule a validator checked (blank text, a limit) answers with its own message."""
    errors = exc.errors(include_url=False, include_input=False)
    if errors[0]["type"] == "model_type" and not errors[0]["loc"]:
        return InvalidRequest("request body must be a JSON object")
    structural = [e for e in errors if e["type"] not in RULE_ERRORS]
    if structural:
        details = [
            {"field": ".".join(str(p) for p in e["loc"]), "problem": e["msg"]} for e in structural
        ]
        return InvalidRequest("request body is not valid", details)
    return RULE_ERRORS[errors[0]["type"]](errors[0]["msg"])


def _json(body: Any, status: int, headers: dict[str, str] | None = None) -> Response:
    return Response(
        json.dumps(body, ensure_ascii=False, separators=(",", ":")),
        status=status,
        mimetype="application/json",
        headers=headers,
    )


# Response headers an idempotency record keeps with the body (besides its type).
_REPLAYED_HEADERS = ("Location", "ETag", "Cache-Control")


def _stored(response: Response, body: bytes) -> StoredResponse:
    return StoredResponse(
        response.status_code,
        body,
        response.mimetype or "application/json",
        tuple((h, response.headers[h]) for h in _REPLAYED_HEADERS if h in response.headers),
    )


def _replayed(stored: StoredResponse) -> Response:
    return Response(
        stored.body,
        status=stored.status,
        mimetype=stored.mimetype,
        headers={**dict(stored.headers), "Idempotent-Replayed": "true"},
    )


def _recorded(
    chunks: Iterator[str], done: Callable[[bytes], None], abandoned: Callable[[], None]
) -> Iterator[str]:
    """A streamed answer, passed on as it comes and recorded once it has ended with
    its ``done`` event; a stream cut short (the client left, the generator failed)
    is not recorded, so its retry runs again."""
    parts: list[str] = []
    finished = False
    try:
        for part in chunks:
            parts.append(part)
            yield part
        finished = any(p.startswith("event: done\n") for p in parts)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
        if finished:
            done("".join(parts).encode())
        else:
            abandoned()


def _sse(events: Iterator[StreamEvent]) -> Iterator[str]:
    try:
        for event in events:
            name, body = wire.stream_event(event)
            yield f"event: {name}\ndata: {json.dumps(body, ensure_ascii=False)}\n\n"
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()  # propagate a client disconnect to the generation


def new_import_id() -> str:
    return "imp" + uuid.uuid4().hex[:20]


def _safe_file_name(name: str) -> str:
    """The last path segment, in letters, digits, dots, dashes, underscores and spaces."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return re.sub(r"[^\w .-]", "_", base).strip(" .")[:120]


def _chunks(stream: IO[bytes], size: int = 256 * 1024) -> Iterator[bytes]:
    with stream:
        while block := stream.read(size):
            yield block
