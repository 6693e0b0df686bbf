"""Malformed requests on the local host as it runs: the dev host's server and request
handler, functions-framework's app and the API over in-memory services, spoken to
over a raw socket. Each answer is a 4xx in the error envelope, at once (issue 46:
these gave 500s, an HTML redirect, 201 and a 15 s wait)."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from werkzeug.serving import make_server

import footnote.entrypoints
from footnote.dev import host
from tests.inproc import Harness

TENANT = "edge"
AUTH = f"Authorization: Bearer token-{TENANT}\r\n".encode()


class _Served:
    def __init__(self, harness: Harness, port: int) -> None:
        self.harness = harness
        self.port = port

    def send(self, data: bytes, close_after: bool = False) -> tuple[float, int, bytes, bytes]:
        """``data`` as sent; (seconds to the answer, status, headers, body). With
        ``close_after`` the client stops sending (half-closes) after ``data``."""
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", self.port), timeout=20) as conn:
            conn.sendall(data)
            if close_after:
                conn.shutdown(socket.SHUT_WR)
            answer = b""
            while chunk := conn.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        return time.monotonic() - started, status, head, body


@pytest.fixture(scope="module")
def served() -> Iterator[_Served]:
    harness = Harness()

    class InProcess:
        api = harness.api

    patch = pytest.MonkeyPatch()
    patch.setattr(footnote.entrypoints, "container", lambda: InProcess)
    server = make_server(
        "127.0.0.1",
        0,
        host.build_app("demo-footnote"),
        threaded=True,
        request_handler=host.RawUriHandler,
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield _Served(harness, server.server_port)
    finally:
        server.shutdown()
        thread.join()
        patch.undo()


def _envelope(body: bytes) -> dict[str, object]:
    error = json.loads(body)["error"]
    assert set(error) == {"code", "message", "details"}
    return error  # type: ignore[no-any-return]


def _request(method: str, target: str, *headers: str, body: bytes = b"") -> bytes:
    lines = [f"{method} {target} HTTP/1.1", "Host: x", *headers]
    return "\r\n".join(lines).encode() + b"\r\n" + AUTH + b"\r\n" + body


@pytest.mark.parametrize("if_match", ['""', '"1", ""', 'W/""'])
def test_an_empty_entity_tag_matches_nothing(served: _Served, if_match: str) -> None:
    note_id = served.harness.add_note(TENANT, "Tagged note.")
    patch = b'{"text":"changed"}'
    _, status, _, body = served.send(
        _request(
            "PATCH",
            f"/notes/{note_id}",
            f"If-Match: {if_match}",
            "Content-Type: application/json",
            f"Content-Length: {len(patch)}",
            body=patch,
        )
    )
    expected = 200 if if_match == '"1", ""' else 412  # "1" is the note's version
    assert status == expected, body
    _, status, _, body = served.send(
        _request("DELETE", f"/notes/{note_id}", 'If-Match: ""', "Content-Length: 0")
    )
    assert status == 412 and _envelope(body)["code"] == "precondition_failed"


def test_a_malformed_chunked_body_is_400_in_the_envelope(served: _Served) -> None:
    seconds, status, head, body = served.send(
        _request(
            "POST",
            "/notes",
            "Content-Type: application/json",
            "Transfer-Encoding: chunked",
            body=b"zz\r\n{}\r\n0\r\n\r\n",
        )
    )
    assert status == 400, body
    assert b"application/json" in head and _envelope(body)["code"] == "invalid_argument"
    assert seconds < 5


def test_a_client_gone_mid_body_is_logged_as_its_abort_not_an_error(
    served: _Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    partial = b'{"text":"cut'
    served.send(
        _request(
            "POST",
            "/notes",
            "Content-Type: application/json",
            "Content-Length: 200",
            body=partial,
        ),
        close_after=True,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not any(
        "POST /notes" in r.getMessage() for r in caplog.records
    ):
        time.sleep(0.05)
    line = next(r for r in caplog.records if "POST /notes" in r.getMessage())
    fields = line.fields  # type: ignore[attr-defined]
    assert fields["httpRequest"]["status"] == 499 and fields["clientAborted"] is True
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [
        r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR
    ]


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (_request("GET", "/notes/"), 404),
        (_request("GET", "/api/notes/"), 404),
        (_request("GET", "*"), 400),
        (_request("OPTIONS", "*"), 400),
        (
            _request(
                "POST",
                "/notes",
                "Content-Type: application/json",
                "Content-Length: 12",
                "Content-Length: 12",
                body=b'{"text":"a"}',
            ),
            400,
        ),
        (
            _request(
                "POST",
                "/notes",
                "Content-Type: application/json",
                "Content-Length: 12",
                "Transfer-Encoding: chunked",
                body=b'{"text":"a"}',
            ),
            400,
        ),
        (
            _request(
                "POST",
                "/notes",
                "Content-Type: application/json",
                "Content-Length: 99999999999",
                body=b'{"text":"a"}',
            ),
            413,
        ),
        (
            _request(
                "POST",
                "/imports?name=a.md",
                "Content-Type: application/octet-stream",
                "Content-Length: 99999999999",
                body=b"# a",
            ),
            413,
        ),
    ],
    ids=[
        "trailing-slash",
        "api-trailing-slash",
        "get-star",
        "options-star",
        "two-content-lengths",
        "content-length-and-chunked",
        "huge-content-length",
        "huge-content-length-import",
    ],
)
def test_the_local_host_answers_malformed_requests_in_the_envelope_at_once(
    served: _Served, raw: bytes, status: int
) -> None:
    before = len(served.harness.store.notes)
    seconds, got, head, body = served.send(raw)
    assert got == status, body
    assert b"application/json" in head
    assert _envelope(body)["code"]
    assert seconds < 5  # not waiting for a body that is never sent
    assert len(served.harness.store.notes) == before
