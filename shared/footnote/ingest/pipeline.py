"""Note → chunks: the pure part of indexing (no I/O, no model)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from footnote.domain import Chunk, ChunkDraft, MemoryType, Note
from footnote.ingest.chunking import chunk_id, chunk_text
from footnote.temporal import weekday_terms
from footnote.text import language_of_text, normalize, sha256, terms, value_terms


@dataclass(frozen=True)
class PreparedNote:
    note: Note
    drafts: tuple[ChunkDraft, ...]
    content_hash: str


def indexable_text(note: Note) -> str:
    """What gets indexed: the title (if any) on its own line, then the body."""
    body = normalize(note.text)
    title = normalize(note.title)
    return f"{title}\n\n{body}" if title else body


def content_hash(note: Note, model_id: str, chunk_size: int, overlap: int) -> str:
    """Changes whenever re-indexing would produce different chunks or vectors."""
    return sha256(
        model_id,
        str(chunk_size),
        str(overlap),
        indexable_text(note),
        note.type.value if note.type else "",
        "\t".join(note.tags),
    )


def prepare(note: Note, model_id: str, chunk_size: int, overlap: int) -> PreparedNote:
    text = indexable_text(note)
    drafts = tuple(chunk_text(text, chunk_size, overlap))
    return PreparedNote(note, drafts, content_hash(note, model_id, chunk_size, overlap))


def build_chunks(
    prepared: PreparedNote,
    memory_type: MemoryType,
    embeddings: Sequence[Sequence[float]],
    model_id: str,
) -> list[Chunk]:
    note = prepared.note
    # Words are stemmed and stopped in the note's own language ("viajes" is "viaj", as
    # a Spanish question's "viaje" is).
    language = language_of_text(" ".join(d.text for d in prepared.drafts))
    tag_terms = tuple(terms(" ".join(note.tags), language=language))
    if len(embeddings) != len(prepared.drafts):
        raise ValueError("one embedding per chunk")
    return [
        Chunk(
            chunk_id=chunk_id(note.id, d.position),
            note_id=note.id,
            tenant_id=note.tenant_id,
            position=d.position,
            text=d.text,
            # A note's tags are words of each of its chunks: a word only in a tag is found.
            # A weekday written short is indexed as the day too ("Wed" is "wednesday"), a
            # phone number as "phone number", an email address as "email". A compound's
            # parts are words of it too ("Steuernachzahlung" is found by "Nachzahlung").
            terms=tuple(terms(d.text, language=language, compounds=True, parts_marked=True))
            + tuple(weekday_terms(d.text))
            + tuple(value_terms(d.text))
            + tag_terms,
            memory_type=memory_type,
            created_at=note.created_at,
            embedding=tuple(float(x) for x in vector),
            embedding_model=model_id,
            title=note.title,
        )
        for d, vector in zip(prepared.drafts, embeddings, strict=True)
    ]
