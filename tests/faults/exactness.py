"""What "exact indexing" means, as code: the chunks a fresh index of the final notes
would have, and Firestore CloudEvents to replay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from footnote.domain import Chunk, MemoryType, Note


def tenant_docs(firestore_client: Any, collection: str, uid: str) -> list[Any]:
    """Every document of ``collection`` that belongs to the user, as snapshots."""
    from google.cloud.firestore_v1.base_query import FieldFilter

    query = firestore_client.collection(collection).where(filter=FieldFilter("tenantId", "==", uid))
    return list(query.stream())


def stored_notes(firestore_client: Any, uid: str) -> list[Note]:
    """The user's notes as the Firestore emulator holds them."""
    return [
        Note(
            id=s.id,
            tenant_id=s.get("tenantId"),
            text=s.get("text"),
            created_at=s.get("createdAt"),
            updated_at=s.get("updatedAt"),
            title=s.get("title") or "",
            type=MemoryType(s.get("type")) if s.get("type") else None,
        )
        for s in tenant_docs(firestore_client, "notes", uid)
    ]


def chunk_view(chunks: Iterable[Chunk]) -> dict[str, tuple[Any, ...]]:
    """Everything that makes a chunk right, by chunk id (vectors rounded for Firestore doubles)."""
    return {
        c.chunk_id: (
            c.note_id,
            c.tenant_id,
            c.position,
            c.text,
            tuple(c.terms),
            c.memory_type.value,
            c.embedding_model,
            tuple(round(x, 6) for x in c.embedding),
        )
        for c in chunks
    }


def fresh_index(notes: Iterable[Note], **overrides: Any) -> dict[str, tuple[Any, ...]]:
    """Index the given notes from scratch, once each, in a brand-new memory store."""
    from tests.inproc import Harness

    h = Harness(**overrides)
    for note in notes:
        h.store.create_note(note)
        h.container.indexing.index_note(note.id)
    return chunk_view(h.store.chunks.values())


def note_event(project: str, note_id: str, kind: str, event_id: str, raw: bool = False) -> Any:
    """A ``document.v1.written`` CloudEvent as Eventarc (raw protobuf) or the emulator
    (base64 text) delivers it."""
    import base64

    from cloudevents.http import CloudEvent
    from google.events.cloud.firestore import Document, DocumentEventData

    name = f"projects/{project}/databases/(default)/documents/notes/{note_id}"
    data = DocumentEventData(
        value=Document(name=name) if kind in ("created", "updated") else None,
        old_value=Document(name=name) if kind in ("updated", "deleted") else None,
    )
    payload = DocumentEventData.serialize(data)
    attributes = {
        "id": event_id,
        "type": "google.cloud.firestore.document.v1.written",
        "source": f"//firestore.googleapis.com/projects/{project}/databases/(default)",
        "subject": f"documents/notes/{note_id}",
        "specversion": "1.0",
    }
    return CloudEvent(attributes, payload if raw else base64.b64encode(payload))


def event_headers(project: str, note_id: str, event_id: str) -> dict[str, str]:
    return {
        "Content-Type": "application/protobuf",
        "ce-specversion": "1.0",
        "ce-type": "google.cloud.firestore.document.v1.written",
        "ce-source": f"//firestore.googleapis.com/projects/{project}/databases/(default)",
        "ce-subject": f"documents/notes/{note_id}",
        "ce-id": event_id,
    }
