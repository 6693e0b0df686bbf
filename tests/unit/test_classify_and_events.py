import base64

import pytest
from cloudevents.http import CloudEvent
from google.events.cloud.firestore import Document, DocumentEventData

from footnote.adapters.cursors import decode_cursor, encode_cursor
from footnote.adapters.firestore_events import decode
from footnote.domain import MemoryType
from footnote.errors import BadEvent, InvalidRequest
from footnote.ingest.classify import classify
from tests.factories import NOW


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We decided to go with Postgres instead of MySQL.", MemoryType.DECISION),
        ("Signups grew 23% week over week; churn is 4%.", MemoryType.METRIC),
        (
            "Customer said the onboarding is confusing; users complained about pricing.",
            MemoryType.FEEDBACK,
        ),
        (
            "TODO: remember to follow up with legal by Friday, deadline is next week.",
            MemoryType.TASK,
        ),
        (
            "A study found that spaced repetition improves recall; the paper compared two methods.",
            MemoryType.RESEARCH,
        ),
        ("Lunch was nice today.", MemoryType.NOTE),
        # checkboxes without a bullet are a to-do list too, whatever the items mention
        (
            "[x] send the paper to Ben\n[ ] results draft\n[ ] check the study location",
            MemoryType.TASK,
        ),
    ],
)
def test_rule_classifier(text: str, expected: MemoryType) -> None:
    assert classify(text) is expected


def _event(data: bytes, subject: str = "documents/notes/abc") -> CloudEvent:
    return CloudEvent(
        {
            "type": "google.cloud.firestore.document.v1.written",
            "source": "//firestore",
            "subject": subject,
            "id": "e1",
        },
        data,
    )


def _payload(
    new: bool, old: bool, name: str = "projects/p/databases/(default)/documents/notes/abc"
) -> bytes:
    data = DocumentEventData(
        value=Document(name=name) if new else None, old_value=Document(name=name) if old else None
    )
    serialized: bytes = DocumentEventData.serialize(data)
    return serialized


@pytest.mark.parametrize(
    ("new", "old", "kind"),
    [(True, False, "created"), (True, True, "updated"), (False, True, "deleted")],
)
def test_decode_raw_protobuf(new: bool, old: bool, kind: str) -> None:
    event = decode(_event(_payload(new, old)))
    assert (event.note_id, event.kind, event.event_id) == ("abc", kind, "e1")


def test_decode_emulator_base64_text() -> None:
    assert decode(_event(base64.b64encode(_payload(True, False)))).note_id == "abc"


def test_decode_rejects_other_documents() -> None:
    bad = _payload(True, False, name="projects/p/databases/(default)/documents/notes/abc/sub/x")
    with pytest.raises(BadEvent):
        decode(_event(bad, subject="documents/notes/abc/sub/x"))


def test_cursor_round_trip_and_garbage() -> None:
    assert decode_cursor(encode_cursor(NOW, "n9", "notes"), "notes") == (NOW, "n9")
    with pytest.raises(InvalidRequest):  # a cursor carries the list it pages
        decode_cursor(encode_cursor(NOW, "n9", "notes"), "conversations")
    for garbage in ("", "!!!", "eyJ4IjoxfQ", base64.b64encode(b"\xff\xfe").decode()):
        with pytest.raises(InvalidRequest):
            decode_cursor(garbage, "notes")
