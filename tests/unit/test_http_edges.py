"""Small edges of the HTTP layer: one canonical path, strict whole numbers, UTF-8
only, no duplicate keys, cursors bound to their list."""

from __future__ import annotations

import pytest

from tests.inproc import Harness, envelope


@pytest.fixture(scope="module")
def h() -> Harness:
    harness = Harness()
    for i in range(3):
        harness.add_note("edges", f"note {i}")
    return harness


@pytest.mark.parametrize("path", ["//notes", "///notes", "/api//notes", "/notes//", "//api/notes"])
def test_doubled_slashes_are_404(h: Harness, path: str) -> None:
    response = h.call("GET", path, "edges")
    assert response.status_code == 404, path
    assert envelope(response)["code"] == "not_found"


def test_the_raw_target_decides_when_the_server_merged_leading_slashes(h: Harness) -> None:
    # werkzeug's dev server hands the app "/notes" for "//notes"; the dev host keeps
    # the target as sent in RAW_URI, as gunicorn does in production.
    merged = h.call("GET", "/notes", "edges", environ_overrides={"RAW_URI": "//notes"})
    assert merged.status_code == 404
    fine = h.call("GET", "/notes", "edges", environ_overrides={"RAW_URI": "/notes?limit=2"})
    assert fine.status_code == 200
    absolute = h.call(
        "GET", "/notes", "edges", environ_overrides={"RAW_URI": "http://x.test/notes"}
    )
    assert absolute.status_code == 200


@pytest.mark.parametrize(
    ("limit", "status", "count"),
    [
        ("0000001", 200, 1),
        ("0002", 200, 2),
        ("00000000000000000000000000003", 200, 3),
        ("1000000000000000000000", 400, None),
        ("\uff11", 400, None),  # full-width 1
        ("\u0661", 400, None),  # Arabic-Indic 1
        ("+1", 400, None),
        (" 1", 400, None),
        ("", 400, None),
    ],
)
def test_limit_is_ascii_digits_only(h: Harness, limit: str, status: int, count: int | None) -> None:
    response = h.call("GET", "/notes", "edges", query_string={"limit": limit})
    assert response.status_code == status, (limit, response.get_data(as_text=True))
    if count is not None:
        assert len(response.get_json()["notes"]) == count


@pytest.mark.parametrize(
    ("content_type", "status"),
    [
        ("application/json; charset=latin-1", 415),
        ("application/json; charset=utf-16", 415),
        ("application/json; charset=UTF-8", 201),
        ("application/json; charset=utf8", 201),
        ("application/json", 201),
    ],
)
def test_only_utf8_bodies(h: Harness, content_type: str, status: int) -> None:
    response = h.call(
        "POST",
        "/notes",
        "charsets",
        data=b'{"text": "caf\\u00e9"}',
        headers={"Content-Type": content_type},
    )
    assert response.status_code == status, response.get_data(as_text=True)


def test_duplicate_keys_are_400_and_store_nothing(h: Harness) -> None:
    before = len(h.store.notes)
    for body in (
        b'{"text": "a", "text": "b"}',
        b'{"message": "q", "ragConfig": {"maxSources": 1, "maxSources": 2}}',
    ):
        path = "/notes" if b"text" in body else "/chat"
        response = h.call(
            "POST", path, "dupes", data=body, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 400, response.get_data(as_text=True)
        assert "twice" in envelope(response)["message"]
    assert len(h.store.notes) == before


def test_a_cursor_of_one_list_is_refused_by_another(h: Harness) -> None:
    cursor = h.call("GET", "/notes?limit=1", "edges").get_json()["cursor"]
    assert cursor
    assert h.call("GET", "/notes", "edges", query_string={"cursor": cursor}).status_code == 200
    other = h.call("GET", "/conversations", "edges", query_string={"cursor": cursor})
    assert other.status_code == 400
    assert (
        h.call("GET", "/notes/changes", "edges", query_string={"since": cursor}).status_code == 400
    )
    token = h.call("GET", "/notes/changes", "edges").get_json()["token"]
    assert h.call("GET", "/notes", "edges", query_string={"cursor": token}).status_code == 400


def test_a_wrong_method_is_405_with_what_the_path_takes(h: Harness) -> None:
    # "GET /search?q=…" is a natural first guess; the answer says to POST
    response = h.call("GET", "/search?q=banana", "edges")
    assert response.status_code == 405
    assert response.headers["Allow"] == "POST"
    body = envelope(response)
    assert body["code"] == "method_not_allowed" and "use POST" in body["message"]
