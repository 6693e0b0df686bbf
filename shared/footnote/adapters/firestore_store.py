"""The Firestore store: the four repositories over one client, as one object.

Each port has its own repository (``firestore_notes``, ``firestore_chunks``,
``firestore_conversations``, ``firestore_embedding_cache``) sharing
:class:`~footnote.adapters.firestore_common.FirestoreRepository`. The container
hands one store to every service that needs a note, chunk or conversation
store, as it does the in-memory ``MemoryStore``; this class is that object for
Firestore. The embedding cache is built on its own over the same client.
"""

from __future__ import annotations

from footnote.adapters.firestore_chunks import FirestoreChunkStore
from footnote.adapters.firestore_common import (
    CHUNK_IDS,
    CHUNKS,
    CHUNKS_CHANGED_AT,
    CONVERSATIONS,
    EMBEDDINGS,
    JOBS,
    MESSAGES,
    NOTES,
    STATES,
    TENANTS,
    make_client,
)
from footnote.adapters.firestore_common import note_doc as _note_doc
from footnote.adapters.firestore_conversations import FirestoreConversationStore
from footnote.adapters.firestore_embedding_cache import FirestoreEmbeddingCache
from footnote.adapters.firestore_notes import FirestoreNoteStore

__all__ = [
    "CHUNKS",
    "CHUNKS_CHANGED_AT",
    "CHUNK_IDS",
    "CONVERSATIONS",
    "EMBEDDINGS",
    "JOBS",
    "MESSAGES",
    "NOTES",
    "STATES",
    "TENANTS",
    "FirestoreStore",
    "_note_doc",
    "make_client",
]


class FirestoreStore(
    FirestoreNoteStore, FirestoreChunkStore, FirestoreConversationStore, FirestoreEmbeddingCache
):
    """NoteStore, ChunkStore, ConversationStore and EmbeddingCache over one client."""
