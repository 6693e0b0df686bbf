"""A client whose connection drops after sending POST /notes retries it: with an
Idempotency-Key it ends with exactly one note (without one, with two)."""

from __future__ import annotations

import json
import socket
import time
import uuid
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.emulator


def _send_and_hang_up(api_url: str, token: str, body: dict[str, str], key: str | None) -> None:
    """Send the request and close the connection before any answer: the server
    commits and then writes to a closed socket (the dropped response)."""
    url = urlparse(api_url)
    data = json.dumps(body).encode()
    head = (
        f"POST /notes HTTP/1.1\r\nHost: {url.netloc}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        + (f"Idempotency-Key: {key}\r\n" if key else "")
        + "Connection: close\r\n\r\n"
    )
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(head.encode() + data)
        sock.shutdown(socket.SHUT_RDWR)


def _texts(user) -> list[str]:
    return [n["text"] for n in user.call("GET", "/notes", params={"limit": 100}).json()["notes"]]


def _wait_for_notes(user, count: int) -> None:
    deadline = time.monotonic() + 30
    while len(_texts(user)) < count and time.monotonic() < deadline:
        time.sleep(0.1)


def test_a_retry_after_a_dropped_response_ends_with_exactly_one_note(stack, new_user) -> None:
    user = new_user()
    key = str(uuid.uuid4())
    body = {"text": "Booked the venue for the 14th."}
    _send_and_hang_up(stack.api_url, user.token, body, key)
    _wait_for_notes(user, 1)  # the server committed though nobody heard the answer
    while True:  # the client's retry, as a mobile client would send it
        retry = user.call("POST", "/notes", json=body, headers={"Idempotency-Key": key})
        if retry.status_code != 409:  # 409: the first request has not finished yet
            break
        time.sleep(float(retry.headers["Retry-After"]))
    assert retry.status_code == 201, retry.text
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert _texts(user) == [body["text"]]
    assert user.call("GET", f"/notes/{retry.json()['id']}").status_code == 200
    # The same key with another body is refused, and creates nothing.
    other = user.call("POST", "/notes", json={"text": "other"}, headers={"Idempotency-Key": key})
    assert other.status_code == 422
    assert _texts(user) == [body["text"]]


def test_without_a_key_the_same_retry_makes_a_second_note(stack, new_user) -> None:
    """The control: the dropped request above really reached the server."""
    user = new_user()
    body = {"text": "Booked the venue for the 14th."}
    _send_and_hang_up(stack.api_url, user.token, body, None)
    _wait_for_notes(user, 1)
    assert user.call("POST", "/notes", json=body).status_code == 201
    assert _texts(user) == [body["text"]] * 2
