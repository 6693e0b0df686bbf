"""The local Cloud Storage server: gcp-storage-emulator, with the one thing Footnote
relies on that it lacks, cancelling a resumable upload session.

Cloud Storage ends a session when its URL is sent a DELETE, answering 499; a PUT to it
afterwards creates nothing. Account deletion cancels every session the user was handed
(``AccountService``'s ``files`` step), so an upload URL issued before the deletion
cannot create ``users/{uid}/uploads/…`` after it. Run as the emulator itself is:
``python -m footnote.dev.storage_server start --port=…``.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

# Cloud Storage's answer to a cancelled session (nginx's "client closed request").
CANCELLED = SimpleNamespace(value=499, phrase="Client Closed Request")


def cancel_session(request: Any, response: Any, storage: Any, *args: Any, **kwargs: Any) -> None:
    from gcp_storage_emulator.exceptions import NotFound

    upload_id = (request.query.get("upload_id") or [""])[0]
    try:
        storage.delete_resumable_file_obj(upload_id)
    except NotFound:
        from http import HTTPStatus

        response.status = HTTPStatus.NOT_FOUND
        return
    response.status = CANCELLED


def install() -> None:
    """Add DELETE to the upload endpoint's handlers (the router reads HANDLERS at
    every request)."""
    from gcp_storage_emulator import server, settings

    upload_route = rf"^{settings.UPLOAD_API_ENDPOINT}/b/(?P<bucket_name>[-.\w]+)/o$"
    server.HANDLERS = tuple(
        (regex, {**handlers, server.DELETE: cancel_session} if regex == upload_route else handlers)
        for regex, handlers in server.HANDLERS
    )
    if not any(regex == upload_route for regex, _ in server.HANDLERS):
        raise RuntimeError("gcp-storage-emulator changed its upload route")


def main() -> None:
    from gcp_storage_emulator.__main__ import main as emulator_main

    install()
    emulator_main(sys.argv[1:])


if __name__ == "__main__":
    main()
