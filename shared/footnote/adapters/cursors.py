"""Opaque page cursors: the client gets a token, never our sort keys.

A cursor is the sort key of a page's last row: an instant (a note's creation, a
conversation's latest activity) and the document id that breaks ties.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from datetime import datetime

from footnote.errors import InvalidRequest

# The ids we issue. Anything else in a cursor was made up, and must be a 400 here:
# Firestore would refuse "a/b" or "__x__" as a document id with an error of its own.
_DOCUMENT_ID = re.compile(r"(?!__.*__$)[A-Za-z0-9_-]{1,200}")


def encode_cursor(moment: datetime, document_id: str) -> str:
    raw = json.dumps({"t": moment.isoformat(), "id": document_id}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        moment = datetime.fromisoformat(data["t"])
        document_id = data["id"]
        if not isinstance(document_id, str) or not _DOCUMENT_ID.fullmatch(document_id):
            raise ValueError
        if moment.tzinfo is None:
            raise ValueError
        return moment, document_id
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeError, RecursionError) as exc:
        raise InvalidRequest("cursor is not valid") from exc
