"""Indexer: Firestore `document.v1.written` on notes/{noteId} → chunks and vectors."""

import functions_framework
from cloudevents.http import CloudEvent

from footnote.entrypoints import handle_note_event


@functions_framework.cloud_event
def index_note(cloud_event: CloudEvent) -> None:
    handle_note_event(cloud_event)
