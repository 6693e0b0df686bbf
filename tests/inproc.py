"""The real API, services and pipeline in one process: memory store, hash embedder.

Fast harness for the property tests in tests/security, tests/fuzz and tests/faults.
Faults are injected by wrapping a port before the services that use it are built.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from werkzeug.test import Client
from werkzeug.wrappers import Request, Response

from footnote.api.http import Api
from footnote.config import Settings
from footnote.errors import Unauthenticated
from footnote.services.exports import ExportService
from footnote.services.imports import ImportService
from footnote.services.notes import NotesService
from footnote.wiring import Container


def settings(**overrides: Any) -> Settings:
    base: dict[str, Any] = {
        "NOTE_STORE": "memory",
        "EMBEDDER": "hash",
        "GENERATOR": "quote",
        "CLASSIFIER": "rules",
        "REINDEX_QUEUE": "inline",
        "VECTOR_INDEX": "memory",
        "ACCOUNT_DELETION_GRACE_S": 0,
    }
    base.update(overrides)
    return Settings(**base)


class TokenTable:
    """A verifier for in-process tests: ``token-<tenant>`` is that tenant."""

    def verify(self, token: str, fresh: bool = False, check_account: bool = True) -> str:
        if not token.startswith("token-") or len(token) < 7 or len(token) > 200:
            raise Unauthenticated("a valid Firebase ID token is required")
        return token[len("token-") :]


class Faulty:
    """Wraps a port; while ``fail`` is set, the named methods raise it instead."""

    def __init__(self, inner: Any, methods: tuple[str, ...]) -> None:
        self._inner = inner
        self._methods = methods
        self.fail: BaseException | None = None
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name in self._methods and callable(attr):

            def wrapped(*a: Any, **kw: Any) -> Any:
                self.calls += 1
                if self.fail is not None:
                    raise self.fail
                return attr(*a, **kw)

            return wrapped
        return attr


class Harness:
    def __init__(self, faults: bool = False, quotas: bool = False, **overrides: Any) -> None:
        self.container = Container(settings(**overrides))
        c = self.container
        self.faults: dict[str, Faulty] = {}
        if faults:
            # Build the real adapters, then put the faulty wrappers where the services look.
            self.faults["embedder"] = Faulty(c.embedder, ("embed_query", "embed_documents"))
            self.faults["vector_index"] = Faulty(c.vector_index, ("search", "search_hybrid"))
            self.faults["generator"] = Faulty(c.generator, ("execute", "generate"))
            for name, wrapper in self.faults.items():
                c._built[name] = wrapper
        if not quotas:
            # No per-user quotas: the API charges no requests (quotas=None below) and
            # the notes service, built here without its QuotaService, counts no writes.
            c._built["notes"] = NotesService(c.settings, c.store, c.store)
            c._built["imports"] = ImportService(
                c.settings,
                c.store,
                c.blobs,
                c.import_jobs,
                c.account_queue,
                indexing=lambda: c.indexing,
            )
            c._built["exports"] = ExportService(c.store, c.blobs, c.export_jobs, c.account_queue)
        self.api = Api(
            c.settings,
            TokenTable(),
            lambda: c.notes,
            lambda: c.chat,
            c.health,
            quotas=(lambda: c.quotas) if quotas else None,
            accounts=lambda: c.accounts,
            idempotency=lambda: c.idempotency,
            imports=lambda: c.imports,
            exports=lambda: c.exports,
        )
        self.requests = 0
        self._lock = threading.Lock()
        self.app = Request.application(self._handle)
        self.http = Client(self.app)

    def _handle(self, request: Request) -> Response:
        with self._lock:
            self.requests += 1
        return self.api.handle(request)

    @property
    def store(self) -> Any:
        return self.container.store

    def call(self, method: str, path: str, tenant: str | None = None, **kw: Any) -> Any:
        headers = dict(kw.pop("headers", {}) or {})
        if tenant is not None:
            headers.setdefault("Authorization", f"Bearer token-{tenant}")
        return self.http.open(path, method=method, headers=headers, **kw)

    def add_note(self, tenant: str, text: str, **fields: Any) -> str:
        r = self.call("POST", "/notes", tenant, json={"text": text, **fields})
        assert r.status_code == 201, r.get_data(as_text=True)
        return str(r.get_json()["id"])

    def ask(self, tenant: str, message: str, conversation: str | None = None) -> dict[str, Any]:
        """``POST /chat`` as ``tenant``, in ``conversation`` when given; the JSON answer."""
        body: dict[str, Any] = {"message": message}
        if conversation:
            body["conversationId"] = conversation
        r = self.call("POST", "/chat", tenant, json=body)
        assert r.status_code == 200, r.get_data(as_text=True)
        return dict(r.get_json())

    def index_all(self) -> None:
        for note_id in list(self.store.notes):
            self.container.indexing.index_note(note_id)


def envelope(response: Any) -> dict[str, Any]:
    """The error envelope of a response, asserting its shape."""
    body = json.loads(response.get_data(as_text=True))
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "message", "details"}, error
    assert isinstance(error["code"], str) and isinstance(error["message"], str)
    assert "Traceback" not in error["message"] and 'File "' not in error["message"]
    return error  # type: ignore[no-any-return]


def wait_for(
    predicate: Callable[[], bool],
    timeout: float = 60,
    what: str = "condition",
    interval: float = 0.25,
) -> None:
    import time

    from footnote.dev.timeouts import scaled

    deadline = time.monotonic() + scaled(timeout)  # longer on a loaded machine
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}")
