"""Serve the three functions from one local port, as Cloud Functions would.

Routes: ``/`` → API, ``/reindexer`` → Pub/Sub push endpoint, and the path
the Firestore emulator posts trigger events to → indexer.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.serving import WSGIRequestHandler, run_simple

ROOT = Path(__file__).resolve().parents[3]
INDEXER_TRIGGER_ID = "footnote-indexer"


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
    return DispatcherMiddleware(app("api", "api", "http"), mounts)


class RawUriHandler(WSGIRequestHandler):
    """Keeps the request target as the client sent it in ``RAW_URI`` (as gunicorn,
    which serves the deployed functions, does): Python's http.server turns a
    leading ``//notes`` into ``/notes`` (``self.path``) before the app sees it, and
    the API answers only the canonical form. The request line still has it."""

    def make_environ(self) -> Any:
        environ = super().make_environ()
        parts = self.requestline.split(" ")
        environ["RAW_URI"] = parts[1] if len(parts) == 3 else self.path
        return environ


def main() -> None:
    parser = argparse.ArgumentParser(description="Footnote functions host")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--project", default="demo-footnote")
    args = parser.parse_args()
    run_simple(
        args.host,
        args.port,
        build_app(args.project),
        threaded=True,
        use_reloader=False,
        request_handler=RawUriHandler,
    )


if __name__ == "__main__":
    main()
