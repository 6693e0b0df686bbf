"""Decoding Firestore CloudEvents (Eventarc in production, the emulator locally)."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any

from footnote.errors import BadEvent

EVENT_TYPE = "google.cloud.firestore.document.v1.written"
DOCUMENT_PATTERN = "notes/{noteId}"
_NOTE_PATH = re.compile(r"(?:^|/)documents/notes/([^/]+)$")


@dataclass(frozen=True)
class NoteEvent:
    note_id: str
    event_id: str
    kind: str  # created | updated | deleted


def decode(cloud_event: Any) -> NoteEvent:
    """The note an event is about. The payload is read for its kind only:
    the indexer always reads the note's current state, so replays and
    reorderings converge."""
    from google.events.cloud.firestore import DocumentEventData

    attrs = cloud_event.get_attributes() if hasattr(cloud_event, "get_attributes") else {}
    event_id = str(attrs.get("id", ""))
    raw = cloud_event.get_data() if hasattr(cloud_event, "get_data") else cloud_event.data
    payload = DocumentEventData()
    if raw:
        payload = _document_event(DocumentEventData, _protobuf_bytes(raw))
    has_new = bool(payload.value.name)
    has_old = bool(payload.old_value.name)
    path = payload.value.name or payload.old_value.name or str(attrs.get("subject", ""))
    match = _NOTE_PATH.search(path) or _NOTE_PATH.search(str(attrs.get("subject", "")))
    if not match:
        raise BadEvent(f"event is not about a note: {path or 'no document'}")
    kind = "updated" if has_new and has_old else "created" if has_new else "deleted"
    return NoteEvent(match.group(1), event_id, kind)


def _document_event(message_type: Any, data: bytes) -> Any:
    """The payload; bytes that are not a DocumentEventData are a bad event, not a
    reason to retry (a redelivery carries the same bytes)."""
    from google.protobuf.message import DecodeError

    try:
        return message_type.deserialize(data)
    except DecodeError as exc:
        raise BadEvent(f"event data is not a Firestore DocumentEventData: {exc}") from None


def _protobuf_bytes(raw: Any) -> bytes:
    """Production sends raw protobuf; the emulator sends its base64 text."""
    if isinstance(raw, str):
        raw = raw.encode("ascii", errors="strict")
    if not isinstance(raw, (bytes, bytearray)):
        raise BadEvent("event data is not bytes")
    data = bytes(raw)
    try:
        decoded = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return data
    # Raw DocumentEventData starts with a field tag (0x0a or 0x12), which is not
    # in the base64 alphabet, so strict decoding tells the two encodings apart.
    return decoded
