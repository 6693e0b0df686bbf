"""Fault injection for the local functions host: make a port fail or time out on demand.

Only the dev host mounts it, and only with ``FOOTNOTE_DEV_FAULTS=1`` (the test stack
sets it); deployed functions never import this module. ``POST /_faults`` with
``{"embedder": {"mode": "error"}, "generator": {"mode": "timeout", "delay": 0.2}}``
arms faults; ``DELETE /_faults`` clears them; ``GET /_faults`` shows them.
A fault may carry ``"count": n`` to fail only the next n calls.
``{"account_job": {"at": "notes", "count": 1}}`` crashes the account deletion job
after that point (``services.accounts.crash_points``): the message is redelivered.
``{"import_job": {"after": n}}`` crashes an import job right after the write that
held its n-th note from now (the job writes a page's notes in one atomic write),
before its page is saved: the message is redelivered.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from werkzeug.wrappers import Request, Response

ACCOUNT_JOB = "account_job"
IMPORT_JOB = "import_job"
PORTS: dict[str, tuple[str, ...]] = {
    "embedder": ("embed_query", "embed_documents"),
    "vector_index": ("search", "search_hybrid"),
    # execute: what the answering pipeline calls (the Generator port's one method);
    # generate: a plain answer without the notes
    "generator": ("execute", "generate"),
}


class FaultSwitch:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: dict[str, dict[str, Any]] = {}
        self.tripped: dict[str, int] = {}

    def arm(self, faults: dict[str, dict[str, Any]]) -> None:
        with self._lock:
            for port, spec in faults.items():
                if port not in PORTS and port not in (ACCOUNT_JOB, IMPORT_JOB):
                    raise ValueError(f"unknown port {port!r}")
                if spec is None:
                    self._faults.pop(port, None)
                else:
                    self._faults[port] = dict(spec)

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()
            self.tripped.clear()

    def state(self) -> dict[str, Any]:
        with self._lock:
            return {"faults": dict(self._faults), "tripped": dict(self.tripped)}

    def check(self, port: str) -> None:
        with self._lock:
            spec = self._faults.get(port)
            if spec is None:
                return
            if "count" in spec:
                spec["count"] -= 1
                if spec["count"] <= 0:
                    self._faults.pop(port)
            self.tripped[port] = self.tripped.get(port, 0) + 1
        if spec.get("mode") == "timeout":
            time.sleep(float(spec.get("delay", 0.5)))
            raise TimeoutError(f"{port} deadline exceeded (injected)")
        raise ConnectionError(f"{port} unavailable (injected)")

    def check_step(self, at: str) -> None:
        """The account job's crash point ``at`` was reached: crash if armed for it."""
        with self._lock:
            spec = self._faults.get(ACCOUNT_JOB)
            if spec is None or spec.get("at") != at:
                return
            if "count" in spec:
                spec["count"] -= 1
                if spec["count"] <= 0:
                    self._faults.pop(ACCOUNT_JOB)
            self.tripped[ACCOUNT_JOB] = self.tripped.get(ACCOUNT_JOB, 0) + 1
        raise RuntimeError(f"account job crashed after {at} (injected)")

    def check_import_write(self) -> None:
        """An import job wrote a note: crash if it is the one the fault waits for."""
        with self._lock:
            spec = self._faults.get(IMPORT_JOB)
            if spec is None:
                return
            spec["after"] = int(spec.get("after", 1)) - 1
            if spec["after"] > 0:
                return
            self._faults.pop(IMPORT_JOB)
            self.tripped[IMPORT_JOB] = self.tripped.get(IMPORT_JOB, 0) + 1
        raise RuntimeError("import job crashed after a write (injected)")


class CrashingImportWrites:
    """The note store as the import job sees it: a crash may follow a note's write."""

    def __init__(self, inner: Any, switch: FaultSwitch) -> None:
        self._inner = inner
        self._switch = switch

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def create_note(self, note: Any) -> Any:
        stored = self._inner.create_note(note)
        self._switch.check_import_write()
        return stored

    def create_notes(self, entries: Any) -> Any:
        done = self._inner.create_notes(entries)
        for _ in done.created:  # the crash follows the write that held the n-th note
            self._switch.check_import_write()
        return done


class FaultyPort:
    """The real adapter, with the listed methods passing through the switch first."""

    def __init__(self, inner: Any, port: str, switch: FaultSwitch) -> None:
        self._inner = inner
        self._port = port
        self._switch = switch

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name in PORTS[self._port] and callable(attr):

            def guarded(*args: Any, **kwargs: Any) -> Any:
                self._switch.check(self._port)
                return attr(*args, **kwargs)

            return guarded
        return attr


def install(container: Any, switch: FaultSwitch) -> None:
    """Wrap the container's ports before any service that uses them is built."""
    for port in PORTS:
        real = getattr(container, port)
        container._built[port] = FaultyPort(real, port, switch)
    from footnote.services.accounts import AccountService

    s = container.settings
    container._built["accounts"] = AccountService(
        container.tenant_data,
        container.vector_index,
        container.account_auth,
        container.account_queue,
        grace_s=s.account_deletion_grace_s,
        # The same files as the real wiring: without them the "files" step deleted
        # nothing on the test stack (found when its Cloud Storage became listable).
        blobs=container.blobs,
        uploads=container.import_jobs,  # the sessions to cancel, as the real wiring
        after=switch.check_step,
    )
    from footnote.services.imports import ImportService

    container._built["imports"] = ImportService(
        s,
        CrashingImportWrites(container.store, switch),
        container.blobs,
        container.import_jobs,
        container.account_queue,
        container.quotas,
        indexing=lambda: container.indexing,
        fence=container.tenant_data.is_deleting,  # as the real wiring
    )


def wsgi_app(switch: FaultSwitch) -> Any:
    @Request.application
    def app(request: Request) -> Response:
        if request.method == "POST":
            try:
                switch.arm(json.loads(request.get_data(as_text=True) or "{}"))
            except (ValueError, TypeError, AttributeError) as exc:
                return Response(json.dumps({"error": str(exc)}), 400, mimetype="application/json")
        elif request.method == "DELETE":
            switch.clear()
        return Response(json.dumps(switch.state()), 200, mimetype="application/json")

    return app
