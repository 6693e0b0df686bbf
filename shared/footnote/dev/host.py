"""Serve the three functions from one local port, as Cloud Functions would.

Routes: ``/`` → API, ``/reindexer`` → Pub/Sub push endpoint, and the path
the Firestore emulator posts trigger events to → indexer.

Before it serves, the host loads the embedding model and the indexes of the
tenants that have a snapshot (``warm_up``), so the first question after a start
is answered as fast as any other.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.serving import WSGIRequestHandler, run_simple

ROOT = Path(__file__).resolve().parents[3]
INDEXER_TRIGGER_ID = "footnote-indexer"
# Set by RawUriHandler when a request cannot be served as sent; answered 400 by
# ``refuse_malformed`` before any function sees it.
MALFORMED = "footnote.malformed"


def trigger_path(project_id: str, trigger_id: str = INDEXER_TRIGGER_ID) -> str:
    return f"/functions/projects/{project_id}/triggers/{trigger_id}"


def build_app(project_id: str) -> Any:
    import functions_framework

    def app(name: str, target: str, signature: str) -> Any:
        return functions_framework.create_app(  # type: ignore[no-untyped-call]
            target=target,
            source=str(ROOT / "functions" / name / "main.py"),
            signature_type=signature,
        )

    indexer = app("indexer", "index_note", "cloudevent")
    mounts = {
        trigger_path(project_id): indexer,
        "/indexer": indexer,
        "/reindexer": app("reindexer", "reindex", "cloudevent"),
    }
    if os.environ.get("FOOTNOTE_DEV_FAULTS") == "1":  # tests only: see footnote.dev.faults
        from footnote.dev import faults
        from footnote.wiring import container

        switch = faults.FaultSwitch()
        faults.install(container(), switch)
        mounts["/_faults"] = faults.wsgi_app(switch)
    return refuse_malformed(DispatcherMiddleware(app("api", "api", "http"), mounts))


def refuse_malformed(app: Any) -> Callable[[dict[str, Any], Any], Iterable[bytes]]:
    """A request whose framing RawUriHandler found ambiguous, or whose target is not
    a path, answered 400 in the API's error envelope. In production the front end
    and gunicorn refuse these before the function runs; Python's http.server takes
    them (the last of two Content-Lengths, ``GET *`` mounted nowhere and redirected)."""

    def edge(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        problem = environ.get(MALFORMED)
        if problem is None:
            return app(environ, start_response)  # type: ignore[no-any-return]
        from footnote.api import wire

        body = json.dumps(wire.error("invalid_argument", problem, None)).encode()
        start_response(
            "400 BAD REQUEST",
            [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
        )
        return [body]

    return edge


class RawUriHandler(WSGIRequestHandler):
    """Keeps the request target as the client sent it in ``RAW_URI`` (as gunicorn,
    which serves the deployed functions, does): Python's http.server turns a
    leading ``//notes`` into ``/notes`` (``self.path``) before the app sees it, and
    the API answers only the canonical form. The request line still has it."""

    def make_environ(self) -> Any:
        environ = super().make_environ()
        parts = self.requestline.split(" ")
        environ["RAW_URI"] = parts[1] if len(parts) == 3 else self.path
        problem = self._malformed(environ["RAW_URI"])
        if problem is not None:
            environ[MALFORMED] = problem
        return environ

    def _malformed(self, target: str) -> str | None:
        """Why the request cannot be served as sent, as RFC 9112 has a server refuse
        it (section 6.3: a body's length must be unambiguous), or None."""
        lengths = self.headers.get_all("Content-Length") or []
        if len(lengths) > 1:
            return "Content-Length is sent more than once"
        if lengths and not (lengths[0].strip().isascii() and lengths[0].strip().isdigit()):
            return "Content-Length must be a whole number"
        if lengths and self.headers.get("Transfer-Encoding"):
            return "Content-Length and Transfer-Encoding are both sent"
        if not target.startswith("/") and "://" not in target:
            return "the request target must be a path"  # "*" (or anything but a path)
        return None


def warm_up(max_tenants: int = 8) -> None:
    """Load the embedding model, then the index of each tenant with a snapshot (the
    active ones, up to ``max_tenants``), in the process that will serve them."""
    from footnote.ports import snapshot_object
    from footnote.wiring import container

    c = container()
    started = time.perf_counter()
    c.embedder.embed_query("warm up")
    model_s = time.perf_counter() - started
    tenants: list[str] = []
    if c.index_snapshots is not None:
        for uid in c.blobs.folders("users/"):
            if len(tenants) >= max_tenants:
                break
            if c.blobs.size(snapshot_object(uid)) is not None:
                tenants.append(uid)
    for tenant in tenants:
        c.corpora.get(tenant)
    logging.getLogger(__name__).warning(
        "warm: embedding model in %.1f s, %d tenant indexes in %.1f s",
        model_s, len(tenants), time.perf_counter() - started - model_s,
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description="Footnote functions host")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--project", default="demo-footnote")
    args = parser.parse_args()
    app = build_app(args.project)
    warm_up()
    run_simple(
        args.host,
        args.port,
        app,
        threaded=True,
        use_reloader=False,
        request_handler=RawUriHandler,
    )


if __name__ == "__main__":
    main()
