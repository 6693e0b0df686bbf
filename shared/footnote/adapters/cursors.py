"""Opaque page cursors: the client gets a token, never our sort keys."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

from footnote.errors import InvalidRequest


def encode_cursor(created_at: datetime, note_id: str) -> str:
    raw = json.dumps({"t": created_at.isoformat(), "id": note_id}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        moment = datetime.fromisoformat(data["t"])
        note_id = data["id"]
        if not isinstance(note_id, str) or moment.tzinfo is None:
            raise ValueError
        return moment, note_id
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeError) as exc:
        raise InvalidRequest("cursor is not valid") from exc
