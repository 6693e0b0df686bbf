"""Opaque page cursors: the client gets a token, never our sort keys.

A cursor is the sort key of a page's last row: an instant (a note's creation, a
conversation's latest activity) and the document id that breaks ties.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TypeVar

from footnote.errors import InvalidRequest

T = TypeVar("T")

# The ids we issue. Anything else in a cursor was made up, and must be a 400 here:
# Firestore would refuse "a/b" or "__x__" as a document id with an error of its own.
_DOCUMENT_ID = re.compile(r"(?!__.*__$)[A-Za-z0-9_-]{1,200}")


def encode_cursor(moment: datetime, document_id: str, kind: str) -> str:
    """``kind``: the list it pages (its collection, "notes" or "conversations"): a
    cursor of one list sent to another is refused, not read as a position there."""
    raw = json.dumps({"e": kind, "t": moment.isoformat(), "id": document_id}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, kind: str) -> tuple[datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        if data["e"] != kind:
            raise ValueError("a cursor of another list")
        # In UTC, as stored: an offset that moves the instant out of the years
        # 1-9999 ("0001-01-01T00:00+01:00") fails here, not in the store's encoder.
        moment = datetime.fromisoformat(data["t"])
        if moment.tzinfo is None:
            raise ValueError
        moment = moment.astimezone(UTC)
        document_id = data["id"]
        if not isinstance(document_id, str) or not _DOCUMENT_ID.fullmatch(document_id):
            raise ValueError
        return moment, document_id
    except (
        ValueError,
        KeyError,
        TypeError,
        OverflowError,
        binascii.Error,
        UnicodeError,
        RecursionError,
    ) as exc:
        raise InvalidRequest("cursor is not valid") from exc


def keyset_page(
    rows: Iterable[T],
    key: Callable[[T], tuple[datetime, str]],
    limit: int,
    cursor: str | None,
    kind: str,
) -> tuple[list[T], str | None]:
    """The page of ``rows`` after ``cursor``, newest key first, and the cursor of the
    next page (None on the last): the in-memory stores' version of the Firestore query."""
    ordered = sorted(rows, key=key, reverse=True)
    if cursor:
        after = decode_cursor(cursor, kind)
        ordered = [r for r in ordered if key(r) < after]
    page = ordered[:limit]
    more = len(ordered) > limit
    return page, encode_cursor(*key(page[-1]), kind) if more else None
