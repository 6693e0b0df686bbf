"""One JSON log line per request and per indexing event, in the shape Cloud Logging
reads (severity, trace, strategy, timings, fallbacks) - and never the note text at INFO."""

from __future__ import annotations

import io
import json
import logging
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from footnote.errors import BackendUnavailable
from footnote.logs import CloudLoggingFormatter
from tests.faults.exactness import note_event
from tests.inproc import Harness

CANARY = "zebra-canary-7731 the vault code is 4512"


@pytest.fixture
def lines() -> Iterator[list[dict[str, Any]]]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(CloudLoggingFormatter("demo-footnote"))
    handler.setLevel(logging.INFO)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    out: list[dict[str, Any]] = []
    try:
        yield out
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    # (filled by the test through _read)


def _read(handler_lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    root = logging.getLogger()
    for h in root.handlers:
        if isinstance(h, logging.StreamHandler) and isinstance(h.formatter, CloudLoggingFormatter):
            raw = h.stream.getvalue().splitlines()
            handler_lines[:] = [json.loads(line) for line in raw]  # every line is JSON
    return handler_lines


def test_one_structured_line_per_request_and_no_note_text(lines: list[dict[str, Any]]) -> None:
    h = Harness(faults=True)
    trace = uuid.uuid4().hex
    headers = {"X-Cloud-Trace-Context": f"{trace}/123;o=1"}
    note = h.add_note("obs", f"Launch plan. {CANARY}. We ship in June.")
    h.index_all()
    requests_sent = [
        h.call("POST", "/chat", "obs", json={"message": "When do we ship?"}, headers=headers),
        h.call("POST", "/search", "obs", json={"query": "ship June"}, headers=headers),
        h.call("GET", f"/notes/{note}", "obs", headers=headers),
        h.call("GET", "/notes", None, headers=headers),  # 401
        h.call(
            "POST",
            "/notes",
            "obs",
            data=b"\xff",
            headers={**headers, "Content-Type": "application/json"},
        ),
    ]
    h.faults["embedder"].fail = BackendUnavailable("down")
    requests_sent.append(
        h.call("POST", "/chat", "obs", json={"message": "ship date?"}, headers=headers)
    )
    h.faults["embedder"].fail = None
    entries = _read(lines)
    api = [e for e in entries if e.get("logger") == "footnote.api" and "httpRequest" in e]
    ours = [
        e
        for e in api
        if e.get("logging.googleapis.com/trace") == f"projects/demo-footnote/traces/{trace}"
    ]
    assert len(ours) == len(requests_sent), [e["message"] for e in api]
    for entry, response in zip(ours, requests_sent, strict=True):
        assert entry["severity"] == "INFO"
        assert entry["httpRequest"]["status"] == response.status_code
        assert entry["httpRequest"]["requestMethod"] in ("GET", "POST")
        assert isinstance(entry["latencyMs"], (int, float)) and entry["requestId"]
    chat = ours[0]
    assert chat["strategy"] == "hybrid_reranked" and chat["tenant"] == "obs"
    assert set(chat["timings"]) >= {"analyzeMs", "retrieveMs", "generateMs", "validateMs"}
    assert chat["fallbacks"] == [] and chat["chunkIds"] and "confidence" in chat
    assert ours[1]["strategy"] and ours[1]["chunkIds"]
    assert ours[3]["httpRequest"]["status"] == 401 and ours[3]["error"] == "unauthenticated"
    assert ours[4]["error"] == "invalid_argument"
    assert ours[5]["strategy"] == "keyword_recency" and "embedder_down" in ours[5]["fallbacks"]
    for e in entries:
        if e["severity"] in ("INFO", "DEBUG", "NOTICE"):
            assert "zebra-canary" not in json.dumps(e), e


def test_one_structured_line_per_indexing_event(
    lines: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    import footnote.wiring
    from footnote.entrypoints import handle_note_event

    h = Harness()
    monkeypatch.setattr(footnote.wiring, "_container", h.container)
    note = h.add_note("obs", f"Indexing log test. {CANARY}.")
    for i, kind in enumerate(("created", "created", "updated")):
        handle_note_event(note_event("demo-footnote", note, kind, f"ev-{i}"))
    h.container.notes.delete("obs", note)
    handle_note_event(note_event("demo-footnote", note, "deleted", "ev-del"))
    entries = [e for e in _read(lines) if e.get("logger") == "footnote.functions"]
    assert [e["outcome"] for e in entries] == ["indexed", "unchanged", "unchanged", "removed"]
    for e in entries:
        assert e["severity"] == "INFO" and e["noteId"] == note and e["eventId"].startswith("ev-")
        assert {"chunkCount", "elapsedMs", "model", "eventKind"} <= set(e)
        assert "zebra-canary" not in json.dumps(e)


def test_formatter_does_not_consume_the_trace_of_a_shared_record() -> None:
    """Two handlers format the same record (e.g. stdout and a test capture): both get the trace."""
    record = logging.LogRecord("footnote.api", logging.INFO, __file__, 1, "GET /x 200", None, None)
    record.fields = {"trace": "abc", "tenant": "t"}
    f = CloudLoggingFormatter("p")
    first, second = json.loads(f.format(record)), json.loads(f.format(record))
    assert (
        first["logging.googleapis.com/trace"]
        == second["logging.googleapis.com/trace"]
        == "projects/p/traces/abc"
    )


@pytest.mark.emulator
def test_stack_logs_never_carry_note_text_at_info(stack: Any, new_user: Any) -> None:
    user = new_user()
    note = user.add_note(f"Stack logging test. {CANARY}. Shipping in June.")
    user.wait_indexed(note)
    user.chat("When are we shipping?")
    user.call("POST", "/search", json={"query": "zebra canary vault code"})
    time.sleep(0.5)
    log = (stack.log_dir / "functions.log").read_text(errors="replace").splitlines()
    entries = []
    for line in log:
        if line.startswith("{"):
            entries.append(json.loads(line))
    assert any(e.get("noteId") == note and e.get("outcome") == "indexed" for e in entries)
    assert any(
        e.get("noteId") == note and e.get("httpRequest", {}).get("status") == 201 for e in entries
    )
    for e in entries:
        if e.get("severity") in ("INFO", "DEBUG", "DEFAULT", "NOTICE"):
            assert "zebra-canary" not in json.dumps(e), e
